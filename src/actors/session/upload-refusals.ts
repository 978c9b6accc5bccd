import { busyMessage, errorFrame, type TextFrame, type ErrorCode } from '../../protocol/ws/index.js';
import type { Refusal } from './session-types.js';
import type { UploadContext, UploadEvent } from './session-types.js';
import { endVerdict, partVerdict } from './upload-actions.js';

/**
 * What the upload chart answers when it refuses a part or an end: the frames, as the `deliver` and
 * `abandonUtterance` params of upload-machine.ts, read from the snapshot and the event. The verdicts that
 * choose them are upload-actions.ts's guards.
 */

type ChartArgs = { context: UploadContext; event: UploadEvent };

/** The error frame about the open utterance; its `turn_end` abandoned follows it (abandonUtterance). */
const uploadError = (context: UploadContext, code: ErrorCode, message: string): Refusal => ({
  frame: errorFrame(code, message, context.open?.turn),
  turn: context.open?.turn,
});

const partProblem = (context: UploadContext, event: UploadEvent): { code: ErrorCode; message: string } => {
  const { open, limits } = context;
  if (event.type !== 'part' || open === undefined)
    return { code: 'part_invalid', message: 'no utterance is open' };
  const bytes = event.audio.byteLength;
  switch (partVerdict(context, event)) {
    case 'outOfOrder':
      return {
        code: 'part_out_of_order',
        message: `part ${event.header?.sequence ?? 0} of utterance ${open.turn} came where part ${open.parts} was due`,
      };
    case 'partTooLarge':
      return {
        code: 'part_too_large',
        message: `part of ${bytes} bytes is larger than the limit of ${limits.maxPartBytes}`,
      };
    case 'oddLength':
      return {
        code: 'part_odd_length',
        message: `part of ${bytes} bytes of audio is not whole 16-bit samples (an odd number of bytes)`,
      };
    case 'tooSlow':
      return {
        code: 'utterance_too_slow',
        message: `audio fell more than ${limits.maxStreamLagMs} ms behind real time`,
      };
    case 'utteranceTooLarge':
      return {
        code: 'utterance_too_large',
        message: `utterance of over ${open.bytes + bytes} bytes is larger than the limit of ${limits.maxBinaryFrameBytes}`,
      };
    case 'tooFast':
      return {
        code: 'utterance_too_fast',
        message: `audio ran more than ${limits.maxStreamLeadMs} ms ahead of real time`,
      };
    case 'overBudget':
      return {
        code: 'busy',
        message: busyMessage(
          'chat',
          event.overShare === true
            ? { kind: 'address', maxAudioBytesPerAddress: limits.maxQueuedAudioBytesPerAddress }
            : { kind: 'audio', maxQueuedAudioBytes: context.audioBudgetBytes },
        ),
      };
    default:
      return { code: 'part_invalid', message: 'the part names no open utterance' };
  }
};

export const partRefusals = {
  /** A frame that is no part of the open utterance: dropped, the utterance (if any) goes on. */
  invalid: ({ context, event }: ChartArgs): TextFrame => {
    if (event.type !== 'part') return errorFrame('part_invalid');
    const { header } = event;
    const open =
      context.open === undefined ? 'no utterance is open' : `the open utterance is ${context.open.turn}`;
    return errorFrame(
      'part_invalid',
      header === undefined
        ? `binary frame of ${event.audio.byteLength} byte${event.audio.byteLength === 1 ? '' : 's'} is shorter than the part header; ${open}`
        : `part names utterance ${header.turn}; ${open}`,
    );
  },
  abandon: ({ context, event }: ChartArgs): Refusal => {
    const { code, message } = partProblem(context, event);
    return uploadError(context, code, message);
  },
  stalled: ({ context }: ChartArgs): Refusal =>
    uploadError(
      context,
      'utterance_stalled',
      `no part with audio and no end came for ${context.limits.utteranceStallMs} ms`,
    ),
  behind: ({ context }: ChartArgs): Refusal =>
    uploadError(
      context,
      'utterance_too_slow',
      `audio fell more than ${context.limits.maxStreamLagMs} ms behind real time`,
    ),
  tooLong: ({ context }: ChartArgs): Refusal =>
    uploadError(
      context,
      'utterance_too_long',
      `utterance open for more than ${context.limits.maxUtteranceMs} ms`,
    ),
  muted: ({ context }: ChartArgs): Refusal =>
    uploadError(
      context,
      'microphone_disabled',
      `the microphone was disabled; utterance ${context.open?.turn ?? 0} was abandoned after ${context.open?.parts ?? 0} parts`,
    ),
};

export const endRefusals = {
  invalid: ({ context, event }: ChartArgs): TextFrame =>
    errorFrame(
      'part_invalid',
      `utterance_end names utterance ${event.type === 'utterance_end' ? event.turn : 0}; ${
        context.open === undefined ? 'no utterance is open' : `the open utterance is ${context.open.turn}`
      }`,
    ),
  abandon: ({ context, event }: ChartArgs): Refusal => {
    if (endVerdict(context, event) === 'queueFull') {
      return uploadError(
        context,
        'busy',
        busyMessage('chat', { kind: 'queue', maxWaitingCalls: context.limits.maxWaitingCalls }),
      );
    }
    return uploadError(
      context,
      'utterance_incomplete',
      `utterance_end counts ${event.type === 'utterance_end' ? event.parts : 0} parts; ${context.open?.parts ?? 0} came`,
    );
  },
};
