/**
 * Whether the client of one HTTP request is still waiting for the answer. The router ends it when
 * uWebSockets.js reports the request aborted; routes tie their work (a ROS call) to it.
 *
 * A small class rather than an AbortController per request: one is made for every request, and an
 * AbortSignal with its listeners cost a measurable share of a GET's CPU time (docs/performance.md).
 */
export class ClientPresence {
  #gone = false;
  #listeners: (() => void)[] | undefined;

  /** True once the client went away before the answer. */
  get gone(): boolean {
    return this.#gone;
  }

  /**
   * Runs `listener` once when the client goes away (at once if it already has). Returns a function that
   * cancels it, for work that ends first.
   */
  onGone(listener: () => void): () => void {
    if (this.#gone) {
      listener();
      return noop;
    }
    (this.#listeners ??= []).push(listener);
    return () => {
      const listeners = this.#listeners;
      const index = listeners === undefined ? -1 : listeners.indexOf(listener);
      if (index !== -1) listeners?.splice(index, 1);
    };
  }

  /** The client went away: every listener runs once, in the order they came. */
  leave(): void {
    if (this.#gone) return;
    this.#gone = true;
    const listeners = this.#listeners;
    this.#listeners = undefined;
    for (const listener of listeners ?? []) listener();
  }
}

const noop = (): void => undefined;
