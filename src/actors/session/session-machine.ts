import { assign, createActor, enqueueActions, raise, sendTo, setup, type ActorRefFrom } from 'xstate';
import {
  ackFrame,
  closeFrame,
  encodeAudioPair,
  errorFrame,
  parseClientText,
  textFrame,
  turnEndFrame,
  type OutboundFrame,
} from '../../protocol/ws-frames.js';
import {
  CLOSE_CODES,
  INITIAL_EMOTION,
  INITIAL_TEXT,
  MAX_TURN,
  type Turn,
} from '../../protocol/ws-protocol.js';
import { BudgetHoldings } from '../../streams/resource-gauges.js';
import { sendOutcome, runningRequest, audioBytes, busyRefusal, type Refusal } from './session-frames.js';
import { Outbox } from './session-outbox.js';
import { streamsLogic, type StreamsInput, type StreamsEvent } from './session-streams.js';
import {
  type ConversationRequest,
  type SessionInput,
  type SessionEvent,
  type SessionContext,
} from './session-types.js';

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
 * translates. Its vocabulary is in session-types.ts, what outcomes become on the wire in session-frames.ts,
 * its child (the running call and /play_audio) in session-streams.ts, its way out in session-outbox.ts.
 */
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
          (refusal.frame === undefined || outbox.send(refusal.frame)) &&
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
    /**
     * Sends how the call ended (`answering` is entered by `call.settled`, its entry reads that event). A
     * broken outbox is seen by `answering` at once.
     */
    deliverOutcome: ({ context, event }) => {
      if (event.type !== 'call.settled') return;
      const { input, outbox } = context;
      outbox.batch(() => sendOutcome(event.outcome, input.messageIds, outbox));
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
    noteBusyTold: assign({
      busyTold: ({ context, event }) =>
        context.busyTold || (event.type === 'request' && event.request.service === 'chat'),
    }),
    /** The request's audio is taken from the budget (the guard checked that it fits). */
    holdAudio: ({ context, event }) => {
      if (event.type === 'request' && event.request.service === 'chat') {
        context.holdings.hold(event.request, event.request.audio.byteLength);
      }
    },
    /** Runs the request now when nothing runs or waits, else queues it. */
    /** A queued request also ends the run of refusals one `busy` spoke for. */
    admit: assign(({ context, event }) => {
      if (event.type !== 'request') return {};
      const queued =
        context.running === undefined && context.waiting.length === 0
          ? { running: event.request }
          : { waiting: [...context.waiting, event.request] };
      // Written only when it changes: writing it on every turn cost the chart ~15 µs a turn (measured).
      return context.busyTold ? { ...queued, busyTold: false } : queued;
    }),
    /** The running call ended: its audio goes back to the budget before the answer is sent. */
    releaseAudio: ({ context }) => {
      if (context.running !== undefined) context.holdings.release(context.running);
    },
    settle: assign({ running: undefined }),
    startNext: assign(({ context }) => ({
      running: context.waiting[0],
      waiting: context.waiting.slice(1),
    })),
    /** Cancel, the effect: the audio of the running turn and of every queued turn goes back to the budget. */
    releaseCancelledAudio: ({ context }) => {
      const { running, waiting, holdings } = context;
      if (running?.service === 'chat') holdings.release(running);
      for (const request of waiting) if (request.service === 'chat') holdings.release(request);
    },
    /**
     * Cancel, the state (pure): the running turn (if the running call is one) and every queued turn are
     * dropped, their numbers kept for `turn_end`; a queued clear_history stays, in its place.
     */
    dropTurns: assign(({ context }) => {
      const { running, waiting } = context;
      const cancelledTurns: Turn[] = [];
      let stillRunning = running;
      if (running?.service === 'chat') {
        cancelledTurns.push(running.turn);
        stillRunning = undefined;
      }
      const kept: ConversationRequest[] = [];
      for (const request of waiting) {
        if (request.service === 'chat') cancelledTurns.push(request.turn);
        else kept.push(request);
      }
      return { running: stillRunning, waiting: kept, cancelledTurns };
    }),
    clearCancelled: assign({ cancelledTurns: [] }),
  },
  guards: {
    binaryTooLarge: ({ context, event }) =>
      event.type === 'ws.binary' && event.data.byteLength > context.input.limits.maxBinaryFrameBytes,
    binaryTooShort: ({ context, event }) =>
      event.type === 'ws.binary' && event.data.byteLength < context.input.limits.minBinaryFrameBytes,
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
    outbox: new Outbox(input.send, input.batch, input.bufferedBytes, input.limits.maxSendBufferBytes),
    holdings: new BudgetHoldings(input.audioBudget),
    microphoneEnabled: input.microphone.isEnabled(),
    running: undefined,
    waiting: [],
    turns: 0,
    cancelledTurns: [],
    busyTold: false,
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
                actions: [
                  {
                    type: 'refuse',
                    params: ({ context, event }) => busyRefusal(context, event.request, 'audio'),
                  },
                  'noteBusyTold',
                ],
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
                actions: [
                  {
                    type: 'refuse',
                    params: ({ context, event }) => busyRefusal(context, event.request, 'queue'),
                  },
                  'noteBusyTold',
                ],
              },
              {
                guard: 'audioOverBudget',
                actions: [
                  {
                    type: 'refuse',
                    params: ({ context, event }) => busyRefusal(context, event.request, 'audio'),
                  },
                  'noteBusyTold',
                ],
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
              {
                guard: 'runningIsTurn',
                target: 'cancelled',
                actions: ['stopCall', 'releaseCancelledAudio', 'dropTurns'],
              },
              { actions: ['releaseCancelledAudio', 'dropTurns', 'deliverCancelled', 'clearCancelled'] },
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
            { target: 'idle' },
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
          // No utterance fits in fewer bytes: refused before it costs a call.
          {
            guard: 'binaryTooShort',
            actions: [
              'countTurn',
              {
                type: 'refuse',
                params: ({ context, event }): Refusal => ({
                  frame: errorFrame(
                    'audio_too_short',
                    `audio frame of ${event.data.byteLength} bytes is shorter than the minimum of ${context.input.limits.minBinaryFrameBytes}`,
                    context.turns,
                  ),
                  turn: context.turns,
                }),
              },
            ],
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

export type SessionActor = ActorRefFrom<typeof sessionMachine>;

/** Starts a session; its initial `state` frame is sent before this returns. */
export const startSessionActor = (input: SessionInput): SessionActor =>
  createActor(sessionMachine, { input }).start();
