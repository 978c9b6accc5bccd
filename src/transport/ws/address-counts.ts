/**
 * Sessions held per client address, within a limit (0: none). Each socket may keep an inbound message's
 * worth of memory in the transport until it closes, so the number a client may hold bounds what it pins.
 * An address leaves the map with its last session: the map holds only addresses with sessions open.
 */
export class AddressCounts {
  readonly #held = new Map<string, number>();

  constructor(readonly limit: number) {}

  /** Takes a place for `address`; false, and nothing taken, when it already holds `limit`. */
  take(address: string): boolean {
    const held = this.#held.get(address) ?? 0;
    if (this.limit > 0 && held >= this.limit) return false;
    this.#held.set(address, held + 1);
    return true;
  }

  release(address: string): void {
    const held = this.#held.get(address) ?? 0;
    if (held <= 1) this.#held.delete(address);
    else this.#held.set(address, held - 1);
  }
}
