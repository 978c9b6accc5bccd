import { assign, setup, type AnyActorRef } from 'xstate';
import { type OutboundFrame, MAX_TURN, type TurnNumber as Turn } from '../../protocol/ws/index.js';
import type { Refusal } from './session-outbox.js';
import type { SessionResources } from './session-resources.js';
import type {
  ConversationRequest,
  SessionContext,
  SessionEvent,
  SessionMachineInput,
} from './session-types.js';

/**
 * The session chart's named actions and guards (the chart itself is session-machine.ts, the frames of its
 * refusals session-refusals.ts). Guards and `assign`s read only the snapshot and the event. The other
 * actions are the effects: each reaches the session's live resources, bound to its actor by session.ts,
 * and nothing else (the upload chart's effects reach them the same way).
 */

/**
 * Which live resources a chart's effects act on, bound to its actor by session.ts: so the snapshots hold
 * none of them.
 */
export const resourceBinding = <Resources extends object>() => {
  const bound = new WeakMap<AnyActorRef, Resources>();
  return {
    bind: (actor: AnyActorRef, resources: Resources): void => {
      bound.set(actor, resources);
    },
    of: (self: AnyActorRef): Resources => {
      const resources = bound.get(self);
      if (resources === undefined) throw new Error('a session actor ran an effect without its resources');
      return resources;
    },
  };
};

export const sessionBinding = resourceBinding<SessionResources>();
const resourcesOf = sessionBinding.of;

/** What becomes of an utterance, decided in this order. */
type UtteranceVerdict =
  | 'tooLarge'
  | 'turnsExhausted'
  | 'tooShort'
  | 'microphoneDisabled'
  | 'queueFull'
  | 'overBudget'
  | 'admitted';

/** No room for one more request: one runs and `maxWaitingCalls` wait (an ended utterance asks too). */
export const queueFull = (context: SessionContext): boolean =>
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

/** What becomes of an `utterance_start`, decided in this order: one utterance is open at a time. */
type StartVerdict = 'alreadyOpen' | 'turnsExhausted' | 'microphoneDisabled' | 'queueFull' | 'admitted';

const startVerdict = (context: SessionContext, event: SessionEvent): StartVerdict => {
  if (event.type === 'utterance_start' && event.openTurn !== undefined) return 'alreadyOpen';
  if (context.turns >= MAX_TURN) return 'turnsExhausted';
  if (!context.microphoneEnabled) return 'microphoneDisabled';
  if (queueFull(context)) return 'queueFull';
  return 'admitted';
};

/** The request an event asks for; an utterance is turn `turn`, a streamed one names its own. */
export const requestOf = (event: SessionEvent, turn: Turn): ConversationRequest => {
  switch (event.type) {
    case 'utterance':
      return { service: 'chat', turn, audioBytes: event.audio.byteLength, streamed: false };
    case 'utterance.ended':
      return { service: 'chat', turn: event.turn, audioBytes: event.audioBytes, streamed: true };
    case 'utterance_start':
      return { service: 'chat', turn, audioBytes: 0, streamed: true };
    default:
      return { service: 'clear_history' };
  }
};

export const sessionSetup = setup({
  types: {
    input: {} as SessionMachineInput,
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  guards: {
    startIs: ({ context, event }, verdict: StartVerdict) => startVerdict(context, event) === verdict,
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
      // An admitted whole utterance is the next turn; a streamed one was counted when it opened.
      const request = requestOf(event, context.turns + 1);
      const turns = event.type === 'utterance' ? context.turns + 1 : context.turns;
      const queued =
        context.running === undefined && context.waiting.length === 0
          ? { running: request, turns }
          : { waiting: [...context.waiting, request], turns };
      // A queued request ends the run of refusals one `busy` spoke for; written only when it changes.
      return context.busyTold ? { ...queued, busyTold: false } : queued;
    }),
    countTurn: assign({ turns: ({ context }) => context.turns + 1 }),
    /** A streamed utterance opens as the next turn; from now on the session's binary frames are parts. */
    openUtterance: assign(({ context }) => ({ turns: context.turns + 1, streams: true })),
    /** Cancel, the upload's share: its abandoned turn ends `cancelled` with the calls' dropped turns. */
    noteCancelledUtterance: assign({
      cancelledTurns: ({ context, event }) =>
        event.type === 'utterance.cancelled'
          ? [...context.cancelledTurns, event.turn]
          : context.cancelledTurns,
    }),
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
      // An utterance abandoned by the same cancel is already here (the upload hears a cancel first).
      const cancelledTurns: Turn[] = [...context.cancelledTurns];
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
      return { running: stillRunning, waiting: kept, cancelledTurns: cancelledTurns.sort((a, b) => a - b) };
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
    /** The admitted `utterance_start` opens the upload as turn `context.turns`. */
    openUpload: ({ context, event, self }) => {
      if (event.type === 'utterance_start') resourcesOf(self).openUpload(context.turns, event.at);
    },
    /** The microphone was disabled: the upload abandons its open utterance, if one is open. */
    muteUpload: ({ event, self }) => {
      if (event.type === 'microphone.changed' && !event.enabled) resourcesOf(self).muteUpload();
    },
    reportHeard: ({ event, self }) => {
      if (event.type === 'heard') resourcesOf(self).reportHeard(event);
    },
    flushPlayAudio: ({ self }) => {
      resourcesOf(self).flushPlayAudio();
    },
  },
});
