import { NEVER, type Observable } from 'rxjs';
import { assign, fromEventObservable, sendTo, setup } from 'xstate';
import { performance } from 'node:perf_hooks';
import {
  type OutboundFrame,
  MAX_TURN,
  PART_HEADER_BYTES,
  parseClientText,
  readPartHeader,
  textFrame,
  type TurnNumber as Turn,
} from '../../protocol/ws/index.js';
import type { CallEvent } from '../../streams/call-streams.js';
import type { BudgetShortfall } from '../budgets.js';
import type {
  ConversationRequest,
  Refusal,
  SessionContext,
  SessionEvent,
  SessionMachineInput,
  SessionTransportEvent,
  UploadInput,
} from './session-types.js';
import { tellingParent } from './upload-actions.js';
import { uploadMachine } from './upload-machine.js';

/**
 * The session chart's named actions, guards and actors (the chart itself is session-machine.ts, the frames
 * of its refusals session-refusals.ts). Guards and `assign`s read only the snapshot and the event. The
 * effects and the running call are named here and given by session.ts (`provide`), on the session's live
 * resources; those given here do nothing, for pure transitions and tests of the chart alone.
 */

/**
 * What an event of the socket means to the chart. A binary frame is a whole utterance until the session
 * streams; then it is a part, read behind its header, for the upload. A text frame is the command it names
 * or its error. The facts a decision needs go in the event: whether the audio fits in the budget now
 * (`shortfall`), which utterance is open, whether the queue is full; times come from one monotonic clock.
 */
export const readTransportEvent = (
  event: SessionTransportEvent,
  session: SessionContext,
  shortfall: (bytes: number, streamed: boolean) => BudgetShortfall | undefined,
): SessionEvent => {
  if (event.type === 'ws.binary') {
    const { data } = event;
    if (!session.streams) {
      const short = shortfall(data.byteLength, false);
      return short === undefined
        ? { type: 'utterance', audio: data, fits: true }
        : { type: 'utterance', audio: data, fits: false, overShare: short === 'share' };
    }
    // A frame shorter than the header is no part: its bytes are kept whole, for the error to name.
    const header = readPartHeader(data);
    const audio = header === undefined ? data : data.subarray(PART_HEADER_BYTES);
    const short = shortfall(audio.byteLength, true);
    return {
      type: 'part',
      header,
      audio,
      at: performance.now(),
      fits: short === undefined,
      overShare: short === 'share',
    };
  }
  if (event.type !== 'ws.text') return event;
  const parsed = parseClientText(event.data, session.limits.maxTextFrameBytes);
  if (!parsed.ok) return { type: 'text.rejected', code: parsed.code, message: parsed.message };
  const { command } = parsed;
  switch (command.service) {
    case 'utterance_start':
      return { type: 'utterance_start', at: performance.now() };
    case 'utterance_end':
      return {
        type: 'utterance_end',
        turn: command.turn,
        parts: command.parts,
        queueFull: queueFull(session),
      };
    case 'heard': {
      const { service: _service, ...report } = command;
      return { type: 'heard', ...report };
    }
    default:
      return { type: command.service };
  }
};

/** A robot's transcript of a streamed turn, as the kiosk gets it (the `deliver` params of `transcript`). */
export const transcriptFrame = ({
  event,
}: {
  event: Extract<SessionEvent, { type: 'transcript' }>;
}): OutboundFrame =>
  textFrame({ type: 'transcript', turn: event.turn, text: event.text, final: event.final });

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
  if (event.type === 'utterance_start' && context.openTurn !== undefined) return 'alreadyOpen';
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

/** What `calling`'s invoke runs: the running request. */
export const runningRequest = ({ context }: { context: SessionContext }): ConversationRequest | undefined =>
  context.running;

/** What `open`'s invoke of the upload starts from. */
export const uploadInput = ({ context }: { context: SessionContext }): UploadInput => ({
  limits: context.limits,
  audioBudgetBytes: context.audioBudgetBytes,
});

