import { catchError, endWith, map, of, Subscription, type Observable } from 'rxjs';
import {
  assign,
  createActor,
  enqueueActions,
  fromCallback,
  raise,
  sendTo,
  setup,
  type ActorRefFrom,
} from 'xstate';
import type { MessageIdAllocator } from '../protocol/message-ids.js';
import {
  ackFrame,
  closeFrame,
  encodeAudioPair,
  errorFrame,
  parseClientText,
  textFrame,
  turnEndFrame,
  type AudioPairFrame,
  type OutboundFrame,
} from '../protocol/ws-frames.js';
import {
  busyMessage,
  CLOSE_CODES,
  INITIAL_EMOTION,
  INITIAL_TEXT,
  MAX_TURN,
  type ConversationLimits,
  type ErrorCode,
  type Turn,
} from '../protocol/ws-protocol.js';
import type { RosCalls } from '../ros/ros-calls.js';
import { RosCallFailedError, RosServiceUnavailableError, RosTimeoutError } from '../ros/ros-port.js';
import { PlayAudioBacklog } from '../streams/play-audio-backlog.js';
import { rosCall$ } from '../streams/ros-call.js';
import type { ChatInterface } from '../cli/options.js';
import { ConverseOutcomeError, turn$, type TurnPart } from '../streams/turn.js';
import {
  BudgetHoldings,
  trackSubscription,
  type ByteBudget,
  type ConversationGauges,
} from '../streams/resource-gauges.js';
import type { MicrophoneView } from './microphone-machine.js';

/**
 * One `/ws` connection, as a state machine a reader can follow:
 *
 *   open.idle ──request──▶ open.calling ──answer or failure──▶ open.answering ──▶ idle, or calling the next
 *                          open.calling ──call.part──▶ (the part's pair is sent at once)
 *                          open.calling ──cancel (a turn runs)──▶ open.cancelled ──▶ idle, or calling the next
 *        (any open state) ──close, 1001/1008/1009/1011, or the socket closed──▶ closed
 *
 * A kiosk's utterance (`ws.binary`) is a turn, numbered from 1; it or a command (`ws.text`) becomes a
 * `request`. One call runs at a time (`calling` starts it); up to `maxWaitingCalls` wait behind it in
 * arrival order, and beyond that, or when the audio would not fit in the process-wide budget, the request is
 * answered `busy` at once. A turn's answer comes as pairs (one with `/chat`, one per part with the Converse
 * action) and ends with `turn_end`. The `cancel` command is not queued: it stops the running turn and drops
 * the queued ones. Closing stops the session's streams child and with it the running call: it is abandoned
 * and its late answer dropped. Outbound frames leave through the injected `send`; the transport only
 * translates.
 */

/** A ROS call a session asks for; a chat request is one turn. */
export type ConversationRequest =
  | { readonly service: 'chat'; readonly audio: Uint8Array; readonly turn: Turn }
  | { readonly service: 'clear_history' };
type ChatRequest = Extract<ConversationRequest, { service: 'chat' }>;

/** What a session uses of the process; shared by all sessions. */
export interface SessionDeps {
  readonly calls: Pick<RosCalls, 'call' | 'converse'>;
  /** How a turn reaches the robot (`--chat_interface`); `service` when not given. */
  readonly chatInterface?: ChatInterface;
  readonly messageIds: MessageIdAllocator;
  readonly playAudioPairs$: Observable<AudioPairFrame>;
  readonly microphone: MicrophoneView;
  readonly limits: ConversationLimits;
  readonly gauges: ConversationGauges;
  /** Audio bytes held by the chat calls of all sessions, running or waiting (`maxQueuedAudioBytes`). */
  readonly audioBudget: ByteBudget;
  /** Told how many `/play_audio` messages a slow kiosk's backlog dropped (counted, logged). */
  readonly onPlayAudioDropped?: (count: number) => void;
}

