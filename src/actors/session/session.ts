import { NEVER, Subscription, type Observable } from 'rxjs';
import {
  createActor,
  fromEventObservable,
  type InspectionEvent,
  type Observer,
  type SnapshotFrom,
  type Subscription as ActorSubscription,
} from 'xstate';
import {
  ackFrame,
  encodeAudioPair,
  errorFrame,
  turnEndFrame,
  wavOfPcmParts,
  type OutboundFrame,
  type TurnNumber as Turn,
} from '../../protocol/ws/index.js';
import {
  callFailure,
  sessionCall$,
  type CallEvent,
  type TurnPart,
  type TurnUtterance,
} from '../../streams/call-streams.js';
import { WriteScheduler } from '../../streams/play-audio/fan-out.js';
import { KioskQueue } from '../../streams/play-audio/outbound-queue.js';
import { NO_AUDIO, SessionSpeech } from '../../streams/speech-uplink.js';
import { trackSubscription } from '../conversation-gauges.js';
import { MAX_SPOKEN_PARTS, readHeardReport, type SpokenTurn } from './heard-text.js';
import { readTransportEvent } from './session-actions.js';
import { sessionMachine } from './session-machine.js';
import type {
  ChatRequest,
  ConversationRequest,
  Refusal,
  SessionContext,
  SessionEvent,
  SessionInput,
  SessionTransportEvent,
} from './session-types.js';

/**
 * A session: its chart (session-machine.ts) given by `provide` its effects and its call on what it holds
 * live (queue, audio, utterances, subscriptions). The socket's events are read into the chart's; what comes
 * back (a call's parts, a failed send, a transcript) comes back as the chart's events.
 */

export type SessionSnapshot = SnapshotFrom<typeof sessionMachine>;

export interface SessionActor {
  /** An event of the socket (frames are copied by the transport before they get here). */
  send(event: SessionTransportEvent): void;
  getSnapshot(): SessionSnapshot;
  subscribe(observer: Partial<Observer<SessionSnapshot>>): ActorSubscription;
  /** Ends the session without a word to the client: its call abandoned, its resources given back. */
  stop(): void;
}

/** A chat request's audio (a whole frame, or a streamed utterance's parts for `/chat`) until its call ends. */
interface HeldAudio {
  readonly chunks: Uint8Array[];
  /** Give their bytes back to the budget; one per chunk that took any. */
  readonly releases: (() => void)[];
}

/** What an effect reads of the chart's step. */
interface EffectArgs {
  readonly context: SessionContext;
  readonly event: SessionEvent;
}

/** What a session holds live, outside its snapshots; its callers are the chart's effects and its call. */
class SessionResources {
  readonly #queue: KioskQueue;
  readonly #held = new Map<Turn, HeldAudio>();
  readonly #speech: SessionSpeech;
  readonly #subscriptions = new Subscription();
  #spoken: SpokenTurn | undefined;
  #closed = false;

