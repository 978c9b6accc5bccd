import { BehaviorSubject, Subject } from 'rxjs';
import type { MicrophoneView } from '../../src/actors/microphone-machine.js';
import type {
  HeardMsg,
  PlayAudioMsg,
  SetBoolResponseMsg,
  TranscriptMsg,
  UtteranceAudioMsg,
} from '../../src/ros/port/ros-messages.js';
import { speechUplink, type SpeechUplink } from '../../src/streams/speech-uplink.js';
import {
  defaultServiceName,
  type MicrophoneRequest,
  type RosCallHandler,
  type RosCallTicket,
  type RosPort,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../../src/ros/port/ros-port.js';

/** A speech uplink over a port nobody reads: for sessions whose tests do not stream. */
export const unheardSpeech = (): SpeechUplink => new FakeConversationPort().speech();

/** One call to `FakeConversationPort.call`, answerable by the test. */
export interface FakeCall {
  readonly service: RosServiceKey;
  readonly request: unknown;
  /** Cancelled (abandoned) by the caller before an answer. */
  unsubscribed: boolean;
  respond(response: unknown): void;
  fail(error: unknown): void;
}

/**
 * The ROS port seen by the conversation core, driven by the test through subjects. Services are named
 * as remapped in `names`, else by their default names.
 */
/** The part of the ROS port the conversation core uses. */
export type ConversationPortLike = Pick<
  RosPort,
  | 'call'
  | 'serviceName'
  | 'playAudio$'
  | 'microphoneRequests$'
  | 'publishUtteranceAudio'
  | 'publishHeard'
  | 'transcripts$'
>;

export class FakeConversationPort implements ConversationPortLike {
  readonly calls: FakeCall[] = [];
  /** What sessions published on /utterance/audio and /conversation/heard, in order. */
  readonly utteranceAudio: UtteranceAudioMsg[] = [];
  readonly heard: HeardMsg[] = [];
  readonly transcripts = new Subject<TranscriptMsg>();
  readonly transcripts$ = this.transcripts.asObservable();
  readonly playAudio = new Subject<PlayAudioMsg>();
  readonly microphoneRequests = new Subject<MicrophoneRequest>();
  readonly playAudio$ = this.playAudio.asObservable();
  readonly microphoneRequests$ = this.microphoneRequests.asObservable();

  constructor(private readonly names: Readonly<Partial<Record<RosServiceKey, string>>> = {}) {}

  publishUtteranceAudio(message: UtteranceAudioMsg): void {
    this.utteranceAudio.push(message);
  }

  publishHeard(message: HeardMsg): void {
    this.heard.push(message);
  }

  /** The speech uplink sessions use, over this port. */
  speech(): SpeechUplink {
    return speechUplink(this);
  }

  serviceName(service: RosServiceKey): string {
    return this.names[service] ?? defaultServiceName(service);
  }

  call<K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket {
    let settled = false;
    const call: FakeCall = {
      service,
      request,
      unsubscribed: false,
      respond: (response) => {
        if (settled || call.unsubscribed) return;
        settled = true;
        handler.answered(response as RosResponse<K>);
      },
      fail: (error) => {
        if (settled || call.unsubscribed) return;
        settled = true;
        handler.failed(error instanceof Error ? error : new Error(String(error)));
      },
    };
    this.calls.push(call);
    return {
      cancel: () => {
        if (!settled) call.unsubscribed = true;
      },
    };
  }

  /** The call at `index`, failing the test when it was never made. */
  callAt(index: number): FakeCall {
    const call = this.calls[index];
    if (call === undefined) throw new Error(`no call #${index}; ${this.calls.length} made`);
    return call;
  }

  /** Sends one /microphone/set_enabled request and collects its answers. */
  requestMicrophone(enabled: boolean): SetBoolResponseMsg[] {
    const answers: SetBoolResponseMsg[] = [];
    this.microphoneRequests.next({
      enabled,
      source: 'test',
      respond: (response) => {
        answers.push(response);
      },
    });
    return answers;
  }
}

/** A microphone a test switches directly. */
export const fakeMicrophone = (
  enabled = true,
): MicrophoneView & { readonly state: BehaviorSubject<boolean> } => {
  const state = new BehaviorSubject(enabled);
  return { state, isEnabled: () => state.value, enabled$: state.asObservable() };
};

export const audioOf = (...bytes: number[]): Uint8Array => Uint8Array.from(bytes);

/**
 * Lets the microphone's keeper run: a change is kept before it is answered, and the machine's own keeper
 * (no event log) keeps nothing and is done a promise later, like the log.
 */
export const keeperTurn = (): Promise<void> =>
  new Promise<void>((resolve) => {
    setImmediate(resolve);
  });
