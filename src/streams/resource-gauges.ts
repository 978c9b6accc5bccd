import { Observable, type MonoTypeOperatorFunction } from 'rxjs';

/** A value that goes up and down, read by metrics and by tests that prove nothing leaks. */
export class Gauge {
  #value = 0;
  get value(): number {
    return this.#value;
  }
  increment(): void {
    this.#value += 1;
  }
  decrement(): void {
    this.#value -= 1;
  }
}

/** What the conversation endpoint holds right now. Every count returns to 0 once all sessions have stopped. */
export interface ConversationGauges {
  /** Session actors started and not yet stopped. */
  readonly liveSessions: Gauge;
  /** Stream subscriptions held by sessions (play-audio, microphone and call queue: 3 per live session). */
  readonly openSubscriptions: Gauge;
  /** ROS service calls subscribed to and not yet answered, timed out or abandoned. */
  readonly inFlightRosCalls: Gauge;
}

export const createConversationGauges = (): ConversationGauges => ({
  liveSessions: new Gauge(),
  openSubscriptions: new Gauge(),
  inFlightRosCalls: new Gauge(),
});

export interface ConversationGaugeValues {
  readonly liveSessions: number;
  readonly openSubscriptions: number;
  readonly inFlightRosCalls: number;
}

export const readGauges = (gauges: ConversationGauges): ConversationGaugeValues => ({
  liveSessions: gauges.liveSessions.value,
  openSubscriptions: gauges.openSubscriptions.value,
  inFlightRosCalls: gauges.inFlightRosCalls.value,
});

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
