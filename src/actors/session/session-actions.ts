import { assign, setup, type AnyActorRef } from 'xstate';
import { errorFrame, type OutboundFrame } from '../../protocol/ws-frames.js';
import { MAX_TURN, type Turn } from '../../protocol/ws-protocol.js';
import { busyRefusal, type Refusal } from './session-frames.js';
import type { SessionResources } from './session-resources.js';
import type {
  ConversationRequest,
  SessionContext,
  SessionEvent,
  SessionMachineInput,
} from './session-types.js';

/**
 * The session chart's named actions and guards (the chart itself is session-machine.ts). Guards and
 * `assign`s read only the snapshot and the event. The other actions are the effects: each reaches the
 * session's live resources, registered for its actor by session.ts, and nothing else.
 */

const resources = new WeakMap<AnyActorRef, SessionResources>();

/** Binds an actor to what its effects act on; session.ts does it before the actor starts. */
export const bindResources = (actor: AnyActorRef, held: SessionResources): void => {
  resources.set(actor, held);
};

const resourcesOf = (self: AnyActorRef): SessionResources => {
  const held = resources.get(self);
  if (held === undefined) throw new Error('a session actor ran an effect without its resources');
  return held;
};

/** What becomes of an utterance, decided in this order. */
type UtteranceVerdict =
  | 'tooLarge'
  | 'turnsExhausted'
  | 'tooShort'
  | 'microphoneDisabled'
  | 'queueFull'
  | 'overBudget'
  | 'admitted';

const queueFull = (context: SessionContext): boolean =>
  (context.running === undefined ? 0 : 1) + context.waiting.length >= 1 + context.limits.maxWaitingCalls;

const utteranceVerdict = (context: SessionContext, event: SessionEvent): UtteranceVerdict | undefined => {
  if (event.type !== 'utterance') return undefined;
  const bytes = event.audio.byteLength;
  const { limits } = context;
  if (bytes > limits.maxBinaryFrameBytes) return 'tooLarge';
  if (context.turns >= MAX_TURN) return 'turnsExhausted';
  if (bytes < limits.minBinaryFrameBytes) return 'tooShort';
  if (!context.microphoneEnabled) return 'microphoneDisabled';
  if (queueFull(context)) return 'queueFull';
  if (!event.fits) return 'overBudget';
  return 'admitted';
};

/** The request an event asks for; an utterance is turn `turn`. */
const requestOf = (event: SessionEvent, turn: Turn): ConversationRequest =>
  event.type === 'utterance'
    ? { service: 'chat', turn, audioBytes: event.audio.byteLength }
    : { service: 'clear_history' };

const turnRefusal = (turn: Turn, frame: OutboundFrame): Refusal => ({ frame, turn });

export const sessionSetup = setup({
  types: {
    input: {} as SessionMachineInput,
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  guards: {
    utteranceIs: ({ context, event }, verdict: UtteranceVerdict) =>
      utteranceVerdict(context, event) === verdict,
    queueFull: ({ context }) => queueFull(context),
    microphoneChanged: ({ context, event }) =>
      event.type === 'microphone.changed' && event.enabled !== context.microphoneEnabled,
    sendBufferExceeded: ({ context, event }) =>
      event.type === 'ws.buffered' && event.bytes > context.limits.maxSendBufferBytes,
    hasWaiting: ({ context }) => context.waiting.length > 0,
    runningIsTurn: ({ context }) => context.running?.service === 'chat',
  },
  actions: {
    // The state: pure assigns.
    /** The request runs now when nothing runs or waits, else it waits; a refused turn is counted too. */
    admit: assign(({ context, event }) => {
      // An admitted utterance is the next turn.
      const request = requestOf(event, context.turns + 1);
      const turns = request.service === 'chat' ? request.turn : context.turns;
      const queued =
        context.running === undefined && context.waiting.length === 0
          ? { running: request, turns }
          : { waiting: [...context.waiting, request], turns };
      // A queued request ends the run of refusals one `busy` spoke for; written only when it changes.
      return context.busyTold ? { ...queued, busyTold: false } : queued;
    }),
    countTurn: assign({ turns: ({ context }) => context.turns + 1 }),
    noteBusyTold: assign({
      busyTold: ({ context, event }) => context.busyTold || event.type === 'utterance',
    }),
    settle: assign({ running: undefined }),
    startNext: assign(({ context }) => ({
      running: context.waiting[0],
      waiting: context.waiting.slice(1),
    })),
    /**
     * Cancel: the running turn (if the running call is one) and every queued turn are dropped, their
     * numbers kept for `turn_end`; a queued clear_history stays, in its place.
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
    setMicrophone: assign({
      microphoneEnabled: ({ context, event }) =>
        event.type === 'microphone.changed' ? event.enabled : context.microphoneEnabled,
    }),

    // The effects, on the session's resources.
    deliver: ({ self }, frame: OutboundFrame) => {
      resourcesOf(self).deliver(frame);
    },
    refuse: ({ self }, refusal: Refusal) => {
      resourcesOf(self).refuse(refusal);
    },
    /** The admitted turn's audio is kept for its call and taken from the budget. */
    holdAudio: ({ context, self, event }) => {
      if (event.type === 'utterance') resourcesOf(self).holdAudio(context.turns, event.audio);
    },
    startCall: ({ context, self }) => {
      if (context.running !== undefined) resourcesOf(self).startCall(context.running);
    },
    stopCall: ({ self }) => {
      resourcesOf(self).stopCall();
    },
    deliverPart: ({ context, event, self }) => {
      if (event.type === 'call.part' && context.running?.service === 'chat') {
        resourcesOf(self).deliverPart(context.running.turn, event.part);
      }
    },
    /** The running call ended: its audio goes back to the budget before its answer is sent. */
    deliverOutcome: ({ context, event, self }) => {
      if (event.type !== 'call.settled' || context.running === undefined) return;
      const held = resourcesOf(self);
      held.releaseAudio(context.running);
      held.deliverOutcome(context.running, event.outcome);
    },
    /** Cancel, the effect: the audio of the running turn and of every queued turn goes back to the budget. */
    releaseCancelledAudio: ({ context, self }) => {
      const held = resourcesOf(self);
      held.releaseAudio(context.running);
      for (const request of context.waiting) held.releaseAudio(request);
    },
    deliverCancelled: ({ context, self }) => {
      resourcesOf(self).deliverCancelled(context.cancelledTurns);
    },
    flushPlayAudio: ({ self }) => {
      resourcesOf(self).flushPlayAudio();
    },
  },
});

/** The refusals' frames, as the chart's `refuse` params; a refused utterance was counted first. */
export const refusals = {
  busy:
    (cause: 'queue' | 'audio') =>
    ({ context, event }: { context: SessionContext; event: SessionEvent }): Refusal =>
      busyRefusal(context, requestOf(event, context.turns), cause),
  tooShort: ({ context, event }: { context: SessionContext; event: SessionEvent }): Refusal =>
    turnRefusal(
      context.turns,
      errorFrame(
        'audio_too_short',
        `audio frame of ${event.type === 'utterance' ? event.audio.byteLength : 0} bytes is shorter than the minimum of ${context.limits.minBinaryFrameBytes}`,
        context.turns,
      ),
    ),
  microphoneDisabled: ({ context }: { context: SessionContext }): Refusal =>
    turnRefusal(context.turns, errorFrame('microphone_disabled', undefined, context.turns)),
};
