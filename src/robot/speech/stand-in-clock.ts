import { asyncScheduler, type SchedulerLike } from 'rxjs';

/** Work a stand-in will do later; `cancel` drops it (nothing once it ran). */
export interface StandInTimer {
  cancel(): void;
}

/**
 * The time the robot's stand-ins wait on (the recogniser's cost, the wait for an utterance's END, an
 * answer's schedule), injected so their tests run on virtual time (SchedulerClock on a test scheduler)
 * or on a clock they move by hand (test/support/manual-clock.ts).
 */
export interface StandInClock {
  now(): number;
  /** Runs `work` after `delayMs`, never from inside this call. */
  later(delayMs: number, work: () => void): StandInTimer;
}

/**
 * A clock on a scheduler: the test's (virtual time) when there is one, else real timers, and work due at
 * once on a promise reaction, as a remote node's answer is never synchronous. Every pending timer is
 * known, so closing a stand-in drops them all.
 */
export class SchedulerClock implements StandInClock {
  readonly #pending = new Set<StandInTimer>();

  constructor(readonly scheduler: SchedulerLike | undefined) {}

  now(): number {
    return (this.scheduler ?? asyncScheduler).now();
  }

  later(delayMs: number, work: () => void): StandInTimer {
    const pending = this.#pending;
    if (this.scheduler === undefined && delayMs <= 0) {
      let live = true;
      const timer: StandInTimer = {
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
    const timer: StandInTimer = {
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

  /** Drops every pending timer: the stand-in closes. */
  cancelAll(): void {
    for (const timer of [...this.#pending]) timer.cancel();
  }
}

/** Real time, for the reference nodes. */
export const REAL_CLOCK: StandInClock = new SchedulerClock(undefined);
