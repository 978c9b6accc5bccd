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
  | { readonly kind: 'busy'; readonly item: T };

/**
 * Runs `run(item)` for one item at a time, in arrival order, with at most `maxWaiting` items waiting behind
 * the running one. An item arriving when the queue is full is not queued: it gets a `busy` outcome at once
 * (so a `busy` can overtake outcomes of earlier items). Only the first value of each run counts; errors become
 * `failed` outcomes, so one failing item never ends the queue.
 *
 * Unsubscribing drops the waiting items and unsubscribes the running one. When the source completes, the
 * admitted items still run, then the output completes.
 */
export const boundedSerialQueue =
  <T, R>(run: (item: T) => Observable<R>, maxWaiting: number): OperatorFunction<T, QueueOutcome<T, R>> =>
  (source) =>
    new Observable<QueueOutcome<T, R>>((subscriber) => {
      const capacity = 1 + Math.max(0, maxWaiting);
      // Items admitted whose outcome has not been emitted yet: the running one plus the waiting ones.
      let admitted = 0;
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
              subscriber.next({ kind: 'busy', item });
              return;
            }
            admitted += 1;
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
      return subscription;
    });
