import { NEVER, Subject, type Observable } from 'rxjs';
import type {
  ConverseGoalMsg,
  HeardMsg,
  PlayAudioMsg,
  TranscriptMsg,
  UtteranceAudioMsg,
} from '../../src/ros/port/ros-messages.js';
import {
  defaultServiceName,
  type BackendReadiness,
  type MicrophoneRequest,
  RosServiceUnavailableError,
  SETTLED_CALL,
  type RosCallHandler,
  type RosCallKey,
  type RosConverseHandler,
  type RosCallTicket,
  type RosPort,
  type RosRequest,
  type RosResponse,
  type RosServiceKey,
} from '../../src/ros/port/ros-port.js';
import { callFromObservable } from './port-calls.js';

type Script = { [K in RosServiceKey]?: (request: RosRequest<K>) => Observable<RosResponse<K>> };

/**
 * The test double of the ROS port: each service answers what the test scripts (default: never).
 * Counts subscriptions to calls so tests can prove abandoned calls are released. Services are named
 * as remapped in `names`, else by their default names.
 */
export class ScriptedPort implements RosPort {
  readonly backend = 'ros' as const;
  readonly description = 'scripted test double of the ROS port';
  readonly playAudio = new Subject<PlayAudioMsg>();
  readonly microphone = new Subject<MicrophoneRequest>();
  readonly playAudio$ = this.playAudio.asObservable();
  readonly microphoneRequests$ = this.microphone.asObservable();
  /** What the bridge published on /utterance/audio and /conversation/heard, in order. */
  readonly utteranceAudio: UtteranceAudioMsg[] = [];
  readonly heard: HeardMsg[] = [];
  readonly transcripts = new Subject<TranscriptMsg>();
  readonly transcripts$ = this.transcripts.asObservable();
  /** The Converse goals sent, in order. */
  readonly goals: ConverseGoalMsg[] = [];
  readonly calls: { service: RosServiceKey; request: unknown }[] = [];
  activeCalls = 0;
  ready: BackendReadiness = { ready: true, detail: 'scripted' };
  closed = false;

  constructor(
    private readonly script: Script = {},
    private readonly names: Readonly<Partial<Record<RosServiceKey, string>>> = {},
  ) {}

  serviceName(service: RosCallKey): string {
    return (service === 'converse' ? undefined : this.names[service]) ?? defaultServiceName(service);
  }

  publishUtteranceAudio(message: UtteranceAudioMsg): void {
    this.utteranceAudio.push(message);
  }

  publishHeard(message: HeardMsg): void {
    this.heard.push(message);
  }

  converse(goal: ConverseGoalMsg, handler: RosConverseHandler): RosCallTicket {
    this.goals.push(goal);
    handler.failed(new RosServiceUnavailableError('converse'));
    return SETTLED_CALL;
  }

  call<K extends RosServiceKey>(
    service: K,
    request: RosRequest<K>,
    handler: RosCallHandler<K>,
  ): RosCallTicket {
    const scripted = this.script[service] as
      | ((request: RosRequest<K>) => Observable<RosResponse<K>>)
      | undefined;
    const source = scripted === undefined ? (NEVER as Observable<RosResponse<K>>) : scripted(request);
    this.calls.push({ service, request });
    this.activeCalls += 1;
    let active = true;
    const leave = () => {
      if (!active) return;
      active = false;
      this.activeCalls -= 1;
    };
    const call = callFromObservable(source, {
      answered: (response) => {
        leave();
        handler.answered(response);
      },
      failed: (error) => {
        leave();
        handler.failed(error);
      },
    });
    return {
      cancel: () => {
        leave();
        call.cancel();
      },
    };
  }

  readiness(): BackendReadiness {
    return this.ready;
  }

  close(): Promise<void> {
    this.closed = true;
    // As the real backends: the transcripts end with the port.
    this.transcripts.complete();
    return Promise.resolve();
  }
}
