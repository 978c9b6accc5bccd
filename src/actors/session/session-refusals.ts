import { busyMessage, errorFrame, type OutboundFrame, type TextFrame } from '../../protocol/ws-frames.js';
import type { ErrorCode, Turn } from '../../protocol/ws-protocol.js';
import { endVerdict, partVerdict, requestOf } from './session-actions.js';
import { busyRefusal, type Refusal } from './session-outbox.js';
import type { SessionContext, SessionEvent } from './session-types.js';

/**
 * What the chart answers when it refuses: each refusal's frames, as the `deliver`, `refuse` and
 * `abandonUtterance` params of session-machine.ts, read from the snapshot and the event. The verdicts that
 * choose them are session-actions.ts's guards.
 */

const turnRefusal = (turn: Turn, frame: OutboundFrame): Refusal => ({ frame, turn });

type ChartArgs = { context: SessionContext; event: SessionEvent };

/** The error frame about the open utterance; its `turn_end` abandoned follows it (abandonUtterance). */
const uploadError = (context: SessionContext, code: ErrorCode, message: string): Refusal => ({
  frame: errorFrame(code, message, context.upload?.turn),
  turn: context.upload?.turn,
});

/** A turn refused while the microphone is disabled, a whole frame or an `utterance_start` alike. */
const microphoneDisabled = ({ context }: { context: SessionContext }): Refusal =>
  turnRefusal(context.turns, errorFrame('microphone_disabled', undefined, context.turns));

/** A refused `utterance_start`: it was counted as a turn first. */
export const startRefusals = {
  microphoneDisabled,
  alreadyOpen: ({ context }: ChartArgs): Refusal =>
    turnRefusal(
      context.turns,
      errorFrame(
        'utterance_open',
        `utterance ${context.upload?.turn ?? 0} is still open; one utterance at a time`,
        context.turns,
      ),
    ),
};

const partProblem = (context: SessionContext, event: SessionEvent): { code: ErrorCode; message: string } => {
  const upload = context.upload;
  const { limits } = context;
  if (event.type !== 'part' || upload === undefined)
    return { code: 'part_invalid', message: 'no utterance is open' };
  const bytes = event.audio.byteLength;
  switch (partVerdict(context, event)) {
    case 'outOfOrder':
      return {
        code: 'part_out_of_order',
        message: `part ${event.header?.sequence ?? 0} of utterance ${upload.turn} came where part ${upload.parts} was due`,
      };
    case 'partTooLarge':
      return {
        code: 'part_too_large',
        message: `part of ${bytes} bytes is larger than the limit of ${limits.maxPartBytes}`,
      };
    case 'utteranceTooLarge':
      return {
        code: 'utterance_too_large',
        message: `utterance of over ${upload.bytes + bytes} bytes is larger than the limit of ${limits.maxBinaryFrameBytes}`,
      };
    case 'tooFast':
      return {
        code: 'utterance_too_fast',
        message: `audio ran more than ${limits.maxStreamLeadMs} ms ahead of real time`,
      };
    case 'overBudget':
      return {
        code: 'busy',
        message: busyMessage('chat', { kind: 'audio', maxQueuedAudioBytes: context.audioBudgetBytes }),
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
      context.upload === undefined ? 'no utterance is open' : `the open utterance is ${context.upload.turn}`;
    return errorFrame(
      'part_invalid',
      header === undefined
        ? `binary frame of ${event.audio.byteLength} bytes is shorter than the part header; ${open}`
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
      `no part or end came for ${context.limits.utteranceStallMs} ms`,
    ),
};

export const endRefusals = {
  invalid: ({ context, event }: ChartArgs): TextFrame =>
    errorFrame(
      'part_invalid',
      `utterance_end names utterance ${event.type === 'utterance_end' ? event.turn : 0}; ${
        context.upload === undefined ? 'no utterance is open' : `the open utterance is ${context.upload.turn}`
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
      `utterance_end counts ${event.type === 'utterance_end' ? event.parts : 0} parts; ${context.upload?.parts ?? 0} came`,
    );
  },
};

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
  microphoneDisabled,
};
