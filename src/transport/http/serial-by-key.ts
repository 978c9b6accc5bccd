/**
 * Turns taken one at a time per key, in arrival order: the router runs the ROS calls of requests that
 * share a key (a conditional change to one tour: read, compare, write) one request after the other, so
 * no other such request slips in between one's check and its write.
 */

/** Requests that may wait behind one holding a key's turn in the router; 503 `tour-busy` beyond. */
export const SERIAL_WAITING_MAX = 32;

/** A request's place in its key's queue: first in line holds the turn. */
export interface QueuePlace {
  /** Ends the turn (or leaves the queue before it came); the next request of the key starts. Idempotent. */
  release(): void;
}

interface Waiter {
  readonly start: (place: QueuePlace) => void;
  readonly place: QueuePlace;
  released: boolean;
}

export class SerialByKey {
  /** Per key: the request holding the turn first, then those waiting. A key with nobody is removed. */
  readonly #queues = new Map<string, Waiter[]>();

  /** `maxWaiting`: requests that may wait behind the one holding a key's turn; more are refused. */
  constructor(readonly maxWaiting: number) {}

  /**
   * Takes a turn for `key`: `start` gets it now when nobody holds it, or when the requests ahead released
   * theirs; it may release the turn at once. The place is returned too, to leave the queue while waiting.
   * Undefined (and `start` never runs) when `maxWaiting` requests already wait.
   */
  enter(key: string, start: (place: QueuePlace) => void): QueuePlace | undefined {
    const queue = this.#queues.get(key);
    if (queue !== undefined && queue.length > this.maxWaiting) return undefined;
    const waiter: Waiter = {
      start,
      place: {
        release: () => {
          this.#release(key, waiter);
        },
      },
      released: false,
    };
    if (queue === undefined) {
      this.#queues.set(key, [waiter]);
      start(waiter.place);
    } else {
      queue.push(waiter);
    }
    return waiter.place;
  }

  #release(key: string, waiter: Waiter): void {
    if (waiter.released) return;
    waiter.released = true;
    const queue = this.#queues.get(key);
    if (queue === undefined) return;
    const holder = queue[0] === waiter;
    queue.splice(queue.indexOf(waiter), 1);
    if (queue.length === 0) {
      this.#queues.delete(key);
      return;
    }
    // Only the holder's release passes the turn on; one leaving the queue changes nothing else.
    const next = queue[0];
    if (holder && next !== undefined) next.start(next.place);
  }
}
