import type { Gauge } from './conversation-gauges.js';

/*
 * What the kiosks may take of the process. What they send: each session's own rates (InboundBudget), and
 * what all sessions together may send, shared among client addresses (SharedInboundBudget). What they
 * hold: the audio of their turns until each turn's call ends, within one limit shared among client
 * addresses (ByteBudget, SharedByteBudget). The transport spends the first on every frame, a session the
 * second on every turn.
 */

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

/**
 * What all sessions together may send, shared among client addresses: two process-wide token buckets,
 * frames and bytes, each refilled at its rate up to 2 s worth. While both have room, every frame
 * within its session's own budget (InboundBudget, above) passes. The process is short when a bucket is
 * overdrawn and the open sessions' recent rate is above the process rate; then a frame from an address
 * sending at least its fair part is refused (its session is to be closed), and the others' frames pass.
 *
 * Recent rates are tallies of frames and bytes that decay over about a second. An address's tally is the
 * sum of its open sessions' tallies, so a session cut takes its part away at once and the next frame is
 * weighed without it. An address whose last session left is remembered with its tally while that tally
 * is worth counting (at most `DEPARTED_ADDRESSES_MAX` of them): a session it opens again starts from it,
 * so a flooder cut cannot come back with a clean slate. Its fair part: at or above the mean of the
 * addresses' tallies weighted by what each sends (Σ tally² / Σ tally). The address sending the most is always at or above it, so a short process
 * always has one to refuse; an address sending less than the others is not refused for their flood; and
 * addresses whose sessions send nothing do not shrink anyone's part. O(1) a frame; one entry per address
 * with a session open, and one per address remembered.
 */
export interface ProcessInboundRates {
  readonly framesPerSecond: number;
  readonly bytesPerSecond: number;
}

/** Seconds of either process rate that may arrive at once. */
export const PROCESS_BURST_SECONDS = 2;

/** The time constant of an address's recent rate, in milliseconds: a tally loses 63 % of itself in this time. */
export const RATE_WINDOW_MS = 1_000;

/** Frames and bytes counted with exponential decay: at a steady rate a tally holds one window's worth. */
interface Tally {
  frames: number;
  bytes: number;
  at: number;
}

interface AddressTally extends Tally {
  sessions: number;
}

/** One session's part of its address's tally. */
export interface InboundShare extends Tally {
  readonly address: AddressTally;
  readonly key: string;
}

/** Brings `tally` to `now`; `power` 2 for a tally of squares, which decays twice as fast. */
const decay = (tally: Tally, now: number, power = 1): void => {
  const factor = Math.exp((-power * Math.max(0, now - tally.at)) / RATE_WINDOW_MS);
  tally.frames *= factor;
  tally.bytes *= factor;
  tally.at = now;
};

/** Addresses remembered after their last session left, at most; past it the longest gone is forgotten. */
export const DEPARTED_ADDRESSES_MAX = 4_096;

/** A remembered tally under a frame and 1 KiB is forgotten: it would not weigh against anyone. */
const negligible = (tally: Tally): boolean => tally.frames < 1 && tally.bytes < 1_024;

/** Float rounding of the sums: an address at the mean is at or above it. */
const AT_THE_MEAN = 1 - 1e-9;

export class SharedInboundBudget {
  #frameTokens: number;
  #byteTokens: number;
  #tokensAt: number;
  readonly #frameBurst: number;
  readonly #byteBurst: number;
  /** What the tallies of all open sessions hold at the process rates: above it, they send more than the rates. */
  readonly #windowFrames: number;
  readonly #windowBytes: number;
  readonly #addresses = new Map<string, AddressTally>();
  /** Addresses without a session, by when their last session left (the oldest first). */
  readonly #departed = new Map<string, Tally>();
  /** Σ over addresses of their tallies. */
  readonly #sum: Tally;
  /** Σ over addresses of their tallies squared (decaying twice as fast). */
  readonly #squares: Tally;

  constructor(
    readonly rates: ProcessInboundRates,
    now: number,
  ) {
    this.#frameBurst = rates.framesPerSecond * PROCESS_BURST_SECONDS;
    this.#byteBurst = rates.bytesPerSecond * PROCESS_BURST_SECONDS;
    this.#windowFrames = (rates.framesPerSecond * RATE_WINDOW_MS) / 1000;
    this.#windowBytes = (rates.bytesPerSecond * RATE_WINDOW_MS) / 1000;
    this.#frameTokens = this.#frameBurst;
    this.#byteTokens = this.#byteBurst;
    this.#tokensAt = now;
    this.#sum = { frames: 0, bytes: 0, at: now };
    this.#squares = { frames: 0, bytes: 0, at: now };
  }

