import type { StandInClock, StandInTimer } from './stand-in-clock.js';
import type { RecogniserLimits } from './recogniser-limits.js';

/** A streamed goal's wait for its utterance. */
export interface FinalListener {
  /** The final transcript is out; the utterance's audio as a 16 kHz mono 16-bit WAV file, and its transcript. */
  recognised(wav: Uint8Array, transcript: string): void;
  /** It will never come; why, for the goal's result. */
  invalid(message: string): void;
}

export interface Waiter {
  readonly id: string;
  readonly listener: FinalListener;
  /** The bounded wait for the END; then the telling of the outcome. */
  timer: StandInTimer | undefined;
  /** How long it waits for the END: the recogniser's `endWaitMs` unless the goal says. */
  readonly endWaitMs: number | undefined;
}

/**
 * A recogniser's streamed goals as they wait: those naming an utterance not heard of yet, the
 * bounded wait for an END, and the telling of an INVALID outcome. The goals waiting on a held utterance
 * are in that utterance (`heldWaiters`); this only takes them out of it.
 */
export class FinalWaits {
  /** Goals naming an utterance not heard of yet, by its id. */
  readonly #pending = new Map<string, Set<Waiter>>();
  #invalidGoals = 0;

  constructor(
    readonly clock: StandInClock,
    readonly limits: Pick<RecogniserLimits, 'endWaitMs'>,
    /** The recogniser, as the reasons name it. */
    readonly name: string,
    readonly heldWaiters: (id: string) => Set<Waiter> | undefined,
    /** A goal's wait for the END ran out, with what it was told: its utterance may go now. */
    readonly endNeverCame: (id: string, why: string) => void,
  ) {}

  /** Goals answered INVALID so far. */
  get invalidGoals(): number {
    return this.#invalidGoals;
  }

  /** Goals waiting for an utterance not heard of yet. */
  pendingGoals(): number {
    let waitingGoals = 0;
    for (const waiting of this.#pending.values()) waitingGoals += waiting.size;
    return waitingGoals;
  }

  /** The goal's wait dropped, wherever it is (the goal was cancelled). */
  cancelOf(waiter: Waiter): StandInTimer {
    return {
      cancel: () => {
        waiter.timer?.cancel();
        waiter.timer = undefined;
        this.#leave(waiter);
      },
    };
  }

  /** A goal naming an utterance not heard of yet: it waits, bounded, for the END. */
  awaitUnheard(waiter: Waiter): void {
    const waiting = this.#pending.get(waiter.id) ?? new Set<Waiter>();
    waiting.add(waiter);
    this.#pending.set(waiter.id, waiting);
    this.waitForEnd(waiter);
  }

  /** The goals that were waiting for utterance `id`, now heard of: theirs to hold. */
  takePending(id: string): Set<Waiter> | undefined {
    const waiting = this.#pending.get(id);
    if (waiting !== undefined) this.#pending.delete(id);
    return waiting;
  }

  failPending(id: string, text: string): void {
    const waiting = this.takePending(id);
    if (waiting === undefined) return;
    for (const waiter of waiting) this.tellInvalid(waiter, text);
  }

  waitForEnd(waiter: Waiter): void {
    const endWaitMs = waiter.endWaitMs ?? this.limits.endWaitMs;
    waiter.timer = this.clock.later(endWaitMs, () => {
      waiter.timer = undefined;
      this.#leave(waiter);
      this.#invalidGoals += 1;
      const why = `${this.name} got no END of utterance ${waiter.id} within ${endWaitMs} ms of its goal`;
      this.endNeverCame(waiter.id, why);
      waiter.listener.invalid(why);
    });
  }

  /** Tells a waiter the final will not come, later (never from inside the caller's publish or goal). */
  tellInvalid(waiter: Waiter, text: string): void {
    waiter.timer?.cancel();
    waiter.timer = this.clock.later(0, () => {
      waiter.timer = undefined;
      this.#invalidGoals += 1;
      waiter.listener.invalid(text);
    });
  }

  /** Drops the pending goals without telling them: a closed port answers nothing. */
  close(): void {
    for (const waiting of this.#pending.values()) for (const waiter of waiting) waiter.timer?.cancel();
    this.#pending.clear();
  }

  #leave(waiter: Waiter): void {
    this.heldWaiters(waiter.id)?.delete(waiter);
    const waiting = this.#pending.get(waiter.id);
    waiting?.delete(waiter);
    if (waiting?.size === 0) this.#pending.delete(waiter.id);
  }
}