export interface SessionInput extends SessionDeps {
  /**
   * Writes one outbound item to this session's socket: a text frame, an audio pair (both frames in one corked
   * write), or a close. Throwing ends the session.
   */
  readonly send: (frame: OutboundFrame) => void;
  /**
   * Runs `writes` (several `send` calls) as one write to the socket where the transport can (uWebSockets.js
   * cork): a turn's last pair and its `turn_end`, or a cancel's frames, leave in one syscall. Optional: without
   * it the frames are sent one by one, in the same order.
   */
  readonly batch?: (writes: () => void) => void;
  /**
   * Told when the session stops with a call still unanswered (named as on the graph's side: `converse` for a
   * turn with the Converse action); its late answer will be dropped.
   */
  readonly onCallAbandoned?: (service: 'chat' | 'clear_history' | 'converse') => void;
  /**
   * Bytes waiting in the socket's send buffer now. With it, `/play_audio` pairs are written only while they
   * fit under `maxSendBufferBytes` and wait in a bounded backlog otherwise (PlayAudioBacklog); without it
   * they are written at once.
   */
  readonly bufferedBytes?: () => number;
}

/** Events the transport sends. Frame data must stay valid after the call: pass a copy of uWS buffers. */
export type SessionTransportEvent =
  | { readonly type: 'ws.binary'; readonly data: Uint8Array }
  | { readonly type: 'ws.text'; readonly data: string | Uint8Array }
  /** The socket is closed; stop without sending anything. */
  | { readonly type: 'ws.closed' }
  /** Bytes waiting in the socket's send buffer, reported by the transport after writes (and on drain). */
  | { readonly type: 'ws.buffered'; readonly bytes: number }
  /** The server is stopping: close with 1001. */
  | { readonly type: 'server.shutdown' };

/**
 * What the running call ended with; the `answering` state turns it into frames. A `/chat` answer carries
 * its one part; a Converse goal's parts went out as they came, so its answer carries none.
 */
type CallOutcome =
  | { readonly kind: 'answered'; readonly request: ChatRequest; readonly part: TurnPart | undefined }
  | { readonly kind: 'answered'; readonly request: { readonly service: 'clear_history' } }
  | { readonly kind: 'failed'; readonly request: ConversationRequest; readonly error: unknown };

type SessionInternalEvent =
  | { readonly type: 'request'; readonly request: ConversationRequest }
  /** One part of the running turn's answer (Converse feedback): its pair is sent at once. */
  | { readonly type: 'call.part'; readonly request: ChatRequest; readonly part: TurnPart }
  | { readonly type: 'call.settled'; readonly outcome: CallOutcome }
  /** The kiosk's `cancel` command (barge-in). */
  | { readonly type: 'cancel' }
  | { readonly type: 'microphone.changed'; readonly enabled: boolean }
  /** A send threw: the socket is gone. */
  | { readonly type: 'session.sendFailed' }
  | { readonly type: 'session.streamFailed'; readonly error: unknown };

export type SessionEvent = SessionTransportEvent | SessionInternalEvent;

interface SessionContext {
  readonly input: SessionInput;
  readonly outbox: Outbox;
  /** The audio its admitted requests hold of the process-wide budget; all given back when it ends. */
  readonly holdings: BudgetHoldings<ConversationRequest>;
  /** Last microphone state this session was told about. */
  readonly microphoneEnabled: boolean;
  /** The request whose call runs (`calling`), if any. */
  readonly running: ConversationRequest | undefined;
  /** Requests waiting behind it, oldest first. */
  readonly waiting: readonly ConversationRequest[];
  /** How the last call ended, for `answering`. */
  readonly outcome: CallOutcome | undefined;
  /** Binary frames received so far: the number of the last turn. */
  readonly turns: number;
  /** Turns a `cancel` stopped or dropped, in turn order, for `cancelled` (and the ack after them). */
  readonly cancelledTurns: readonly Turn[];
}

// ---------------------------------------------------------------------------------------------------------
// What a call's outcome and a refusal become on the wire

const failureCode = (service: ConversationRequest['service'], error: unknown): ErrorCode => {
  if (error instanceof RosTimeoutError) return `${service}_timeout`;
  if (error instanceof RosServiceUnavailableError) return `${service}_unavailable`;
  return `${service}_failed`;
};

// Port errors carry operator-readable text (service name, time-out), a Converse result its own message;
// anything else stays generic.
const failureMessage = (error: unknown): string | undefined =>
  error instanceof RosTimeoutError ||
  error instanceof RosServiceUnavailableError ||
  error instanceof RosCallFailedError ||
  error instanceof ConverseOutcomeError
    ? error.message
    : undefined;