  /** Addresses with a session open. */
  get addresses(): number {
    return this.#addresses.size;
  }

  /** Addresses remembered without a session. */
  get departed(): number {
    return this.#departed.size;
  }

  /** A session of `key` opens: its share, to pass to `take` and `leave`. */
  join(key: string, now: number): InboundShare {
    this.#forgetDeparted(now);
    let address = this.#addresses.get(key);
    if (address === undefined) {
      address = { frames: 0, bytes: 0, at: now, sessions: 0 };
      this.#addresses.set(key, address);
    }
    address.sessions += 1;
    const share: InboundShare = { frames: 0, bytes: 0, at: now, address, key };
    const remembered = this.#departed.get(key);
    if (remembered !== undefined) {
      // The address comes back: its new session carries what the address sent before it left.
      this.#departed.delete(key);
      decay(remembered, now);
      share.frames = remembered.frames;
      share.bytes = remembered.bytes;
      this.#adjust(address, remembered.frames, remembered.bytes, now);
    }
    return share;
  }

  /**
   * The session closed: its tally leaves its address's, and the address leaves with its last session,
   * remembered with that session's tally.
   */
  leave(share: InboundShare, now: number): void {
    decay(share, now);
    if (share.address.sessions === 1) this.#remember(share.key, share, now);
    this.#adjust(share.address, -share.frames, -share.bytes, now);
    share.frames = 0;
    share.bytes = 0;
    share.address.sessions -= 1;
    if (share.address.sessions > 0) return;
    this.#addresses.delete(share.key);
    if (this.#addresses.size > 0) return;
    // No address left: the sums are zero, whatever rounding they gathered.
    Object.assign(this.#sum, { frames: 0, bytes: 0 });
    Object.assign(this.#squares, { frames: 0, bytes: 0 });
  }

  /**
   * Spends one frame of `bytes` at `now` (milliseconds); false when the process is short and the frame's
   * address sends at least its fair part (the frame is then not counted: its session is to be closed).
   */
  take(share: InboundShare, bytes: number, now: number): boolean {
    const seconds = Math.max(0, now - this.#tokensAt) / 1000;
    this.#tokensAt = now;
    this.#frameTokens =
      Math.min(this.#frameBurst, this.#frameTokens + seconds * this.rates.framesPerSecond) - 1;
    this.#byteTokens =
      Math.min(this.#byteBurst, this.#byteTokens + seconds * this.rates.bytesPerSecond) - bytes;
    decay(share, now);
    share.frames += 1;
    share.bytes += bytes;
    const { address } = share;
    this.#adjust(address, 1, bytes, now);
    const framesShort = this.#frameTokens < 0 && this.#sum.frames > this.#windowFrames;
    const bytesShort = this.#byteTokens < 0 && this.#sum.bytes > this.#windowBytes;
    const overShare =
      (framesShort && address.frames >= this.#fairPart('frames')) ||
      (bytesShort && address.bytes >= this.#fairPart('bytes'));
    if (!overShare) {
      // The debt is bounded: a flood cut leaves the buckets at most a burst to refill.
      this.#frameTokens = Math.max(this.#frameTokens, -this.#frameBurst);
      this.#byteTokens = Math.max(this.#byteTokens, -this.#byteBurst);
      return true;
    }
    this.#frameTokens += 1;
    this.#byteTokens += bytes;
    return false;
  }

  #remember(key: string, tally: Tally, now: number): void {
    this.#departed.delete(key);
    if (negligible(tally)) return;
    this.#departed.set(key, { frames: tally.frames, bytes: tally.bytes, at: now });
    this.#forgetDeparted(now);
  }

  /** Forgets the longest gone while they are over the cap or have decayed to nothing: O(1) amortised. */
  #forgetDeparted(now: number): void {
    for (const [key, tally] of this.#departed) {
      decay(tally, now);
      if (!negligible(tally) && this.#departed.size <= DEPARTED_ADDRESSES_MAX) return;
      this.#departed.delete(key);
    }
  }

  /** The mean tally of the addresses, weighted by what each sends; `AT_THE_MEAN` of it. */
  #fairPart(kind: 'frames' | 'bytes'): number {
    const sum = this.#sum[kind];
    return sum > 0 ? (this.#squares[kind] / sum) * AT_THE_MEAN : 0;
  }

  /** Adds to an address's tally, and to the sums, all brought to `now` first. */
  #adjust(address: AddressTally, frames: number, bytes: number, now: number): void {
    decay(address, now);
    decay(this.#sum, now);
    decay(this.#squares, now, 2);
    const nextFrames = Math.max(0, address.frames + frames);
    const nextBytes = Math.max(0, address.bytes + bytes);
    this.#sum.frames = Math.max(0, this.#sum.frames + nextFrames - address.frames);
    this.#sum.bytes = Math.max(0, this.#sum.bytes + nextBytes - address.bytes);
    this.#squares.frames = Math.max(0, this.#squares.frames + nextFrames ** 2 - address.frames ** 2);
    this.#squares.bytes = Math.max(0, this.#squares.bytes + nextBytes ** 2 - address.bytes ** 2);
    address.frames = nextFrames;
    address.bytes = nextBytes;
  }
}

/** Why bytes do not fit a budget: past the share of their holder, or past the whole limit. */
export type BudgetShortfall = 'share' | 'limit';

/** A cap on bytes held, shared by everyone who takes from it. */
export interface ByteBudget {
  readonly limit: number;
  /** What one holder (the sessions of one client address) may hold of `limit`; `limit` when unshared. */
  readonly share: number;
  /** Whether `bytes` would fit now. */
  fits(bytes: number): boolean;
  /** Why `bytes` would not fit now; undefined when they would. */
  shortfall(bytes: number): BudgetShortfall | undefined;
  /**
   * Takes `bytes` if they fit under the limit with what is already held. Returns the function that gives
   * them back (idempotent), or undefined when they do not fit (nothing is taken).
   */
  take(bytes: number): (() => void) | undefined;
}

/** A budget of `limit` bytes counted in `gauge`: budgets over the same gauge share the limit. */
export const byteBudget = (gauge: Gauge, limit: number): ByteBudget => ({
  limit,
  share: limit,
  fits: (bytes) => gauge.value + bytes <= limit,
  shortfall: (bytes) => (gauge.value + bytes <= limit ? undefined : 'limit'),
  take: (bytes) => {
    if (gauge.value + bytes > limit) return undefined;
    gauge.value += bytes;
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      gauge.value -= bytes;
    };
  },
});

/**
 * A budget of `limit` bytes (counted in `gauge`) of which each holder key (a client address) may hold at
 * most `share`: a few addresses cannot take it all, so the others always find room. `budgetFor(key)` is
 * one holder's view; what a key holds is forgotten when it holds nothing.
 */
export interface SharedByteBudget {
  readonly limit: number;
  readonly share: number;
  budgetFor(key: string): ByteBudget;
  /** Bytes held by `key` now (0 for a key holding nothing). */
  heldBy(key: string): number;
}

/** What a shared budget's holders share: the gauge, the limits, and what each key holds. */
interface SharedHolding {
  readonly gauge: Gauge;
  readonly limit: number;
  readonly share: number;
  readonly heldByKey: Map<string, number>;
}

/** One key's view of a shared budget: methods on the prototype, so a session's view is two fields. */
class KeyBudget implements ByteBudget {
  constructor(
    readonly holding: SharedHolding,
    readonly key: string,
  ) {}

  get limit(): number {
    return this.holding.limit;
  }

  get share(): number {
    return this.holding.share;
  }

  fits(bytes: number): boolean {
    return this.shortfall(bytes) === undefined;
  }

  shortfall(bytes: number): BudgetShortfall | undefined {
    const { gauge, limit, share, heldByKey } = this.holding;
    if (gauge.value + bytes > limit) return 'limit';
    if (bytes > 0 && (heldByKey.get(this.key) ?? 0) + bytes > share) return 'share';
    return undefined;
  }

  take(bytes: number): (() => void) | undefined {
    if (this.shortfall(bytes) !== undefined) return undefined;
    const { gauge, heldByKey } = this.holding;
    const { key } = this;
    gauge.value += bytes;
    heldByKey.set(key, (heldByKey.get(key) ?? 0) + bytes);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      gauge.value -= bytes;
      const left = (heldByKey.get(key) ?? 0) - bytes;
      if (left <= 0) heldByKey.delete(key);
      else heldByKey.set(key, left);
    };
  }
}

export const sharedByteBudget = (gauge: Gauge, limit: number, share: number): SharedByteBudget => {
  const holding: SharedHolding = { gauge, limit, share, heldByKey: new Map() };
  return {
    limit,
    share,
    heldBy: (key) => holding.heldByKey.get(key) ?? 0,
    budgetFor: (key) => new KeyBudget(holding, key),
  };
};
