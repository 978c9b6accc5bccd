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

/** What a shared budget's holders share: the gauge, the limits, and what each key holds. */
interface SharedHolding {
  readonly gauge: Gauge;
  readonly limit: number;
  readonly share: number;
  readonly heldByKey: Map<string, number>;
}

/** One key's view of a shared budget: methods on the prototype, so a session's view is two fields. */
class KeyBudget implements ByteBudget {
  constructor(
    readonly holding: SharedHolding,
    readonly key: string,
  ) {}

  get limit(): number {
    return this.holding.limit;
  }

  get share(): number {
    return this.holding.share;
  }

  fits(bytes: number): boolean {
    return this.shortfall(bytes) === undefined;
  }

  shortfall(bytes: number): BudgetShortfall | undefined {
    const { gauge, limit, share, heldByKey } = this.holding;
    if (gauge.value + bytes > limit) return 'limit';
    if (bytes > 0 && (heldByKey.get(this.key) ?? 0) + bytes > share) return 'share';
    return undefined;
  }

  take(bytes: number): (() => void) | undefined {
    if (this.shortfall(bytes) !== undefined) return undefined;
    const { gauge, heldByKey } = this.holding;
    const { key } = this;
    gauge.increment(bytes);
    heldByKey.set(key, (heldByKey.get(key) ?? 0) + bytes);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      gauge.decrement(bytes);
      const left = (heldByKey.get(key) ?? 0) - bytes;
      if (left <= 0) heldByKey.delete(key);
      else heldByKey.set(key, left);
    };
  }
}

export const sharedByteBudget = (gauge: Gauge, limit: number, share: number): SharedByteBudget => {
  const holding: SharedHolding = { gauge, limit, share, heldByKey: new Map() };
  return {
    limit,
    share,
    heldBy: (key) => holding.heldByKey.get(key) ?? 0,
    budgetFor: (key) => new KeyBudget(holding, key),
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
