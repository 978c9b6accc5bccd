import {
  busyMessage,
  errorFrame,
  type OutboundFrame,
  type TurnNumber as Turn,
} from '../../protocol/ws/index.js';
import { requestOf } from './session-actions.js';
import type { ConversationRequest, Refusal, SessionContext, SessionEvent } from './session-types.js';

/**
 * What the session chart answers when it refuses: each refusal's frames, as the `deliver` and `refuse`
 * params of session-machine.ts, read from the snapshot and the event. The verdicts that choose them are
 * session-actions.ts's guards; an open utterance's refusals are upload-refusals.ts's.
 */

const turnRefusal = (turn: Turn, frame: OutboundFrame): Refusal => ({ frame, turn });

/**
 * The `busy` error for a request that is not queued (with its turn, for a turn). A turn refused while an
 * earlier one's `busy` still stands (nothing queued since) gets no error of its own: a client sending
 * faster than the robot answers hears `busy` once, then one `turn_end` refused per frame.
 */
export function busyRefusal(
  context: SessionContext,
  request: ConversationRequest,
  cause: 'queue' | 'audio' | 'address',
): Refusal {
  const message = busyMessage(
    request.service,
    cause === 'queue'
      ? { kind: 'queue', maxWaitingCalls: context.limits.maxWaitingCalls }
      : cause === 'audio'
        ? { kind: 'audio', maxQueuedAudioBytes: context.audioBudgetBytes }
        : { kind: 'address', maxAudioBytesPerAddress: context.limits.maxQueuedAudioBytesPerAddress },
  );
  const turn = request.service === 'chat' ? request.turn : undefined;
  if (turn !== undefined && context.busyTold) return { frame: undefined, turn };
  return { frame: errorFrame('busy', message, turn), turn };
}

type ChartArgs = { context: SessionContext; event: SessionEvent };

/** A turn refused while the microphone is disabled, a whole frame or an `utterance_start` alike. */
const microphoneDisabled = ({ context }: { context: SessionContext }): Refusal =>
  turnRefusal(context.turns, errorFrame('microphone_disabled', undefined, context.turns));

/** A refused `utterance_start`: it was counted as a turn first. */
export const startRefusals = {
  microphoneDisabled,
  alreadyOpen: ({ context, event }: ChartArgs): Refusal =>
    turnRefusal(
      context.turns,
      errorFrame(
        'utterance_open',
        `utterance ${event.type === 'utterance_start' ? (context.openTurn ?? 0) : 0} is still open; one utterance at a time`,
        context.turns,
      ),
    ),
};

/** The refusals' frames, as the chart's `refuse` params; a refused utterance was counted first. */
export const refusals = {
  busy:
    (cause: 'queue' | 'audio') =>
    ({ context, event }: { context: SessionContext; event: SessionEvent }): Refusal =>
      busyRefusal(
        context,
        requestOf(event, context.turns),
        cause === 'audio' && event.type === 'utterance' && event.overShare === true ? 'address' : cause,
      ),
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