/**
 * Sends what ends the last call: for a turn, its last pair (a `/chat` answer) or its error frame, then
 * `turn_end`; for clear_history, the ack or the error. A pair takes its message id when it is sent, so ids
 * increase in the order pairs leave. Stops at the first frame the outbox could not take (then false).
 */
const sendOutcome = (outcome: CallOutcome, messageIds: MessageIdAllocator, outbox: Outbox): boolean => {
  const { request } = outcome;
  if (request.service === 'clear_history') {
    return outbox.send(
      outcome.kind === 'failed'
        ? errorFrame(failureCode('clear_history', outcome.error), failureMessage(outcome.error))
        : ackFrame('clear_history'),
    );
  }
  const { turn } = request;
  if (outcome.kind === 'failed') {
    return (
      outbox.send(errorFrame(failureCode('chat', outcome.error), failureMessage(outcome.error), turn)) &&
      outbox.send(turnEndFrame(turn, 'failed'))
    );
  }
  const { part } = outcome as { readonly part: TurnPart | undefined };
  if (part !== undefined && !outbox.send(encodeAudioPair(messageIds.next(), part, turn))) return false;
  return outbox.send(turnEndFrame(turn, 'answered'));
};

/** `calling` is entered only with a running request: `admit` or `startNext` put it there. */
const runningRequest = (context: SessionContext): ConversationRequest => {
  if (context.running === undefined) throw new Error('session entered calling without a running request');
  return context.running;
};
const audioBytes = (request: ConversationRequest): number =>
  request.service === 'chat' ? request.audio.byteLength : 0;

// ---------------------------------------------------------------------------------------------------------
// The session's child

/**
 * The running call's stream, turned into the events the machine hears: with the Converse action one
 * `call.part` per part as it arrives, then `call.settled`; with `/chat` (and clear_history) only the one
 * `call.settled`, carrying the answer, so the service's round trip costs the machine one event as before.
 */
const callEvents$ = (
  calls: Pick<RosCalls, 'call' | 'converse'>,
  chatInterface: ChatInterface,
  request: ConversationRequest,
): Observable<SessionInternalEvent> => {
  const settled = (outcome: CallOutcome): SessionInternalEvent => ({ type: 'call.settled', outcome });
  const failed = (error: unknown) => of(settled({ kind: 'failed', request, error }));
  if (request.service === 'clear_history') {
    return rosCall$(calls, 'clear_history', {}).pipe(
      map(() => settled({ kind: 'answered', request })),
      catchError(failed),
    );
  }
  if (chatInterface === 'service') {
    return turn$(calls, 'service', request.audio).pipe(
      map((part) => settled({ kind: 'answered', request, part })),
      catchError(failed),
    );
  }
  return turn$(calls, 'action', request.audio).pipe(
    map((part): SessionInternalEvent => ({ type: 'call.part', request, part })),
    endWith(settled({ kind: 'answered', request, part: undefined })),
    catchError(failed),
  );
};

interface StreamsInput {
  readonly session: SessionInput;
  readonly outbox: Outbox;
  readonly holdings: BudgetHoldings<ConversationRequest>;
}

/**
 * What the machine tells its streams child: run this request's call (`calling` is entered), or stop the
 * running one (a cancelled turn: abandoned, its goal cancelled, nothing of it heard again).
 */
type StreamsEvent =
  | { readonly type: 'call.start'; readonly request: ConversationRequest }
  | { readonly type: 'call.stop' }
  /** The socket took what it held (drain): write the `/play_audio` pairs that waited, while they fit. */
  | { readonly type: 'play_audio.flush' };

/**
 * How a session writes `/play_audio` pairs: at once while the socket's send buffer can take them under
 * `maxSendBufferBytes`, so a burst never closes a slow kiosk with 1008; otherwise they wait in a backlog
 * of the same size, which drops the oldest whole messages. A kiosk that lost some is told how many
 * (`audio_dropped`) before the next message it gets, and every loss is counted.
 */
