/**
 * Sessions held per client address, within a limit (0: none), and the last places of the process kept for
 * addresses holding few. Each socket may keep an inbound message's worth of memory in the transport until
 * it closes, so the number a client may hold bounds what it pins; and a handful of hosts that fill every
 * place they may take still leave a kiosk from another address a way in. An address leaves the map with
 * its last session: the map holds only addresses with sessions open.
 */

/** The share of the places (--max_sessions) kept for addresses holding fewer than RESERVE_HOLDERS_BELOW. */
export const RESERVED_PLACES_SHARE = 1 / 10;

/** An address holding fewer sessions than this may take a kept place: a kiosk, and its reconnection. */
export const RESERVE_HOLDERS_BELOW = 2;

/** Why a place was refused: the address holds its limit, or only kept places are left and it holds enough. */
export type PlaceRefusal = 'per_address' | 'reserved';

export class AddressCounts {
  readonly #held = new Map<string, number>();
  #total = 0;
  /** Places beyond which only addresses holding fewer than RESERVE_HOLDERS_BELOW get one. */
  readonly unreserved: number;

  constructor(
    readonly limit: number,
    /** All places (--max_sessions); the hub refuses past them, this only keeps the last ones. */
    readonly places: number,
  ) {
    // No per-address limit (0) says addresses do not tell clients apart (a front end): nothing is kept.
    this.unreserved = limit > 0 ? places - Math.floor(places * RESERVED_PLACES_SHARE) : places;
  }

  /** Takes a place for `address`; else why not, and nothing taken. */
  take(address: string): PlaceRefusal | undefined {
    const held = this.#held.get(address) ?? 0;
    if (this.limit > 0 && held >= this.limit) return 'per_address';
    // Only the kept places themselves: once every place is held, the hub says so (too many sessions).
    const kept = this.#total >= this.unreserved && this.#total < this.places;
    if (kept && held >= RESERVE_HOLDERS_BELOW) return 'reserved';
    this.#held.set(address, held + 1);
    this.#total += 1;
    return undefined;
  }

  release(address: string): void {
    const held = this.#held.get(address) ?? 0;
    if (held === 0) return;
    this.#total -= 1;
    if (held <= 1) this.#held.delete(address);
    else this.#held.set(address, held - 1);
  }
}