export const sessionSetup = setup({
  types: {
    input: {} as SessionMachineInput,
    context: {} as SessionContext,
    events: {} as SessionEvent,
  },
  actors: {
    /**
     * The running request's call (`calling` invokes it): it tells `call.part` per part of a Converse
     * answer, then `call.settled`; stopping it abandons the call. This one never answers.
     */
    call: fromEventObservable(
      (_: { input: ConversationRequest | undefined }): Observable<CallEvent> => NEVER,
    ),
    upload: uploadMachine.provide({ actions: tellingParent }),
  },
  guards: {
    startIs: ({ context, event }, verdict: StartVerdict) => startVerdict(context, event) === verdict,
    utteranceIs: ({ context, event }, verdict: UtteranceVerdict) =>
      utteranceVerdict(context, event) === verdict,
    queueFull: ({ context }) => queueFull(context),
    microphoneChanged: ({ context, event }) =>
      event.type === 'microphone.changed' && event.enabled !== context.microphoneEnabled,
    microphoneDisabled: ({ context, event }) =>
      event.type === 'microphone.changed' && !event.enabled && context.microphoneEnabled,
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
    openUtterance: assign(({ context }) => ({
      turns: context.turns + 1,
      streams: true,
      openTurn: context.turns + 1,
    })),
    /** The upload ended or gave up its utterance: none is open. */
    closeUtterance: assign({
      openTurn: ({ context, event }) =>
        (event.type === 'utterance.ended' || event.type === 'upload.abandoned') &&
        event.turn === context.openTurn
          ? undefined
          : context.openTurn,
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
     * Cancel: the open utterance, the running turn (if the running call is one) and every queued turn are
     * dropped, their numbers kept for `turn_end`; a queued clear_history stays, in its place.
     */
    dropTurns: assign(({ context }) => {
      const { running, waiting, openTurn } = context;
      const cancelledTurns: Turn[] = openTurn === undefined ? [] : [openTurn];
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
      return {
        running: stillRunning,
        waiting: kept,
        openTurn: undefined,
        cancelledTurns: cancelledTurns.sort((a, b) => a - b),
      };
    }),
    clearCancelled: assign({ cancelledTurns: [] }),
    setMicrophone: assign({
      microphoneEnabled: ({ context, event }) =>
        event.type === 'microphone.changed' ? event.enabled : context.microphoneEnabled,
    }),

    // The upload's events: it is the child `upload` (invoked by `open`).
    /** The admitted `utterance_start` opens the upload as turn `context.turns`. */
    openUpload: sendTo('upload', ({ context, event }) => ({
      type: 'upload.open',
      turn: context.turns,
      at: event.type === 'utterance_start' ? event.at : 0,
    })),
    /** The socket's part or end of the open utterance. */
    passToUpload: sendTo('upload', ({ event }) => event),
    cancelUpload: sendTo('upload', { type: 'cancel' }),
    /** The microphone was disabled: the upload abandons its open utterance, if one is open. */
    muteUpload: sendTo('upload', { type: 'upload.muted' }),

    // The effects, on what is live: session.ts gives them.
    deliver: (_, _frame: OutboundFrame) => undefined,
    refuse: (_, _refusal: Refusal) => undefined,
    /** The admitted turn's audio is kept for its call and taken from the budget. */
    holdAudio: () => undefined,
    /** A part of the running turn's answer: its pair goes out at once. */
    deliverPart: () => undefined,
    /** The running call ended: its audio goes back to the budget before its answer is sent. */
    deliverOutcome: () => undefined,
    /** Cancel: the audio of the running turn and of every queued turn goes back to the budget. */
    releaseCancelledAudio: () => undefined,
    deliverCancelled: () => undefined,
    /** A streamed utterance opened: its transcripts come to this session, its parts are kept for `/chat`. */
    followUtterance: () => undefined,
    /** The upload's admitted part: to the robot at once, kept for `/chat`. */
    sendPart: () => undefined,
    /** The upload's accepted end: the robot told before the turn is queued. */
    endUtterance: () => undefined,
    /** The upload gave its utterance up: the robot told, its audio released, its error sent. */
    abandonUtterance: () => undefined,
    reportHeard: () => undefined,
    flushPlayAudio: () => undefined,
  },
});
