import { assign, setup } from 'xstate';
import { type TextFrame, PCM_BYTES_PER_SECOND } from '../../protocol/ws/index.js';
import type { Refusal } from './session-outbox.js';
import { resourceBinding } from './session-actions.js';
import type { UploadContext, UploadEvent, UploadInput } from './session-types.js';
import type { UploadResources } from './upload-resources.js';

/**
 * The upload chart's named actions and guards (the chart is upload-machine.ts, its refusals' frames
 * upload-refusals.ts). Guards and `assign`s read only the snapshot and the event; the effects reach the
 * upload's live resources (upload-resources.ts), bound to this actor by session.ts, and nothing else.
 */

export const uploadBinding = resourceBinding<UploadResources>();
const resourcesOf = uploadBinding.of;

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

    // The effects, on the session's resources.
    deliver: ({ self }, frame: TextFrame) => {
      resourcesOf(self).deliver(frame);
    },
    openUtterance: ({ context, self }) => {
      if (context.open !== undefined) resourcesOf(self).open(context.open.turn);
    },
    sendPart: ({ context, event, self }) => {
      if (event.type === 'part' && context.open !== undefined) {
        resourcesOf(self).sendPart(context.open.turn, context.open.parts, event.audio);
      }
    },
    /** The robot hears the end; then the session queues the turn (`utterance.ended`). */
    endUtterance: ({ context, self }) => {
      if (context.open !== undefined) resourcesOf(self).end(context.open);
    },
    /** The open utterance is given up: the robot told, its audio released; its error frame when given. */
    abandonUtterance: ({ context, self }, refusal: Refusal | undefined) => {
      if (context.open !== undefined) {
        resourcesOf(self).abandon(context.open.turn, context.open.parts, refusal);
      }
    },
    /** A cancel's share: the session hears the abandoned turn before the cancel itself. */
    tellCancelled: ({ context, self }) => {
      if (context.open !== undefined) resourcesOf(self).tellCancelled(context.open.turn);
    },
  },
});
