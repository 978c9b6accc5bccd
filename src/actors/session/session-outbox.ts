import { CLOSE_CODES } from '../../protocol/ws-protocol.js';
import { closeFrame, type OutboundFrame } from '../../protocol/ws-frames.js';

/** What the transport gives a session to write with; SessionInput (session-types.ts) documents each. */
export interface SessionSocket {
  readonly send: (frame: OutboundFrame) => void;
  readonly batch?: ((writes: () => void) => void) | undefined;
  readonly bufferedBytes?: (() => number) | undefined;
}

/**
 * The session's way out: the transport's `send`, and whether it still works. A send that throws marks the
 * outbox broken (the socket is gone), which the machine reads to close instead of going on.
 *
 * The slow-reader rule is kept here, where the bytes leave: a write after which more than
 * `maxSendBufferBytes` wait in the socket's send buffer closes it with 1008 and breaks the outbox. The
 * transport does not report its buffer back after a write, so no write re-enters the session it came from.
 */
export class Outbox {
  #broken = false;
  constructor(
    private readonly transportSend: SessionSocket['send'],
    private readonly transportBatch: SessionSocket['batch'],
    private readonly bufferedBytes: SessionSocket['bufferedBytes'],
    private readonly maxSendBufferBytes: number,
  ) {}

  /**
   * Runs `writes` as one write to the socket where the transport can (see SessionInput.batch); returns what
   * `writes` returns: whether every frame was sent.
   */
  batch(writes: () => boolean): boolean {
    if (this.transportBatch === undefined || this.#broken) return writes();
    let sent = false;
    this.transportBatch(() => {
      sent = writes();
    });
    return sent;
  }

  get broken(): boolean {
    return this.#broken;
  }

  /**
   * False when the frame could not be sent (now or before), or left the reader too far behind. A property,
   * so the /play_audio writer holds it directly.
   */
  readonly send = (frame: OutboundFrame): boolean => {
    if (this.#broken) return false;
    try {
      this.transportSend(frame);
      if (frame.kind === 'close') return true;
      if (this.bufferedBytes !== undefined && this.bufferedBytes() > this.maxSendBufferBytes) {
        this.#broken = true;
        this.transportSend(closeFrame(CLOSE_CODES.sendBufferExceeded));
        return false;
      }
      return true;
    } catch {
      this.#broken = true;
      return false;
    }
  };
}
