import { catchError, map, of, Subscription, type Observable } from 'rxjs';
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
  type AudioPairFrame,
  type OutboundFrame,
} from '../protocol/ws-frames.js';
import {
  busyMessage,
  CLOSE_CODES,
  INITIAL_EMOTION,
  INITIAL_TEXT,
  type ConversationLimits,
  type ErrorCode,
} from '../protocol/ws-protocol.js';
import type { RosCalls } from '../ros/ros-calls.js';
import {
  RosCallFailedError,
  RosServiceUnavailableError,
  RosTimeoutError,
  type RosResponse,
} from '../ros/ros-port.js';
import { rosCall$ } from '../streams/ros-call.js';
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
 *        (any open state) ──close, 1001/1008/1009/1011, or the socket closed──▶ closed
 *
 * A kiosk's utterance (`ws.binary`) or command (`ws.text`) becomes a `request`. One call runs at a time
 * (`calling` starts it); up to `maxWaitingCalls` wait behind it in arrival order, and beyond that, or when
 * the audio would not fit in the process-wide budget, the request is answered `busy` at once. Closing stops
 * the session's streams child and with it the running call: it is abandoned and its late answer dropped.
 * Outbound frames leave through the injected `send`; the transport only translates.
 */

/** A ROS call a session asks for. */
export type ConversationRequest =
  | { readonly service: 'chat'; readonly audio: Uint8Array }
  | { readonly service: 'clear_history' };

/** What a session uses of the process; shared by all sessions. */
export interface SessionDeps {
  readonly calls: Pick<RosCalls, 'call'>;
  readonly messageIds: MessageIdAllocator;
  readonly playAudioPairs$: Observable<AudioPairFrame>;
  readonly microphone: MicrophoneView;
  readonly limits: ConversationLimits;
  readonly gauges: ConversationGauges;
  /** Audio bytes held by the chat calls of all sessions, running or waiting (`maxQueuedAudioBytes`). */
  readonly audioBudget: ByteBudget;
}

export interface SessionInput extends SessionDeps {
  /**
   * Writes one outbound item to this session's socket: a text frame, an audio pair (both frames in one corked
   * write), or a close. Throwing ends the session.
   */
  readonly send: (frame: OutboundFrame) => void;
  /** Told when the session stops with a call still unanswered; its late answer will be dropped. */
  readonly onCallAbandoned?: (service: ConversationRequest['service']) => void;
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

/** What the running call ended with; the `answering` state turns it into a frame. */
type CallOutcome =
  | { readonly kind: 'answered'; readonly service: 'chat'; readonly response: RosResponse<'chat'> }
  | { readonly kind: 'answered'; readonly service: 'clear_history' }
  | { readonly kind: 'failed'; readonly service: ConversationRequest['service']; readonly error: unknown };

type SessionInternalEvent =
  | { readonly type: 'request'; readonly request: ConversationRequest }
  | { readonly type: 'call.settled'; readonly outcome: CallOutcome }
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
}

// ---------------------------------------------------------------------------------------------------------
// What a call's outcome and a refusal become on the wire

const failureCode = (service: ConversationRequest['service'], error: unknown): ErrorCode => {
  if (error instanceof RosTimeoutError) return `${service}_timeout`;
  if (error instanceof RosServiceUnavailableError) return `${service}_unavailable`;
  return `${service}_failed`;
};

// Port errors carry operator-readable text (service name, time-out); anything else stays generic.
const failureMessage = (error: unknown): string | undefined =>
  error instanceof RosTimeoutError ||
  error instanceof RosServiceUnavailableError ||
  error instanceof RosCallFailedError
    ? error.message
    : undefined;

