/**
 * What one client may send: two token buckets, frames and bytes, each refilled at its rate up to its
 * burst. A flood of frames, however small, is stopped after the burst, so one socket's data can cost the
 * process only so much before its session is closed; the rest of what that read brought is not handled.
 */
export interface InboundRates {
  readonly framesPerSecond: number;
  readonly bytesPerSecond: number;
  /** The largest frame the endpoint takes, binary or text: the byte burst is at least twice it. */
  readonly largestFrameBytes: number;
}

/** Seconds of either rate a quiet session may spend at once. */
export const FRAME_BURST_SECONDS = 2;

export class InboundBudget {
  #frames: number;
  #bytes: number;
  #at: number;
  readonly #frameBurst: number;
  readonly #byteBurst: number;

  constructor(
    private readonly rates: InboundRates,
    now: number,
  ) {
    this.#frameBurst = rates.framesPerSecond * FRAME_BURST_SECONDS;
    // Two of the largest frames back to back always pass, whatever the byte rate.
    this.#byteBurst = Math.max(2 * rates.largestFrameBytes, rates.bytesPerSecond * FRAME_BURST_SECONDS);
    this.#frames = this.#frameBurst;
    this.#bytes = this.#byteBurst;
    this.#at = now;
  }

  /** Spends one frame of `bytes` at `now` (milliseconds); false once either bucket is overdrawn. */
  take(bytes: number, now: number): boolean {
    const seconds = Math.max(0, now - this.#at) / 1000;
    this.#at = now;
    this.#frames = Math.min(this.#frameBurst, this.#frames + seconds * this.rates.framesPerSecond) - 1;
    this.#bytes = Math.min(this.#byteBurst, this.#bytes + seconds * this.rates.bytesPerSecond) - bytes;
    return this.#frames >= 0 && this.#bytes >= 0;
  }
}
