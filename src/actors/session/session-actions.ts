import { assign, raise, setup, type AnyActorRef } from 'xstate';
import type { OutboundFrame } from '../../protocol/ws-frames.js';
import { MAX_TURN, PCM_BYTES_PER_SECOND, type Turn } from '../../protocol/ws-protocol.js';
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
 * refusals session-refusals.ts). Guards and `assign`s read only the snapshot and the event. The other actions are the effects: each reaches the
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

/** What becomes of an `utterance_start`, decided in this order (an open utterance is the upload region's). */
type StartVerdict = 'turnsExhausted' | 'microphoneDisabled' | 'queueFull' | 'admitted';

const startVerdict = (context: SessionContext): StartVerdict => {
  if (context.turns >= MAX_TURN) return 'turnsExhausted';
  if (!context.microphoneEnabled) return 'microphoneDisabled';
  if (queueFull(context)) return 'queueFull';
  return 'admitted';
};

/** What becomes of a part of the open utterance, decided in this order. */
type PartVerdict =
  | 'invalid'
  | 'outOfOrder'
  | 'partTooLarge'
  | 'utteranceTooLarge'
  | 'tooFast'
  | 'overBudget'
  | 'admitted';

export const partVerdict = (context: SessionContext, event: SessionEvent): PartVerdict | undefined => {
  if (event.type !== 'part') return undefined;
  const { upload, limits } = context;
  const { header } = event;
  if (upload === undefined || header === undefined || header.turn !== upload.turn) return 'invalid';
  if (header.sequence !== upload.parts) return 'outOfOrder';
  const bytes = event.audio.byteLength;
  if (bytes > limits.maxPartBytes) return 'partTooLarge';
  if (upload.bytes + bytes > limits.maxBinaryFrameBytes) return 'utteranceTooLarge';
  // Speech comes at the speed it is spoken: audio far ahead of the time since the start is no live voice.
  const spokenMs = ((upload.bytes + bytes) * 1000) / PCM_BYTES_PER_SECOND;
  if (spokenMs - (event.at - upload.openedAt) > limits.maxStreamLeadMs) return 'tooFast';
  if (!event.fits) return 'overBudget';
  return 'admitted';
};

/** What becomes of an `utterance_end` while an utterance is open. */
type EndVerdict = 'invalid' | 'incomplete' | 'queueFull' | 'accepted';

export const endVerdict = (context: SessionContext, event: SessionEvent): EndVerdict | undefined => {
  if (event.type !== 'utterance_end') return undefined;
  const { upload } = context;
  if (upload === undefined || event.turn !== upload.turn) return 'invalid';
  if (event.parts !== upload.parts) return 'incomplete';
  if (queueFull(context)) return 'queueFull';
  return 'accepted';
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
  delays: {
    utteranceStall: ({ context }) => context.limits.utteranceStallMs,
  },
  guards: {
    startIs: ({ context }, verdict: StartVerdict) => startVerdict(context) === verdict,
    partIs: ({ context, event }, verdict: PartVerdict) => partVerdict(context, event) === verdict,
    endIs: ({ context, event }, verdict: EndVerdict) => endVerdict(context, event) === verdict,
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
    openUtterance: assign(({ context, event }) => ({
      turns: context.turns + 1,
      streams: true,
      upload: {
        turn: context.turns + 1,
        parts: 0,
        bytes: 0,
        openedAt: event.type === 'utterance_start' ? event.at : 0,
      },
    })),
    countPart: assign({
      upload: ({ context, event }) =>
        context.upload === undefined || event.type !== 'part'
          ? context.upload
          : {
              ...context.upload,
              parts: context.upload.parts + 1,
              bytes: context.upload.bytes + event.audio.byteLength,
            },
    }),
    closeUpload: assign({ upload: undefined }),
    /** Cancel, the upload's share: its turn ends `cancelled` with the calls' dropped turns, in turn order. */
    cancelUpload: assign(({ context }) => ({
      upload: undefined,
      cancelledTurns:
        context.upload === undefined
          ? context.cancelledTurns
          : [...context.cancelledTurns, context.upload.turn].sort((a, b) => a - b),
    })),
    /** The accepted utterance's turn joins the calls' queue: the calls region hears it next. */
    raiseEnded: raise(({ context }) => ({
      type: 'utterance.ended' as const,
      turn: context.upload?.turn ?? context.turns,
      audioBytes: context.upload?.bytes ?? 0,
    })),
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
      // An utterance abandoned by the same cancel is already here (the upload region runs first).
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
    followUtterance: ({ context, self }) => {
      if (context.upload !== undefined) resourcesOf(self).followUtterance(context.upload.turn);
    },
    sendPart: ({ context, event, self }) => {
      if (event.type === 'part' && context.upload !== undefined) {
        resourcesOf(self).sendPart(context.upload.turn, context.upload.parts, event.audio);
      }
    },
    endUtterance: ({ context, self }) => {
      if (context.upload !== undefined)
        resourcesOf(self).endUtterance(context.upload.turn, context.upload.parts);
    },
    /** The open utterance is given up: the robot told, its audio released; its error frame when given. */
    abandonUtterance: ({ context, self }, refusal: Refusal | undefined) => {
      if (context.upload !== undefined) {
        resourcesOf(self).abandonUtterance(context.upload.turn, context.upload.parts, refusal);
      }
    },
    reportHeard: ({ event, self }) => {
      if (event.type === 'heard') resourcesOf(self).reportHeard(event);
    },
    flushPlayAudio: ({ self }) => {
      resourcesOf(self).flushPlayAudio();
    },
  },
});