  constructor(
    private readonly input: SessionInput,
    private readonly tell: (event: SessionEvent) => void,
  ) {
    // A session on its own (no hub) gets a scheduler of its own within the same ceiling.
    const scheduler =
      input.outboundScheduler ?? new WriteScheduler({ totalCapBytes: input.limits.maxOutboundBytes });
    this.#queue = new KioskQueue(
      {
        capBytes: input.limits.maxSendBufferBytes,
        bufferedBytes: input.bufferedBytes ?? (() => 0),
        send: input.send,
        batch: input.batch,
        writeFailed: this.#sendFailed,
      },
      scheduler,
    );
    this.#speech = new SessionSpeech(
      input.speech,
      (turn) => `${input.utterancePrefix}-${turn}`,
      (turn, { text, final }) => {
        tell({ type: 'transcript', turn, text, final });
      },
    );
    input.gauges.liveSessions.value += 1;
  }

  /** Why `bytes` of audio would not fit in the budget now; a streamed part is held only for `/chat`. */
  readonly shortfall = (bytes: number, streamed: boolean) =>
    streamed && this.input.chatInterface === 'action' ? undefined : this.input.audioBudget.shortfall(bytes);

  /** Subscribes to /play_audio and the microphone: once the session's first frame is out. */
  listen(): void {
    const { playAudioPairs$, microphone, gauges } = this.input;
    const fail = (error: unknown) => {
      this.tell({ type: 'session.streamFailed', error });
    };
    this.#subscriptions.add(
      playAudioPairs$
        .pipe(trackSubscription(gauges.openSubscriptions))
        .subscribe({ next: this.#queue.offer, error: fail }),
    );
    this.#subscriptions.add(
      microphone.enabled$.pipe(trackSubscription(gauges.openSubscriptions)).subscribe({
        next: (enabled) => {
          this.tell({ type: 'microphone.changed', enabled });
        },
        error: fail,
      }),
    );
  }

  // The chart's named effects (session-actions.ts declares them), given by `provide`.
  readonly deliver = (_: unknown, frame: OutboundFrame): void => {
    if (!this.#queue.send(frame)) this.#sendFailed();
  };

  readonly refuse = (_: unknown, refusal: Refusal): void => {
    this.#refuse(refusal, 'refused');
  };

  /** An admitted turn's audio: kept for its call, its bytes taken from the budget (the event said they fit). */
  readonly holdAudio = ({ context, event }: EffectArgs): void => {
    if (event.type !== 'utterance') return;
    const release = this.input.audioBudget.take(event.audio.byteLength);
    this.#held.set(context.turns, {
      chunks: [event.audio],
      releases: release === undefined ? [] : [release],
    });
  };

  /** A part of the running turn's answer: its pair goes out at once, its message id taken as it leaves. */
  readonly deliverPart = ({ context, event }: EffectArgs): void => {
    if (event.type !== 'call.part' || context.running?.service !== 'chat') return;
    if (!this.#sendPair(context.running.turn, event.part)) this.#sendFailed();
  };

  /**
   * How the running call ended, its audio given back first, in one write: for a turn, its last pair (a
   * `/chat` answer) or its error frame, then `turn_end`; for clear_history, the ack or the error. A
   * streamed turn's transcripts end here.
   */
  readonly deliverOutcome = ({ context: { running: request }, event }: EffectArgs): void => {
    if (event.type !== 'call.settled' || request === undefined) return;
    const { outcome } = event;
    this.#releaseAudio(request);
    const queue = this.#queue;
    if (request.service === 'clear_history') {
      const failure = outcome.kind === 'failed' ? callFailure('clear_history', outcome.error) : undefined;
      this.deliver(
        undefined,
        failure ? errorFrame(failure.code, failure.message) : ackFrame('clear_history'),
      );
      return;
    }
    const { turn } = request;
    if (request.streamed) this.#speech.unfollow(turn);
    if (outcome.kind === 'failed') {
      const { code, message } = callFailure('chat', outcome.error);
      this.#writeTogether(
        () => queue.send(errorFrame(code, message, turn)) && queue.send(turnEndFrame(turn, 'failed')),
      );
      return;
    }
    const { part } = outcome;
    this.#writeTogether(
      () => (part === undefined || this.#sendPair(turn, part)) && queue.send(turnEndFrame(turn, 'answered')),
    );
  };

  readonly releaseCancelledAudio = ({ context }: EffectArgs): void => {
    this.#releaseAudio(context.running);
    for (const request of context.waiting) this.#releaseAudio(request);
  };

  /** `turn_end` cancelled for each stopped or dropped turn, in turn order, then the ack, in one write. */
  readonly deliverCancelled = ({ context: { cancelledTurns } }: EffectArgs): void => {
    for (const turn of cancelledTurns) this.#speech.unfollow(turn);
    const queue = this.#queue;
    this.#writeTogether(
      () =>
        cancelledTurns.every((turn) => queue.send(turnEndFrame(turn, 'cancelled'))) &&
        queue.send(ackFrame('cancel')),
    );
  };

  /** A streamed utterance opened as the latest turn: its parts kept for `/chat`, its transcripts followed. */
  readonly followUtterance = ({ context: { turns: turn } }: EffectArgs): void => {
    if (this.input.chatInterface !== 'action') this.#held.set(turn, { chunks: [], releases: [] });
    this.#speech.open(turn);
  };

  /** A part of the open utterance: to the robot at once; kept too (its bytes taken) for `/chat`. */
  readonly sendPart = ({ event }: EffectArgs): void => {
    if (event.type !== 'upload.part') return;
    this.#speech.part(event.turn, event.sequence, event.audio);
    const held = this.#held.get(event.turn);
    if (held === undefined) return;
    held.chunks.push(event.audio);
    const release = this.input.audioBudget.take(event.audio.byteLength);
    if (release !== undefined) held.releases.push(release);
  };

  /** The open utterance ended whole: the robot told, before the turn is queued. */
  readonly endUtterance = ({ event }: EffectArgs): void => {
    if (event.type === 'utterance.ended') this.#speech.end(event.turn, event.parts);
  };

  /** The open utterance was given up: the robot told, its audio let go, and for an error its frames sent. */
  readonly abandonUtterance = ({ event }: EffectArgs): void => {
    if (event.type !== 'upload.abandoned') return;
    const { turn, parts, refusal } = event;
    this.#speech.abandon(turn, parts);
    this.#releaseAudio({ service: 'chat', turn, audioBytes: 0, streamed: true });
    if (refusal !== undefined) this.#refuse({ frame: refusal.frame, turn }, 'abandoned');
  };

  /** A heard report: told to the robot when it names a pair of the latest answer, else `heard_invalid`. */
  readonly reportHeard = ({ event }: EffectArgs): void => {
    if (event.type !== 'heard') return;
    const heard = readHeardReport(this.#spoken, event);
    if ('invalid' in heard) this.deliver(undefined, errorFrame('heard_invalid', heard.invalid));
    else {
      this.input.speech.heard({
        utterance_id: this.#speech.utteranceId(event.turn),
        played_ms: heard.playedMs,
        heard_text: heard.heardText,
      });
    }
  };

  /** The socket took what it held (drain): write the `/play_audio` pairs that waited, while they fit. */
  readonly flushPlayAudio = (): void => {
    this.#queue.drained();
  };

  /** The running request's call (`calling` invokes it); nothing starts for a gone socket. */
  readonly call$ = (request: ConversationRequest | undefined): Observable<CallEvent> => {
    if (request === undefined || this.#queue.broken || this.#closed) return NEVER;
    const { calls, chatInterface = 'service', onCallAbandoned } = this.input;
    const { service } = request;
    const abandoned = (): void => {
      onCallAbandoned?.(service === 'chat' && chatInterface === 'action' ? 'converse' : service);
    };
    const call =
      request.service === 'clear_history' ? request : { service, utterance: this.#utteranceOf(request) };
    return sessionCall$(calls, chatInterface, call, abandoned);
  };

  /**
   * The session ended, however it ended (its call stopped with its chart): an utterance still open told to
   * the robot as abandoned, its subscriptions, queue and budget given back.
   */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#speech.close();
    this.#subscriptions.unsubscribe();
    this.#queue.clear();
    for (const held of this.#held.values()) for (const release of held.releases) release();
    this.#held.clear();
    this.input.gauges.liveSessions.value -= 1;
  }

  /** A request that is not queued: its error, and for a turn `turn_end` refused, in one write. */
  #refuse(refusal: Refusal, outcome: 'refused' | 'abandoned'): void {
    const queue = this.#queue;
    this.#writeTogether(
      () =>
        (refusal.frame === undefined || queue.send(refusal.frame)) &&
        (refusal.turn === undefined || queue.send(turnEndFrame(refusal.turn, outcome))),
    );
  }

  /** Gives back the audio of a turn whose call ended or that was dropped. */
  #releaseAudio(request: ConversationRequest | undefined): void {
    if (request?.service !== 'chat') return;
    const held = this.#held.get(request.turn);
    if (held === undefined) return;
    this.#held.delete(request.turn);
    for (const release of held.releases) release();
  }

  /** What the call of chat request `request` sends: a whole frame, or a streamed utterance. */
  #utteranceOf(request: ChatRequest): TurnUtterance {
    const id = this.#speech.utteranceId(request.turn);
    const chunks = this.#held.get(request.turn)?.chunks;
    if (request.streamed) {
      const action = this.input.chatInterface === 'action';
      return { id, streamed: action, audio: action ? NO_AUDIO : wavOfPcmParts(chunks ?? []) };
    }
    const audio = chunks?.[0];
    if (audio === undefined) throw new Error(`turn ${request.turn} started without its audio`);
    return { id, streamed: false, audio };
  }

  /** A pair of turn `turn`: its message id taken as it leaves, remembered with the turn's others. */
  #sendPair(turn: Turn, part: TurnPart): boolean {
    const messageId = this.input.messageIds.next();
    if (this.#spoken?.turn !== turn) this.#spoken = { turn, messageIds: [], texts: [] };
    if (this.#spoken.messageIds.length < MAX_SPOKEN_PARTS) {
      this.#spoken.messageIds.push(messageId);
      this.#spoken.texts.push(part.text);
    }
    return this.#queue.send(encodeAudioPair(messageId, part, turn));
  }

  /** Several frames in one write (the transport's cork); a frame that could not be sent ends the session. */
  #writeTogether(writes: () => boolean): void {
    if (!this.#queue.batch(writes)) this.#sendFailed();
  }

  readonly #sendFailed = (): void => {
    this.tell({ type: 'session.sendFailed' });
  };
}

