import { assign, sendParent, setup } from 'xstate';
import { type TextFrame, PCM_BYTES_PER_SECOND } from '../../protocol/ws/index.js';
import type { Refusal, SessionEvent, UploadContext, UploadEvent, UploadInput } from './session-types.js';

/**
 * The upload chart's named actions and guards (the chart is upload-machine.ts, its refusals' frames
 * upload-refusals.ts). Guards and `assign`s read only the snapshot and the event; the effects are events
 * to the parent, the session, which owns what is live (the robot's uplink, the audio, the socket).
 */

/** What becomes of a part of the open utterance, decided in this order. */
type PartVerdict =
  | 'invalid'
  | 'outOfOrder'
  | 'partTooLarge'
  | 'oddLength'
  | 'utteranceTooLarge'
  | 'tooFast'
  | 'tooSlow'
  | 'overBudget'
  | 'admitted';

/** The time `bytes` of the kiosk's PCM take to speak, in ms. */
export const spokenMs = (bytes: number): number => (bytes * 1000) / PCM_BYTES_PER_SECOND;

/**
 * How long after its last part carrying audio the open utterance falls behind real time by more than
 * maxStreamLagMs, with no more audio (0: it already has).
 */
const behindInMs = (context: UploadContext): number => {
  const { open, limits } = context;
  if (open === undefined) return 0;
  return Math.max(0, open.openedAt + spokenMs(open.bytes) + limits.maxStreamLagMs - open.lastAudioAt);
};

/** How long after its last part carrying audio the open utterance reaches maxUtteranceMs. */
const tooLongInMs = (context: UploadContext): number => {
  const { open, limits } = context;
  if (open === undefined) return 0;
  return Math.max(0, open.openedAt + limits.maxUtteranceMs - open.lastAudioAt);
};

export const partVerdict = (context: UploadContext, event: UploadEvent): PartVerdict | undefined => {
  if (event.type !== 'part') return undefined;
  const { open, limits } = context;
  const { header } = event;
  if (open === undefined || header === undefined || header.turn !== open.turn) return 'invalid';
  if (header.sequence !== open.parts) return 'outOfOrder';
  const bytes = event.audio.byteLength;
  if (bytes > limits.maxPartBytes) return 'partTooLarge';
  // 16-bit PCM: a part of an odd number of bytes splits a sample.
  if (bytes % 2 !== 0) return 'oddLength';
  if (open.bytes + bytes > limits.maxBinaryFrameBytes) return 'utteranceTooLarge';
  // Speech comes at the speed it is spoken: audio far ahead of the time since the start is no live voice,
  // and a stream far behind it holds its place without speaking.
  const aheadMs = spokenMs(open.bytes + bytes) - (event.at - open.openedAt);
  if (aheadMs > limits.maxStreamLeadMs) return 'tooFast';
  if (-aheadMs > limits.maxStreamLagMs) return 'tooSlow';
  if (!event.fits) return 'overBudget';
  return 'admitted';
};

/** What becomes of an `utterance_end` while an utterance is open. */
type EndVerdict = 'invalid' | 'incomplete' | 'queueFull' | 'accepted';

export const endVerdict = (context: UploadContext, event: UploadEvent): EndVerdict | undefined => {
  if (event.type !== 'utterance_end') return undefined;
  const { open } = context;
  if (open === undefined || event.turn !== open.turn) return 'invalid';
  if (event.parts !== open.parts) return 'incomplete';
  if (event.queueFull) return 'queueFull';
  return 'accepted';
};

export const uploadSetup = setup({
  types: {
    input: {} as UploadInput,
    context: {} as UploadContext,
    events: {} as UploadEvent,
  },
  delays: {
    utteranceStall: ({ context }) => context.limits.utteranceStallMs,
    utteranceBehind: ({ context }) => behindInMs(context),
    utteranceTooLong: ({ context }) => tooLongInMs(context),
  },
  guards: {
    partIs: ({ context, event }, verdict: PartVerdict) => partVerdict(context, event) === verdict,
    /** An admitted part with audio: only audio moves the waits on (an empty part keeps nothing open). */
    partAdmittedWithAudio: ({ context, event }) =>
      event.type === 'part' && event.audio.byteLength > 0 && partVerdict(context, event) === 'admitted',
    endIs: ({ context, event }, verdict: EndVerdict) => endVerdict(context, event) === verdict,
  },
  actions: {
    // The state: pure assigns.
    setOpen: assign({
      open: ({ context, event }) =>
        event.type === 'upload.open'
          ? { turn: event.turn, parts: 0, bytes: 0, openedAt: event.at, lastAudioAt: event.at }
          : context.open,
    }),
    countPart: assign({
      open: ({ context, event }) =>
        context.open === undefined || event.type !== 'part'
          ? context.open
          : {
              ...context.open,
              parts: context.open.parts + 1,
              bytes: context.open.bytes + event.audio.byteLength,
              lastAudioAt: event.audio.byteLength > 0 ? event.at : context.open.lastAudioAt,
            },
    }),
    clearOpen: assign({ open: undefined }),

    // The effects: news for the session, the parent (`tellingParent` below).
    deliver: (_, _frame: TextFrame) => undefined,
    sendPart: () => undefined,
    endUtterance: () => undefined,
    abandonUtterance: (_, _refusal: Refusal | undefined) => undefined,
  },
});

/**
 * The upload's effects as events to its parent, the session (given by `provide` where the session invokes
 * it); the chart alone, as in its pure transitions, tells no one.
 */
export const tellingParent = {
  deliver: sendParent<UploadContext, UploadEvent, TextFrame, SessionEvent, UploadEvent>(
    (_, frame): SessionEvent => ({ type: 'upload.refused', frame }),
  ),
  /** An admitted part: the session sends it to the robot at once, and keeps it for `/chat`. */
  sendPart: sendParent<UploadContext, UploadEvent, unknown, SessionEvent, UploadEvent>(
    ({ context, event }): SessionEvent => ({
      type: 'upload.part',
      turn: context.open?.turn ?? 0,
      sequence: context.open?.parts ?? 0,
      audio: event.type === 'part' ? event.audio : new Uint8Array(0),
    }),
  ),
  /** The session tells the robot the end, then queues the turn. */
  endUtterance: sendParent<UploadContext, UploadEvent, unknown, SessionEvent, UploadEvent>(
    ({ context }): SessionEvent => ({
      type: 'utterance.ended',
      turn: context.open?.turn ?? 0,
      parts: context.open?.parts ?? 0,
      audioBytes: context.open?.bytes ?? 0,
    }),
  ),
  /** The open utterance is given up: the session tells the robot, releases its audio, sends the error. */
  abandonUtterance: sendParent<UploadContext, UploadEvent, Refusal | undefined, SessionEvent, UploadEvent>(
    ({ context }, refusal): SessionEvent => ({
      type: 'upload.abandoned',
      turn: context.open?.turn ?? 0,
      parts: context.open?.parts ?? 0,
      refusal,
    }),
  ),
};
