import { asyncScheduler, type SchedulerLike } from 'rxjs';

/** Work the simulation will do later; `cancel` drops it (nothing once it ran). */
export interface SimTimer {
  cancel(): void;
}

/**
 * When the simulated robot's later work runs: on the test's scheduler (virtual time) when there is one,
 * else on timers, and work due at once on a promise reaction, as a remote node's answer is never
 * synchronous. Every pending timer is known, so closing the simulation drops them all.
 */
export class SimClock {
  readonly #pending = new Set<SimTimer>();

  constructor(readonly scheduler: SchedulerLike | undefined) {}

  now(): number {
    return (this.scheduler ?? asyncScheduler).now();
  }

  later(delayMs: number, work: () => void): SimTimer {
    const pending = this.#pending;
    if (this.scheduler === undefined && delayMs <= 0) {
      let live = true;
      const timer: SimTimer = {
        cancel: () => {
          live = false;
          pending.delete(timer);
        },
      };
      pending.add(timer);
      void Promise.resolve().then(() => {
        if (!live) return;
        pending.delete(timer);
        work();
      });
      return timer;
    }
    const subscription = (this.scheduler ?? asyncScheduler).schedule(
      () => {
        pending.delete(timer);
        work();
      },
      Math.max(0, delayMs),
    );
    const timer: SimTimer = {
      cancel: () => {
        subscription.unsubscribe();
        pending.delete(timer);
      },
    };
    pending.add(timer);
    return timer;
  }

  /** Timers not yet run. */
  get pendingCount(): number {
    return this.#pending.size;
  }

  /** Drops every pending timer: the simulation closes. */
  cancelAll(): void {
    for (const timer of [...this.#pending]) timer.cancel();
  }
}
