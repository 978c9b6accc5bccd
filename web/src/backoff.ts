/**
 * Reconnect delays: exponential, capped, with "equal jitter" — half of each delay is fixed, half random.
 * The random half spreads a room of kiosks out after a service restart (no thundering herd); the fixed
 * half keeps a flapping link from being retried in a tight loop.
 */
export interface BackoffOptions {
  readonly baseMs: number;
  readonly capMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 500, capMs: 10_000 };

/** Delay before reconnect attempt `attempt` (0 for the first retry); `random` returns [0, 1). */
export const reconnectDelayMs = (
  attempt: number,
  random: () => number,
  { baseMs, capMs }: BackoffOptions = DEFAULT_BACKOFF,
): number => {
  // The exponent is bounded before use so a long outage cannot overflow to Infinity.
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
};
