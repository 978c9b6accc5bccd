/**
 * The time the reference nodes' stand-ins wait on (the recogniser's cost, the wait for an utterance's
 * END), injected so their tests run on a clock they move by hand.
 */
export interface StandInClock {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const REAL_CLOCK: StandInClock = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => {
    clearTimeout(handle as NodeJS.Timeout);
  },
};
