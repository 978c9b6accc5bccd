import type { Logger } from 'pino';

/**
 * Log lines for a run of failures of one thing (a ROS service), bounded however often it fails: the first
 * failure is logged, then at most one summary per interval (the count since the last line and the last
 * error) while failures go on, then one line when it succeeds again. A tour store that was down while
 * clients retried once wrote ~4,500 warn lines in 4 s, one per 503.
 */

export const FAILURE_SUMMARY_INTERVAL_MS = 10_000;

interface Streak {
  /** Failures since the first one. */
  total: number;
  /** Failures since the last line. */
  unlogged: number;
  readonly since: number;
  lastLineAt: number;
  lastError: string;
}

export interface FailureLogOptions {
  /** The field naming the key in each line, e.g. `service`. */
  readonly keyField: string;
  /** The message of a run's first line, e.g. `request failed` as every other failed request logs. */
  readonly firstMessage: string;
  readonly summaryIntervalMs?: number;
  /** The level of a run's first line and of its summaries; `warn` unless the failure loses something. */
  readonly level?: 'warn' | 'error';
  /** Milliseconds, monotonic; `performance.now` unless a test drives the clock. */
  readonly now?: () => number;
}

export interface FailureLog {
  /** A failure of `key`; `fields` go on the line if one is written (the first failure's request id). */
  failed(key: string, error: Error, fields?: Readonly<Record<string, unknown>>): void;
  /** `key` answered: ends its run of failures, if any, with one line. */
  succeeded(key: string): void;
}

export const createFailureLog = (log: Logger, options: FailureLogOptions): FailureLog => {
  const { keyField } = options;
  const interval = options.summaryIntervalMs ?? FAILURE_SUMMARY_INTERVAL_MS;
  const now = options.now ?? (() => performance.now());
  const level = options.level ?? 'warn';
  const streaks = new Map<string, Streak>();
  const seconds = (ms: number) => Math.round(ms / 100) / 10;

  return {
    failed: (key, error, fields) => {
      const at = now();
      const streak = streaks.get(key);
      if (streak === undefined) {
        streaks.set(key, { total: 1, unlogged: 0, since: at, lastLineAt: at, lastError: error.message });
        log[level](
          {
            ...fields,
            [keyField]: key,
            err: error,
            followUp: `further failures of ${key} are summarised every ${seconds(interval)} s until it answers`,
          },
          options.firstMessage,
        );
        return;
      }
      streak.total += 1;
      streak.unlogged += 1;
      streak.lastError = error.message;
      if (at - streak.lastLineAt < interval) return;
      log[level](
        {
          [keyField]: key,
          failures: streak.unlogged,
          totalFailures: streak.total,
          failingForS: seconds(at - streak.since),
          lastError: streak.lastError,
        },
        `${key} still failing: ${streak.unlogged} more failures in ${seconds(at - streak.lastLineAt)} s`,
      );
      streak.unlogged = 0;
      streak.lastLineAt = at;
    },
    succeeded: (key) => {
      if (streaks.size === 0) return;
      const streak = streaks.get(key);
      if (streak === undefined) return;
      streaks.delete(key);
      const failingFor = seconds(now() - streak.since);
      log.info(
        {
          [keyField]: key,
          totalFailures: streak.total,
          failingForS: failingFor,
          lastError: streak.lastError,
        },
        `${key} answers again after ${streak.total} failures in ${failingFor} s`,
      );
    },
  };
};
