import { Observable, type MonoTypeOperatorFunction } from 'rxjs';

/** A value that goes up and down, read by metrics and by tests that prove nothing leaks. */
export class Gauge {
  value = 0;
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

/** Counts the subscription in `gauge` from subscribe until it ends, however it ends. */
export const trackSubscription =
  <T>(gauge: Gauge): MonoTypeOperatorFunction<T> =>
  (source) =>
    new Observable<T>((subscriber) => {
      gauge.value += 1;
      const subscription = source.subscribe(subscriber);
      return () => {
        subscription.unsubscribe();
        gauge.value -= 1;
      };
    });
