import type { StandInClock, StandInTimer } from '../../src/robot/speech/stand-in-clock.js';

/** A clock the test moves by hand: timers run only inside `advance`, in the order they fall due. */
export class ManualClock implements StandInClock {
  private nowMs = 0;
  private nextId = 0;
  private readonly timers = new Map<number, { readonly at: number; readonly callback: () => void }>();

  now(): number {
    return this.nowMs;
  }
  later(ms: number, callback: () => void): StandInTimer {
    this.nextId += 1;
    const id = this.nextId;
    this.timers.set(id, { at: this.nowMs + Math.max(0, ms), callback });
    return {
      cancel: () => {
        this.timers.delete(id);
      },
    };
  }
  /** Timers set and not yet run or cancelled. */
  get pending(): number {
    return this.timers.size;
  }
  /** Moves time on by `ms`, running each timer as it falls due (a timer set by one runs too if due). */
  advance(ms: number): void {
    const until = this.nowMs + ms;
    // Each pass runs one timer; a test's timers are few, so 10,000 is far beyond any honest use.
    for (let pass = 0; pass < 10_000; pass += 1) {
      let due: [number, { at: number; callback: () => void }] | undefined;
      for (const entry of this.timers) {
        if (entry[1].at <= until && (due === undefined || entry[1].at < due[1].at)) due = entry;
      }
      if (due === undefined) {
        this.nowMs = until;
        return;
      }
      this.timers.delete(due[0]);
      this.nowMs = due[1].at;
      due[1].callback();
    }
    throw new Error('ManualClock: more than 10,000 timers fell due in one advance');
  }
}
