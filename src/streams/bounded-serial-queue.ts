import {
  Observable,
  Subject,
  catchError,
  concatMap,
  defer,
  first,
  map,
  of,
  type OperatorFunction,
} from 'rxjs';

/** What became of one item offered to a bounded serial queue. Every item gets exactly one outcome. */
export type QueueOutcome<T, R> =
  | { readonly kind: 'done'; readonly item: T; readonly value: R }
  | { readonly kind: 'failed'; readonly item: T; readonly error: unknown }
  /** Not queued: `full`, the queue had no room; `refused`, `reserve` refused the item. */
  | { readonly kind: 'busy'; readonly item: T; readonly reason: 'full' | 'refused' };

/**
 * Asked for each item the queue has room for, before it is admitted: returns the function that gives back
 * what the item holds, or undefined to refuse the item (a `busy` outcome). The queue calls the returned
 * function exactly once: just before the item's outcome is emitted, or when the queue is unsubscribed.
 */
export type Reserve<T> = (item: T) => (() => void) | undefined;

const NOTHING_HELD = (): void => undefined;

/**
 * Runs `run(item)` for one item at a time, in arrival order, with at most `maxWaiting` items waiting behind
 * the running one. An item arriving when the queue is full is not queued: it gets a `busy` outcome at once
 * (so a `busy` can overtake outcomes of earlier items). Only the first value of each run counts; errors become
 * `failed` outcomes, so one failing item never ends the queue.
 *
 * Unsubscribing drops the waiting items and unsubscribes the running one. When the source completes, the
 * admitted items still run, then the output completes. With `reserve`, an item the queue has room for is
 * admitted only if `reserve` accepts it, and what it reserved is released when its outcome is emitted or the
 * queue is unsubscribed, whichever comes first.
 */
export const boundedSerialQueue =
  <T, R>(
    run: (item: T) => Observable<R>,
    maxWaiting: number,
    reserve?: Reserve<T>,
  ): OperatorFunction<T, QueueOutcome<T, R>> =>
  (source) =>
    new Observable<QueueOutcome<T, R>>((subscriber) => {
      const capacity = 1 + Math.max(0, maxWaiting);
      // Items admitted whose outcome has not been emitted yet: the running one plus the waiting ones.
      let admitted = 0;
      // Their releases, in admission order (the order of their outcomes).
      const releases: (() => void)[] = [];
      const admittedItems = new Subject<T>();

      const subscription = admittedItems
        .pipe(
          concatMap((item) =>
            defer(() => run(item)).pipe(
              first(),
              map((value): QueueOutcome<T, R> => ({ kind: 'done', item, value })),
              catchError((error: unknown) => of<QueueOutcome<T, R>>({ kind: 'failed', item, error })),
            ),
          ),
        )
        .subscribe({
          next: (outcome) => {
            // Freed before the outcome is delivered, so a subscriber that offers a new item in reaction finds room.
            admitted -= 1;
            releases.shift()?.();
            subscriber.next(outcome);
          },
          error: (error: unknown) => {
            subscriber.error(error);
          },
          complete: () => {
            subscriber.complete();
          },
        });

      subscription.add(
        source.subscribe({
          next: (item) => {
            if (admitted >= capacity) {
              subscriber.next({ kind: 'busy', item, reason: 'full' });
              return;
            }
            const release = reserve === undefined ? NOTHING_HELD : reserve(item);
            if (release === undefined) {
              subscriber.next({ kind: 'busy', item, reason: 'refused' });
              return;
            }
            admitted += 1;
            releases.push(release);
            admittedItems.next(item);
          },
          error: (error: unknown) => {
            subscriber.error(error);
          },
          complete: () => {
            admittedItems.complete();
          },
        }),
      );
      // Unsubscribed (or failed): the running and waiting items give back what they hold.
      subscription.add(() => {
        for (const release of releases.splice(0)) release();
      });
      return subscription;
    });
