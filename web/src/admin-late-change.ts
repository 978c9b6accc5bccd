/**
 * A change the robot did not confirm in time may still be made: the robot carries out a request it has
 * received even after the bridge stopped waiting. This reads back a few times, with growing pauses,
 * whether it was made, and tells the first yes or, after the last try, what the last read found.
 */

/** Pauses before each read-back: 7 s in all, past the time a slow robot takes to catch up. */
export const LATE_CHECK_PAUSES_MS: readonly number[] = [1_000, 2_000, 4_000];

/** What one read-back found: the change, no change, or nothing (the robot did not answer it either). */
export type ReadBack = 'made' | 'not made' | 'unknown';

export interface LateCheck {
  /** Stops checking (another change, another tour): nothing more is told. */
  cancel(): void;
}

/**
 * `read` reads the robot. `settled` hears 'made' at the first read that finds the change, or after the
 * last read what that one found. Bounded: one read per pause.
 */
export const checkLateChange = (
  read: () => Promise<ReadBack>,
  settled: (found: ReadBack) => void,
  pausesMs: readonly number[] = LATE_CHECK_PAUSES_MS,
): LateCheck => {
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const attempt = (index: number): void => {
    timer = setTimeout(() => {
      void read()
        .catch((): ReadBack => 'unknown')
        .then((found) => {
          if (cancelled) return;
          if (found === 'made' || index + 1 >= pausesMs.length) settled(found);
          else attempt(index + 1);
        });
    }, pausesMs[index]);
  };
  if (pausesMs.length === 0) settled('unknown');
  else attempt(0);
  return {
    cancel: () => {
      cancelled = true;
      clearTimeout(timer);
    },
  };
};