const playAudioWriter = (input: SessionInput, outbox: Outbox, sendFailed: () => void) => {
  const limit = input.limits.maxSendBufferBytes;
  const buffered = input.bufferedBytes;
  const backlog = new PlayAudioBacklog(limit);
  const write = (pair: AudioPairFrame): boolean => {
    const dropped = backlog.takeDropped();
    if (dropped > 0) {
      input.onPlayAudioDropped?.(dropped);
      if (!outbox.send(textFrame({ type: 'audio_dropped', count: dropped }))) return false;
    }
    return outbox.send(pair);
  };
  const flush = (): void => {
    if (buffered === undefined) return;
    for (;;) {
      const pair = backlog.takeIf((bytes) => buffered() + bytes <= limit);
      if (pair === undefined) return;
      if (!write(pair)) {
        sendFailed();
        return;
      }
    }
  };
  return {
    offer: (pair: AudioPairFrame): void => {
      if (buffered === undefined) {
        if (!outbox.send(pair)) sendFailed();
        return;
      }
      backlog.push(pair);
      flush();
    },
    flush,
    clear: (): void => {
      backlog.clear();
    },
  };
};

/**
 * Every stream of an open session in one child actor: the running call (started when the machine enters
 * `calling`), the /play_audio pairs and the microphone changes. One long-lived child rather than one per
 * stream or per call: each XState actor costs memory in every idle session, and spawning one per call was
 * most of a chat round trip's machine time (docs/performance.md). A pair needs no decision of the machine:
 * it goes straight to the transport. The session counts as live while this child runs, and its end gives
 * back the session's audio budget and abandons a running call: a stopped actor runs no exit actions, only
 * its children's teardowns, so this is where a session's end is certain to be seen.
 */
const streamsLogic = fromCallback<StreamsEvent, StreamsInput>(({ input: streams, sendBack, receive }) => {
  const { session: input, outbox, holdings } = streams;
  const { gauges } = input;
  gauges.liveSessions.increment();
  const fail = (error: unknown) => {
    sendBack({ type: 'session.streamFailed', error } satisfies SessionInternalEvent);
  };
  const subscription = new Subscription();
  const playAudio = playAudioWriter(input, outbox, () => {
    sendBack({ type: 'session.sendFailed' } satisfies SessionInternalEvent);
  });
  subscription.add(
    input.playAudioPairs$.pipe(trackSubscription(gauges.openSubscriptions)).subscribe({
      next: playAudio.offer,
      error: fail,
    }),
  );
  subscription.add(
    input.microphone.enabled$.pipe(trackSubscription(gauges.openSubscriptions)).subscribe({
      next: (enabled) => {
        sendBack({ type: 'microphone.changed', enabled } satisfies SessionInternalEvent);
      },
      error: fail,
    }),
  );
  const chatInterface = input.chatInterface ?? 'service';
  let call: Subscription | undefined;
  // The request whose call runs and has not settled: told to onCallAbandoned if the session ends first.
  let unsettled: ConversationRequest | undefined;
  receive((event) => {
    if (event.type === 'play_audio.flush') {
      playAudio.flush();
      return;
    }
    call?.unsubscribe();
    call = undefined;
    unsettled = undefined;
    if (event.type === 'call.stop') return;
    const { request } = event;
    unsettled = request;
    call = callEvents$(input.calls, chatInterface, request).subscribe((callEvent) => {
      if (callEvent.type === 'call.settled') unsettled = undefined;
      sendBack(callEvent);
    });
  });
  return () => {
    call?.unsubscribe();
    if (unsettled !== undefined) {
      const { service } = unsettled;
      input.onCallAbandoned?.(service === 'chat' && chatInterface === 'action' ? 'converse' : service);
    }
    subscription.unsubscribe();
    playAudio.clear();
    holdings.releaseAll();
    gauges.liveSessions.decrement();
  };
});

/**
 * The session's way out: the transport's `send`, and whether it still works. A send that throws marks the
 * outbox broken (the socket is gone), which the machine reads to close instead of going on.
 */
class Outbox {
  #broken = false;
  constructor(
    private readonly transportSend: SessionInput['send'],
    private readonly transportBatch: SessionInput['batch'],
  ) {}

