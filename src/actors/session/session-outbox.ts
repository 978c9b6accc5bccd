import { WriteScheduler } from '../../streams/play-audio/fan-out.js';
import { KioskQueue } from '../../streams/play-audio/outbound-queue.js';
import {
  type AudioPairFrame,
  type MessageIdAllocator,
  ackFrame,
  busyMessage,
  encodeAudioPair,
  errorFrame,
  turnEndFrame,
  type OutboundFrame,
  type ErrorCode,
  type MessageId,
  type TurnNumber as Turn,
} from '../../protocol/ws/index.js';
import { RosCallFailedError, RosServiceUnavailableError, RosTimeoutError } from '../../ros/port/ros-port.js';
import { ConverseOutcomeError } from '../../streams/call-streams.js';
import {
  type ConversationRequest,
  type CallOutcome,
  type Refusal,
  type SessionContext,
  type SessionInput,
  type SessionWrites,
} from './session-types.js';

/**
 * What the session sends: its way out to the socket (`Outbox`), and what a call's outcome and a refused
 * request become on the wire (pure, but for the outbox's send).
 */

/**
 * The session's way out: the transport's `send`, and whether it still works. A send that throws marks the
 * outbox broken (the socket is gone), which the machine reads to close instead of going on.
 *
 * The slow-reader rule is kept by the kiosk's queue, where the bytes leave: a write after which more than
 * `maxSendBufferBytes` wait in the socket's send buffer closes it with 1008 and breaks the outbox. The
 * transport does not report its buffer back after a write, so no write re-enters the session it came from.
 */
export class Outbox {
  /** A close frame could not be sent. */
  #broken = false;
  /** What waits for the kiosk, held here (outbound-queue.ts); it writes to the transport. */
  readonly #queue: KioskQueue;
  /** A `/play_audio` pair: the kiosk's queue takes it, written on the scheduler's turns (fan-out.ts). */
  readonly offer: (pair: AudioPairFrame) => void;
  constructor(
    private readonly transportSend: SessionWrites['send'],
    private readonly transportBatch: SessionWrites['batch'],
    bufferedBytes: () => number,
    maxSendBufferBytes: number,
    queueing: OutboxQueueing,
  ) {
    this.#queue = new KioskQueue(
      { capBytes: maxSendBufferBytes, bufferedBytes, send: transportSend, writeFailed: queueing.writeFailed },
      queueing.scheduler,
    );
    this.offer = this.#queue.offer;
  }

  /** The socket drained: what waits is written again. */
  readonly drained = (): void => {
    this.#queue.drained();
  };

  readonly clear = (): void => {
    this.#queue.clear();
  };

  /**
   * Runs `writes` as one write to the socket where the transport can (see SessionInput.batch); returns what
   * `writes` returns: whether every frame was sent.
   */
  batch(writes: () => boolean): boolean {
    if (this.transportBatch === undefined || this.broken) return writes();
    let sent = false;
    this.transportBatch(() => {
      sent = writes();
    });
    return sent;
  }

  get broken(): boolean {
    return this.#broken || this.#queue.broken;
  }

  /**
   * False when the frame could not be sent (now or before), or left the reader too far behind (the queue
   * closed the socket with 1008).
   */
  readonly send = (frame: OutboundFrame): boolean => {
    if (this.broken) return false;
    if (frame.kind === 'close') {
      this.#queue.clear();
      return this.#transport(frame);
    }
    return this.#queue.send(frame);
  };

  #transport(frame: OutboundFrame): boolean {
    try {
      this.transportSend(frame);
      return true;
    } catch {
      this.#broken = true;
      return false;
    }
  }
}

/** How an outbox queues what the socket cannot take yet. */
export interface OutboxQueueing {
  readonly scheduler: WriteScheduler;
  /** A queued write failed (after the session's own call returned): the session ends. */
  readonly writeFailed: () => void;
}

/**
 * A session's outbox, on the hub's scheduler. Without one (a session on its own) it gets a scheduler of its
 * own within the same ceiling; a socket that does not say what it buffers is taken to hold nothing.
 */
export const outboxOf = (input: SessionInput, writeFailed: () => void): Outbox => {
  const scheduler =
    input.outboundScheduler ?? new WriteScheduler({ totalCapBytes: input.limits.maxOutboundBytes });
  const queueing = { scheduler, writeFailed };
  const bufferedBytes = input.bufferedBytes ?? (() => 0);
  return new Outbox(input.send, input.batch, bufferedBytes, input.limits.maxSendBufferBytes, queueing);
};

const failureCode = (service: ConversationRequest['service'], error: unknown): ErrorCode => {
  if (error instanceof RosTimeoutError) return `${service}_timeout`;
  if (error instanceof RosServiceUnavailableError) return `${service}_unavailable`;
  return `${service}_failed`;
};

// Port errors carry operator-readable text (service name, time-out), a Converse result its own message;
// anything else stays generic.
const failureMessage = (error: unknown): string | undefined =>
  error instanceof RosTimeoutError ||
  error instanceof RosServiceUnavailableError ||
  error instanceof RosCallFailedError ||
  error instanceof ConverseOutcomeError
    ? error.message
    : undefined;

/**
 * Sends what ends the last call: for a turn, its last pair (a `/chat` answer) or its error frame, then
 * `turn_end`; for clear_history, the ack or the error. A pair takes its message id when it is sent, so ids
 * increase in the order pairs leave. Stops at the first frame the outbox could not take (then false).
 */
export const sendOutcome = (
  request: ConversationRequest,
  outcome: CallOutcome,
  messageIds: MessageIdAllocator,
  outbox: Outbox,
  /** Told of the answer's pair as it leaves (a heard report is read against it). */
  onPair: (turn: Turn, messageId: MessageId, text: string) => void = () => undefined,
): boolean => {
  if (request.service === 'clear_history') {
    return outbox.send(
      outcome.kind === 'failed'
        ? errorFrame(failureCode('clear_history', outcome.error), failureMessage(outcome.error))
        : ackFrame('clear_history'),
    );
  }
  const { turn } = request;
  if (outcome.kind === 'failed') {
    return (
      outbox.send(errorFrame(failureCode('chat', outcome.error), failureMessage(outcome.error), turn)) &&
      outbox.send(turnEndFrame(turn, 'failed'))
    );
  }
  const { part } = outcome;
  if (part !== undefined) {
    const messageId = messageIds.next();
    onPair(turn, messageId, part.text);
    if (!outbox.send(encodeAudioPair(messageId, part, turn))) return false;
  }
  return outbox.send(turnEndFrame(turn, 'answered'));
};

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
