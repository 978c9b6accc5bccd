/**
 * Why each of the last `max` utterances a recogniser let go was let go, by id, so that a late event of
 * one is ignored and a late goal told why. Remembering an id again makes it the newest; the oldest is
 * forgotten first.
 */
export class RecentOutcomes {
  readonly #why = new Map<string, string>();

  constructor(readonly max: number) {}

  remember(id: string, why: string): void {
    this.#why.delete(id);
    this.#why.set(id, why);
    for (const oldest of this.#why.keys()) {
      if (this.#why.size <= this.max) break;
      this.#why.delete(oldest);
    }
  }

  /** Why `id` was let go, if it is still remembered. */
  get(id: string): string | undefined {
    return this.#why.get(id);
  }

  has(id: string): boolean {
    return this.#why.has(id);
  }

  forget(id: string): void {
    this.#why.delete(id);
  }
}
