import { repeat, retry, timer, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';

export interface ResubscribeOptions {
  readonly delayMs: number;
  readonly scheduler: SchedulerLike;
  /** Told each time the source failed (its error) or ended (an Error saying so), before the delay. */
  readonly onRestart: (error: unknown) => void;
}

/**
 * Keeps a long-lived source going: when it fails or ends, subscribe again after `delayMs`. The ROS
 * port's streams (/play_audio, the microphone requests) are followed this way, so a broken or ended
 * subscription never ends the sessions that follow them. test/unit/resubscribe.marble.test.ts pins it.
 */
export const resubscribing =
  <T>(name: string, { delayMs, scheduler, onRestart }: ResubscribeOptions): MonoTypeOperatorFunction<T> =>
  (source) =>
    source.pipe(
      retry({
        delay: (error: unknown) => {
          onRestart(error);
          return timer(delayMs, scheduler);
        },
      }),
      repeat({
        delay: () => {
          onRestart(new Error(`the ${name} stream ended`));
          return timer(delayMs, scheduler);
        },
      }),
    );