/**
 * Starts a session, its `state` frame sent before this returns. `inspect` hears each event the chart takes
 * (XState's inspection): a log that replays to the same snapshots.
 */
export const startSessionActor = (
  input: SessionInput,
  options: { readonly inspect?: (event: InspectionEvent) => void } = {},
): SessionActor => {
  // Nothing is told before the actor exists: the resources tell only once they listen or run a call.
  const resources = new SessionResources(input, (event) => {
    actor.send(event);
  });
  const machine = sessionMachine.provide({
    actors: {
      call: fromEventObservable(({ input: request }: { input: ConversationRequest | undefined }) =>
        resources.call$(request),
      ),
    },
    actions: {
      deliver: resources.deliver,
      refuse: resources.refuse,
      holdAudio: resources.holdAudio,
      deliverPart: resources.deliverPart,
      deliverOutcome: resources.deliverOutcome,
      releaseCancelledAudio: resources.releaseCancelledAudio,
      deliverCancelled: resources.deliverCancelled,
      followUtterance: resources.followUtterance,
      sendPart: resources.sendPart,
      endUtterance: resources.endUtterance,
      abandonUtterance: resources.abandonUtterance,
      reportHeard: resources.reportHeard,
      flushPlayAudio: resources.flushPlayAudio,
    },
  });
  const actor = createActor(machine, {
    input: {
      limits: input.limits,
      audioBudgetBytes: input.audioBudget.limit,
      microphoneEnabled: input.microphone.isEnabled(),
    },
    ...(options.inspect === undefined ? {} : { inspect: options.inspect }),
  });
  const release = (): void => {
    resources.close();
  };
  actor.subscribe({ complete: release, error: release });
  actor.start();
  if (actor.getSnapshot().status === 'active') resources.listen();
  return {
    send: (event) => {
      const session = actor.getSnapshot();
      // An ended session hears nothing more.
      if (session.status !== 'active') return;
      actor.send(readTransportEvent(event, session.context, resources.shortfall));
    },
    getSnapshot: () => actor.getSnapshot(),
    subscribe: (observer) => actor.subscribe(observer),
    stop: () => {
      actor.stop();
    },
  };
};