  /**
   * Runs `writes` as one write to the socket where the transport can (see SessionInput.batch); returns what
   * `writes` returns: whether every frame was sent.
   */
  batch(writes: () => boolean): boolean {
    if (this.transportBatch === undefined || this.#broken) return writes();
    let sent = false;
    this.transportBatch(() => {
      sent = writes();
    });
    return sent;
  }

  get broken(): boolean {
    return this.#broken;
  }

  /** False when the frame could not be sent (now or before). */
  send(frame: OutboundFrame): boolean {
    if (this.#broken) return false;
    try {
      this.transportSend(frame);
      return true;
    } catch {
      this.#broken = true;
      return false;
    }
  }
}

export const sessionMachine = setup({
  types: {
    input: {} as SessionInput,
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  actors: {
    streams: streamsLogic,
  },
  actions: {
    deliver: ({ context, self }, frame: OutboundFrame) => {
      if (!context.outbox.send(frame)) self.send({ type: 'session.sendFailed' });
    },
    /** Answers a request that is not queued with its error; a refused turn then ends (`refused`). */
    refuse: ({ context, self }, refusal: Refusal) => {
      const { outbox } = context;
      const sent = outbox.batch(
        () =>
          outbox.send(refusal.frame) &&
          (refusal.turn === undefined || outbox.send(turnEndFrame(refusal.turn, 'refused'))),
      );
      if (!sent) self.send({ type: 'session.sendFailed' });
    },
    /** A part of the running turn's answer: its pair goes out at once, its message id taken as it leaves. */
    deliverPart: ({ context, event, self }) => {
      if (event.type !== 'call.part') return;
      const pair = encodeAudioPair(context.input.messageIds.next(), event.part, event.request.turn);
      if (!context.outbox.send(pair)) self.send({ type: 'session.sendFailed' });
    },
    /** Sends the last call's answer (or failure). A broken outbox is seen by `answering` at once. */
    deliverOutcome: ({ context }) => {
      const { outcome, input, outbox } = context;
      if (outcome === undefined) return;
      outbox.batch(() => sendOutcome(outcome, input.messageIds, outbox));
    },
    /** `turn_end` cancelled for each stopped or dropped turn, in turn order, then the ack. */
    deliverCancelled: ({ context, self }) => {
      const { outbox, cancelledTurns } = context;
      const sent = outbox.batch(
        () =>
          cancelledTurns.every((turn) => outbox.send(turnEndFrame(turn, 'cancelled'))) &&
          outbox.send(ackFrame('cancel')),
      );
      if (!sent) self.send({ type: 'session.sendFailed' });
    },
    startCall: sendTo(
      'streams',
      ({ context }): StreamsEvent => ({
        type: 'call.start',
        request: runningRequest(context),
      }),
    ),
    /** Stops the running call: abandoned, a Converse goal cancelled; nothing of it is heard again. */
    stopCall: sendTo('streams', { type: 'call.stop' } satisfies StreamsEvent),
    flushPlayAudio: sendTo('streams', { type: 'play_audio.flush' } satisfies StreamsEvent),
    countTurn: assign({ turns: ({ context }) => context.turns + 1 }),
    /** The request's audio is taken from the budget (the guard checked that it fits). */
    holdAudio: ({ context, event }) => {
      if (event.type === 'request' && event.request.service === 'chat') {
        context.holdings.hold(event.request, event.request.audio.byteLength);
      }
    },
    /** Runs the request now when nothing runs or waits, else queues it. */
    admit: assign(({ context, event }) => {
      if (event.type !== 'request') return {};
      return context.running === undefined && context.waiting.length === 0 && context.outcome === undefined
        ? { running: event.request }
        : { waiting: [...context.waiting, event.request] };
    }),
    /** The running call ended: its audio goes back to the budget before the answer is sent. */
    releaseAudio: ({ context }) => {
      if (context.running !== undefined) context.holdings.release(context.running);
    },
    settle: assign(({ event }) => ({
      running: undefined,
      outcome: event.type === 'call.settled' ? event.outcome : undefined,
    })),
    startNext: assign(({ context }) => ({
      running: context.waiting[0],
      waiting: context.waiting.slice(1),
      outcome: undefined,
    })),
    clearOutcome: assign({ outcome: undefined }),
    /**
     * Cancel: the running turn (if the running call is one) and every queued turn are dropped, their audio
     * given back, their numbers kept for `turn_end`; a queued clear_history stays, in its place.
     */
    dropTurns: assign(({ context }) => {
      const { running, waiting, holdings } = context;
      const cancelledTurns: Turn[] = [];
      let stillRunning = running;
      if (running?.service === 'chat') {
        holdings.release(running);
        cancelledTurns.push(running.turn);
        stillRunning = undefined;
      }
      const kept: ConversationRequest[] = [];
      for (const request of waiting) {
        if (request.service === 'chat') {
          holdings.release(request);
          cancelledTurns.push(request.turn);
        } else {
          kept.push(request);
        }
      }
      return { running: stillRunning, waiting: kept, cancelledTurns };
    }),
    clearCancelled: assign({ cancelledTurns: [] }),
  },
  guards: {
    binaryTooLarge: ({ context, event }) =>
      event.type === 'ws.binary' && event.data.byteLength > context.input.limits.maxBinaryFrameBytes,
    microphoneDisabled: ({ context }) => !context.microphoneEnabled,
    microphoneChanged: ({ context, event }) =>
      event.type === 'microphone.changed' && event.enabled !== context.microphoneEnabled,
    sendBufferExceeded: ({ context, event }) =>
      event.type === 'ws.buffered' && event.bytes > context.input.limits.maxSendBufferBytes,
    /** The running call and `maxWaitingCalls` waiting ones are taken. */
    queueFull: ({ context }) =>
      (context.running === undefined ? 0 : 1) + context.waiting.length >=
      1 + context.input.limits.maxWaitingCalls,
    audioOverBudget: ({ context, event }) =>
      event.type === 'request' && !context.holdings.fits(audioBytes(event.request)),
    hasWaiting: ({ context }) => context.waiting.length > 0,
    outboxBroken: ({ context }) => context.outbox.broken,
    /** The event comes from the running call (a stopped call's events are never heard; this makes it plain). */
    fromRunningCall: ({ context, event }) =>
      (event.type === 'call.part' && event.request === context.running) ||
      (event.type === 'call.settled' && event.outcome.request === context.running),
    runningIsTurn: ({ context }) => context.running?.service === 'chat',
    /** One more turn would pass the highest turn number. */
    turnsExhausted: ({ context }) => context.turns >= MAX_TURN,
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({
    input,
    outbox: new Outbox(input.send, input.batch),
    holdings: new BudgetHoldings(input.audioBudget),
    microphoneEnabled: input.microphone.isEnabled(),
    running: undefined,
    waiting: [],
    outcome: undefined,
    turns: 0,
    cancelledTurns: [],
  }),
  initial: 'open',
  states: {
    open: {
      entry: {
        type: 'deliver',
        params: ({ context }) =>
          textFrame({
            type: 'state',
            emotion: INITIAL_EMOTION,
            text: INITIAL_TEXT,
            microphone: { enabled: context.microphoneEnabled },
          }),
      },
      invoke: {
        id: 'streams',
        src: 'streams',
        input: ({ context }): StreamsInput => ({
          session: context.input,
          outbox: context.outbox,
          holdings: context.holdings,
        }),
      },
      initial: 'idle',
      states: {
        /** Nothing runs: a request starts its call at once; a cancel has nothing to stop. */
        idle: {
          on: {
            request: [
              {
                guard: 'audioOverBudget',
                actions: {
                  type: 'refuse',
                  params: ({ context, event }) => busyRefusal(context, event.request, 'audio'),
                },
              },
              { target: 'calling', actions: ['holdAudio', 'admit'] },
            ],
            cancel: { actions: 'deliverCancelled' },
          },
        },
        /**
         * One call runs; requests queue behind it up to the limit, beyond it they are answered busy. A
         * streamed turn's parts go out as they arrive. A cancel stops a running turn (`cancelled`); a running
         * clear_history goes on, only the queued turns are dropped.
         */
        calling: {
          entry: 'startCall',
          on: {
            request: [
              {
                guard: 'queueFull',
                actions: {
                  type: 'refuse',
                  params: ({ context, event }) => busyRefusal(context, event.request, 'queue'),
                },
              },
              {
                guard: 'audioOverBudget',
                actions: {
                  type: 'refuse',
                  params: ({ context, event }) => busyRefusal(context, event.request, 'audio'),
                },
              },
              { actions: ['holdAudio', 'admit'] },
            ],
            'call.part': { guard: 'fromRunningCall', actions: 'deliverPart' },
            'call.settled': {
              guard: 'fromRunningCall',
              target: 'answering',
              actions: ['releaseAudio', 'settle'],
            },
            cancel: [
              { guard: 'runningIsTurn', target: 'cancelled', actions: ['stopCall', 'dropTurns'] },
              { actions: ['dropTurns', 'deliverCancelled', 'clearCancelled'] },
            ],
          },
        },
        /**
         * The running turn was stopped: `turn_end` cancelled for it and each dropped queued turn, the ack;
         * then the next waiting call (a clear_history that was queued) starts, or the session is idle.
         */
        cancelled: {
          entry: ['deliverCancelled', 'clearCancelled'],
          always: [
            { guard: 'outboxBroken', target: '#session.closed' },
            { guard: 'hasWaiting', target: 'calling', actions: 'startNext' },
            { target: 'idle' },
          ],
        },
        /**
         * The answer (or the failure) goes out; then the next waiting call starts, or the session is idle.
         * When the socket turned out to be gone, it closes instead: no waiting call is started for nobody.
         */
        answering: {
          entry: 'deliverOutcome',
          always: [
            { guard: 'outboxBroken', target: '#session.closed' },
            { guard: 'hasWaiting', target: 'calling', actions: 'startNext' },
            { target: 'idle', actions: 'clearOutcome' },
          ],
        },
      },
      on: {
        'ws.binary': [
          {
            guard: 'binaryTooLarge',
            target: 'closed',
            actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.binaryFrameTooLarge) },
          },
          {
            guard: 'turnsExhausted',
            target: 'closed',
            actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.internalError) },
          },
          // Checked on arrival: audio recorded while the microphone was enabled is still answered.
          {
            guard: 'microphoneDisabled',
            actions: [
              'countTurn',
              {
                type: 'refuse',
                params: ({ context }): Refusal => ({
                  frame: errorFrame('microphone_disabled', undefined, context.turns),
                  turn: context.turns,
                }),
              },
            ],
          },
          {
            actions: [
              'countTurn',
              raise(({ context, event }) => ({
                type: 'request' as const,
                request: { service: 'chat' as const, audio: event.data, turn: context.turns },
              })),
            ],
          },
        ],
        'ws.text': {
          actions: enqueueActions(({ context, event, enqueue }) => {
            const parsed = parseClientText(event.data, context.input.limits.maxTextFrameBytes);
            if (!parsed.ok) {
              enqueue({ type: 'deliver', params: errorFrame(parsed.code, parsed.message) });
            } else if (parsed.command.service === 'cancel') {
              // Not queued: handled at once by the state the session is in.
              enqueue.raise({ type: 'cancel' });
            } else {
              enqueue.raise({ type: 'request', request: { service: parsed.command.service } });
            }
          }),
        },
        'microphone.changed': {
          guard: 'microphoneChanged',
          actions: [
            assign({ microphoneEnabled: ({ event }) => event.enabled }),
            {
              type: 'deliver',
              params: ({ event }) => textFrame({ type: 'microphone', enabled: event.enabled }),
            },
          ],
        },
        'ws.buffered': [
          {
            guard: 'sendBufferExceeded',
            target: 'closed',
            actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.sendBufferExceeded) },
          },
          { actions: 'flushPlayAudio' },
        ],
        'server.shutdown': {
          target: 'closed',
          actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.goingAway) },
        },
        'ws.closed': { target: 'closed' },
        'session.sendFailed': { target: 'closed' },
        'session.streamFailed': { target: 'failed' },
      },
    },
    /** One of the session's own streams failed: tell the client, then end. */
    failed: {
      always: {
        target: 'closed',
        actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.internalError) },
      },
    },
    closed: { type: 'final' },
  },
});

/** A request that is not queued: its error frame, and for a turn its number (then `turn_end` refused). */
interface Refusal {
  readonly frame: OutboundFrame;
  readonly turn: Turn | undefined;
}

/** The `busy` error for a request that is not queued (with its turn, for a turn). */
function busyRefusal(
  context: SessionContext,
  request: ConversationRequest,
  cause: 'queue' | 'audio',
): Refusal {
  const { limits, audioBudget } = context.input;
  const message = busyMessage(
    request.service,
    cause === 'queue'
      ? { kind: 'queue', maxWaitingCalls: limits.maxWaitingCalls }
      : { kind: 'audio', maxQueuedAudioBytes: audioBudget.limit },
  );
  const turn = request.service === 'chat' ? request.turn : undefined;
  return { frame: errorFrame('busy', message, turn), turn };
}

export type SessionActor = ActorRefFrom<typeof sessionMachine>;

/** Starts a session; its initial `state` frame is sent before this returns. */
export const startSessionActor = (input: SessionInput): SessionActor =>
  createActor(sessionMachine, { input }).start();
