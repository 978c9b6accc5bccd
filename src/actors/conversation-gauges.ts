import { Observable, type MonoTypeOperatorFunction } from 'rxjs';

/** A value that goes up and down, read by metrics and by tests that prove nothing leaks. */
export class Gauge {
  #value = 0;
  get value(): number {
    return this.#value;
  }
  increment(by = 1): void {
    this.#value += by;
  }
  decrement(by = 1): void {
    this.#value -= by;
  }
}

/** What the conversation endpoint holds right now. Every count returns to 0 once all sessions have stopped. */
export interface ConversationGauges {
  /** Session actors started and not yet stopped. */
  readonly liveSessions: Gauge;
  /** Stream subscriptions held by sessions (play-audio and microphone: 2 per live session). */
  readonly openSubscriptions: Gauge;
  /**
   * Bytes of kiosk audio held by the /chat calls of all sessions, running or waiting in their queues;
   * bounded by `maxQueuedAudioBytes` through `byteBudget`.
   */
  readonly queuedAudioBytes: Gauge;
}

export const createConversationGauges = (): ConversationGauges => ({
  liveSessions: new Gauge(),
  openSubscriptions: new Gauge(),
  queuedAudioBytes: new Gauge(),
});

export interface ConversationGaugeValues {
  readonly liveSessions: number;
  readonly openSubscriptions: number;
  /** ROS service calls made and not yet answered, timed out or abandoned (the call wrapper's count). */
  readonly inFlightRosCalls: number;
  readonly queuedAudioBytes: number;
}

export const readGauges = (
  gauges: ConversationGauges,
  calls: { readonly inFlight: number },
): ConversationGaugeValues => ({
  liveSessions: gauges.liveSessions.value,
  openSubscriptions: gauges.openSubscriptions.value,
  inFlightRosCalls: calls.inFlight,
  queuedAudioBytes: gauges.queuedAudioBytes.value,
});

/** Why bytes do not fit a budget: past the share of their holder, or past the whole limit. */
export type BudgetShortfall = 'share' | 'limit';

/** A cap on bytes held, shared by everyone who takes from it. */
export interface ByteBudget {
  readonly limit: number;
  /** What one holder (the sessions of one client address) may hold of `limit`; `limit` when unshared. */
  readonly share: number;
  /** Whether `bytes` would fit now. */
  fits(bytes: number): boolean;
  /** Why `bytes` would not fit now; undefined when they would. */
  shortfall(bytes: number): BudgetShortfall | undefined;
  /**
   * Takes `bytes` if they fit under the limit with what is already held. Returns the function that gives
   * them back (idempotent), or undefined when they do not fit (nothing is taken).
   */
  take(bytes: number): (() => void) | undefined;
}

/** A budget of `limit` bytes counted in `gauge`: budgets over the same gauge share the limit. */
export const byteBudget = (gauge: Gauge, limit: number): ByteBudget => ({
  limit,
  share: limit,
  fits: (bytes) => gauge.value + bytes <= limit,
  shortfall: (bytes) => (gauge.value + bytes <= limit ? undefined : 'limit'),
  take: (bytes) => {
    if (gauge.value + bytes > limit) return undefined;
    gauge.increment(bytes);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      gauge.decrement(bytes);
    };
  },
});

/**
 * A budget of `limit` bytes (counted in `gauge`) of which each holder key (a client address) may hold at
 * most `share`: a few addresses cannot take it all, so the others always find room. `budgetFor(key)` is
 * one holder's view; what a key holds is forgotten when it holds nothing.
 */
export interface SharedByteBudget {
  readonly limit: number;
  readonly share: number;
  budgetFor(key: string): ByteBudget;
  /** Bytes held by `key` now (0 for a key holding nothing). */
  heldBy(key: string): number;
}

export const sharedByteBudget = (gauge: Gauge, limit: number, share: number): SharedByteBudget => {
  const heldByKey = new Map<string, number>();
  const heldBy = (key: string): number => heldByKey.get(key) ?? 0;
  const shortfall = (key: string, bytes: number): BudgetShortfall | undefined => {
    if (gauge.value + bytes > limit) return 'limit';
    if (bytes > 0 && heldBy(key) + bytes > share) return 'share';
    return undefined;
  };
  return {
    limit,
    share,
    heldBy,
    budgetFor: (key) => ({
      limit,
      share,
      fits: (bytes) => shortfall(key, bytes) === undefined,
      shortfall: (bytes) => shortfall(key, bytes),
      take: (bytes) => {
        if (shortfall(key, bytes) !== undefined) return undefined;
        gauge.increment(bytes);
        heldByKey.set(key, heldBy(key) + bytes);
        let held = true;
        return () => {
          if (!held) return;
          held = false;
          gauge.decrement(bytes);
          const left = heldBy(key) - bytes;
          if (left <= 0) heldByKey.delete(key);
          else heldByKey.set(key, left);
        };
      },
    }),
  };
};

/** Counts the subscription in `gauge` from subscribe until it ends, however it ends. */
export const trackSubscription =
  <T>(gauge: Gauge): MonoTypeOperatorFunction<T> =>
  (source) =>
    new Observable<T>((subscriber) => {
      gauge.increment();
      const subscription = source.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        gauge.decrement();
      };
    });