/** The answer pair takes its message id when it is sent, so ids increase in the order pairs leave. */
const outcomeFrame = (outcome: CallOutcome, messageIds: MessageIdAllocator): OutboundFrame => {
  if (outcome.kind === 'failed') {
    return errorFrame(failureCode(outcome.service, outcome.error), failureMessage(outcome.error));
  }
  return outcome.service === 'chat'
    ? encodeAudioPair(messageIds.next(), outcome.response)
    : ackFrame('clear_history');
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

/** The running call's stream, turned into the one `call.settled` event it ends with. */
const callSettled$ = (
  calls: Pick<RosCalls, 'call'>,
  request: ConversationRequest,
  onCallAbandoned: SessionInput['onCallAbandoned'],
): Observable<SessionInternalEvent> => {
  const onAbandoned =
    onCallAbandoned === undefined
      ? undefined
      : () => {
          onCallAbandoned(request.service);
        };
  const settled = (outcome: CallOutcome): SessionInternalEvent => ({ type: 'call.settled', outcome });
  const failed = (error: unknown) => of(settled({ kind: 'failed', service: request.service, error }));
  if (request.service === 'chat') {
    return rosCall$(calls, 'chat', { audio: request.audio }, onAbandoned).pipe(
      map((response) => settled({ kind: 'answered', service: 'chat', response })),
      catchError(failed),
    );
  }
  return rosCall$(calls, 'clear_history', {}, onAbandoned).pipe(
    map(() => settled({ kind: 'answered', service: 'clear_history' })),
    catchError(failed),
  );
};

interface StreamsInput {
  readonly session: SessionInput;
  readonly outbox: Outbox;
  readonly holdings: BudgetHoldings<ConversationRequest>;
}

/** What the machine tells its streams child: run this request's call (`calling` is entered). */
interface StartCallEvent {
  readonly type: 'call.start';
  readonly request: ConversationRequest;
}

/**
 * Every stream of an open session in one child actor: the running call (started when the machine enters
 * `calling`), the /play_audio pairs and the microphone changes. One long-lived child rather than one per
 * stream or per call: each XState actor costs memory in every idle session, and spawning one per call was
 * most of a chat round trip's machine time (docs/performance.md). A pair needs no decision of the machine:
 * it goes straight to the transport. The session counts as live while this child runs, and its end gives
 * back the session's audio budget and abandons a running call: a stopped actor runs no exit actions, only
 * its children's teardowns, so this is where a session's end is certain to be seen.
 */
const streamsLogic = fromCallback<StartCallEvent, StreamsInput>(({ input: streams, sendBack, receive }) => {
  const { session: input, outbox, holdings } = streams;
  const { gauges } = input;
  gauges.liveSessions.increment();
  const fail = (error: unknown) => {
    sendBack({ type: 'session.streamFailed', error } satisfies SessionInternalEvent);
  };
  const subscription = new Subscription();
  subscription.add(
    input.playAudioPairs$.pipe(trackSubscription(gauges.openSubscriptions)).subscribe({
      next: (pair) => {
        if (!outbox.send(pair)) sendBack({ type: 'session.sendFailed' } satisfies SessionInternalEvent);
      },
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
  let call: Subscription | undefined;
  receive(({ request }) => {
    call?.unsubscribe();
    call = callSettled$(input.calls, request, input.onCallAbandoned).subscribe((event) => {
      sendBack(event);
    });
  });
  return () => {
    call?.unsubscribe();
    subscription.unsubscribe();
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
  constructor(private readonly transportSend: SessionInput['send']) {}

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
    /** Sends the last call's answer (or failure). A broken outbox is seen by `answering` at once. */
    deliverOutcome: ({ context }) => {
      const { outcome, input, outbox } = context;
      if (outcome !== undefined) outbox.send(outcomeFrame(outcome, input.messageIds));
    },
    startCall: sendTo(
      'streams',
      ({ context }): StartCallEvent => ({
        type: 'call.start',
        request: runningRequest(context),
      }),
    ),
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
  },
}).createMachine({
  id: 'session',
  context: ({ input }) => ({
    input,
    outbox: new Outbox(input.send),
    holdings: new BudgetHoldings(input.audioBudget),
    microphoneEnabled: input.microphone.isEnabled(),
    running: undefined,
    waiting: [],
    outcome: undefined,
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
        /** Nothing runs: a request starts its call at once. */
        idle: {
          on: {
            request: [
              {
                guard: 'audioOverBudget',
                actions: {
                  type: 'deliver',
                  params: ({ context, event }) => busyFrame(context, event.request, 'audio'),
                },
              },
              { target: 'calling', actions: ['holdAudio', 'admit'] },
            ],
          },
        },
        /** One call runs; requests queue behind it up to the limit, beyond it they are answered busy. */
        calling: {
          entry: 'startCall',
          on: {
            request: [
              {
                guard: 'queueFull',
                actions: {
                  type: 'deliver',
                  params: ({ context, event }) => busyFrame(context, event.request, 'queue'),
                },
              },
              {
                guard: 'audioOverBudget',
                actions: {
                  type: 'deliver',
                  params: ({ context, event }) => busyFrame(context, event.request, 'audio'),
                },
              },
              { actions: ['holdAudio', 'admit'] },
            ],
            'call.settled': { target: 'answering', actions: ['releaseAudio', 'settle'] },
          },
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
          // Checked on arrival: audio recorded while the microphone was enabled is still answered.
          {
            guard: 'microphoneDisabled',
            actions: { type: 'deliver', params: errorFrame('microphone_disabled') },
          },
          {
            actions: raise(({ event }) => ({
              type: 'request' as const,
              request: { service: 'chat' as const, audio: event.data },
            })),
          },
        ],
        'ws.text': {
          actions: enqueueActions(({ context, event, enqueue }) => {
            const parsed = parseClientText(event.data, context.input.limits.maxTextFrameBytes);
            if (parsed.ok) {
              enqueue.raise({ type: 'request', request: { service: parsed.command.service } });
            } else {
              enqueue({ type: 'deliver', params: errorFrame(parsed.code, parsed.message) });
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
        'ws.buffered': {
          guard: 'sendBufferExceeded',
          target: 'closed',
          actions: { type: 'deliver', params: closeFrame(CLOSE_CODES.sendBufferExceeded) },
        },
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

function busyFrame(
  context: SessionContext,
  request: ConversationRequest,
  cause: 'queue' | 'audio',
): OutboundFrame {
  const { limits, audioBudget } = context.input;
  return errorFrame(
    'busy',
    busyMessage(
      request.service,
      cause === 'queue'
        ? { kind: 'queue', maxWaitingCalls: limits.maxWaitingCalls }
        : { kind: 'audio', maxQueuedAudioBytes: audioBudget.limit },
    ),
  );
}

export type SessionActor = ActorRefFrom<typeof sessionMachine>;

/** Starts a session; its initial `state` frame is sent before this returns. */
export const startSessionActor = (input: SessionInput): SessionActor =>
  createActor(sessionMachine, { input }).start();
