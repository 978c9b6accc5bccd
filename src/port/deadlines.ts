import type { SchedulerLike } from 'rxjs';

/**
 * Time-outs of ROS calls without a timer per call. Calls of one service share one time-out, so their
 * deadlines come in the order the calls start: each time-out keeps its calls in one list, oldest first,
 * and one timer is armed for the earliest deadline of all lists. Adding and removing a call is O(1) on
 * its list; the timer moves only when it fires or a shorter time-out gets an earlier deadline. A timer
 * per call would insert and clear a timer for every HTTP request, on its path.
 */

/** Time for the deadlines: the process's clock, or a test scheduler's virtual one. */
export interface DeadlineClock {
  now(): number;
  /** Runs `fire` once after `delayMs`; returns what cancels it. */
  schedule(fire: () => void, delayMs: number): () => void;
}

/**
 * The process's monotonic clock. The timer is unref'd: a deadline alone never keeps the process alive
 * (whoever waits for the call does), so a quiet bridge or a finished test exits without waiting for it.
 */
export const PROCESS_CLOCK: DeadlineClock = {
  now: () => performance.now(),
  schedule: (fire, delayMs) => {
    const timer = setTimeout(fire, delayMs);
    timer.unref();
    return () => {
      clearTimeout(timer);
    };
  },
};

/** A scheduler's clock: virtual time under a TestScheduler, in marble tests. */
export const schedulerClock = (scheduler: SchedulerLike): DeadlineClock => ({
  now: () => scheduler.now(),
  schedule: (fire, delayMs) => {
    const subscription = scheduler.schedule(fire, delayMs);
    return () => {
      subscription.unsubscribe();
    };
  },
});

/** What the queue keeps of a call: its deadline and its place in its list (the call object itself). */
export interface DeadlineEntry {
  /** Scheduler time at which `expire` runs, set by `add`. */
  deadline: number;
  previous: DeadlineEntry | undefined;
  next: DeadlineEntry | undefined;
  list: DeadlineList | undefined;
  expire(): void;
}

/** The entries of one time-out, oldest first. */
export class DeadlineList {
  head: DeadlineEntry | undefined;
  tail: DeadlineEntry | undefined;

  constructor(readonly timeoutMs: number) {}

  push(entry: DeadlineEntry): void {
    entry.list = this;
    entry.previous = this.tail;
    entry.next = undefined;
    if (this.tail === undefined) this.head = entry;
    else this.tail.next = entry;
    this.tail = entry;
  }

  unlink(entry: DeadlineEntry): void {
    if (entry.previous === undefined) this.head = entry.next;
    else entry.previous.next = entry.next;
    if (entry.next === undefined) this.tail = entry.previous;
    else entry.next.previous = entry.previous;
    entry.previous = undefined;
    entry.next = undefined;
    entry.list = undefined;
  }
}

export class Deadlines {
  readonly #lists = new Map<number, DeadlineList>();
  #cancelTimer: (() => void) | undefined;
  #armedFor = Number.POSITIVE_INFINITY;

  constructor(readonly clock: DeadlineClock) {}

  /** `entry.expire()` runs `timeoutMs` from now unless the entry is removed first. */
  add(entry: DeadlineEntry, timeoutMs: number): void {
    let list = this.#lists.get(timeoutMs);
    if (list === undefined) {
      list = new DeadlineList(timeoutMs);
      this.#lists.set(timeoutMs, list);
    }
    entry.deadline = this.clock.now() + timeoutMs;
    list.push(entry);
    if (entry.deadline < this.#armedFor) this.#arm(entry.deadline);
  }

  /** Forgets the entry (answered, cancelled). The timer stays: when it fires early it re-arms. */
  remove(entry: DeadlineEntry): void {
    entry.list?.unlink(entry);
  }

  /**
   * Takes every entry out, oldest first within each time-out, and hands it to `visit` (the port closed:
   * no answer will come). Entries added by `visit` are visited too; bounded by the calls outstanding.
   */
  drain(visit: (entry: DeadlineEntry) => void): void {
    for (const list of this.#lists.values()) {
      for (let entry = list.head; entry !== undefined; entry = list.head) {
        list.unlink(entry);
        visit(entry);
      }
    }
  }

  #arm(deadline: number): void {
    this.#cancelTimer?.();
    this.#armedFor = deadline;
    this.#cancelTimer = this.clock.schedule(
      () => {
        this.#fire();
      },
      Math.max(0, deadline - this.clock.now()),
    );
  }

  #fire(): void {
    this.#cancelTimer = undefined;
    this.#armedFor = Number.POSITIVE_INFINITY;
    const now = this.clock.now();
    for (const list of this.#lists.values()) {
      // Bounded: each pass removes the head; entries added meanwhile are due after `now`.
      for (let entry = list.head; entry !== undefined && entry.deadline <= now; entry = list.head) {
        list.unlink(entry);
        entry.expire();
      }
    }
    let earliest = Number.POSITIVE_INFINITY;
    for (const list of this.#lists.values()) {
      if (list.head !== undefined && list.head.deadline < earliest) earliest = list.head.deadline;
    }
    if (earliest < this.#armedFor) this.#arm(earliest);
  }
}
