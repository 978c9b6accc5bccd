import { type OutboundFrame } from '../protocol/ws-frames.js';
import { type SessionInput } from './session-types.js';

/**
 * The session's way out: the transport's `send`, and whether it still works. A send that throws marks the
 * outbox broken (the socket is gone), which the machine reads to close instead of going on.
 */
export class Outbox {
  #broken = false;
  constructor(
    private readonly transportSend: SessionInput['send'],
    private readonly transportBatch: SessionInput['batch'],
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

  /** False when the frame could not be sent (now or before). */
  send(frame: OutboundFrame): boolean {
    if (this.#broken) return false;
    try {
      this.transportSend(frame);
      return true;
    } catch {
      this.#broken = true;
      return false;
    }
  }
}
