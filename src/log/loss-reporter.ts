import type { Logger } from 'pino';

export interface LossReporter {
  /** One more item lost, `bytes` of it. */
  lost(bytes: number): void;
  /** Logs what is still unreported and stops the timer. */
  close(): void;
}

export interface LossReporterOptions {
  readonly log: Logger;
  /** The message of each line, e.g. `/play_audio messages dropped: buffer full`. */
  readonly message: string;
  /** Fields of every line (the limit that was passed, …). */
  readonly fields?: Record<string, unknown>;
  /** Lines at most once per this many ms after the first; default 10 s. */
  readonly intervalMs?: number;
}

/**
 * A warning when something starts being lost, then at most one line per interval with how many were
 * lost since the last line, until an interval passes without loss: a burst dropping thousands of
 * messages writes a few lines, not thousands, and an operator still sees the first loss at once.
 */
export const createLossReporter = ({
  log,
  message,
  fields = {},
  intervalMs = 10_000,
}: LossReporterOptions): LossReporter => {
  let total = 0;
  let pending = { count: 0, bytes: 0 };
  let timer: NodeJS.Timeout | undefined;
  const flush = (): boolean => {
    if (pending.count === 0) return false;
    log.warn(
      { ...fields, dropped: pending.count, droppedBytes: pending.bytes, droppedTotal: total },
      message,
    );
    pending = { count: 0, bytes: 0 };
    return true;
  };
  const tick = () => {
    // Quiet for a whole interval: the next loss is logged at once again.
    if (!flush()) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  return {
    lost: (bytes) => {
      total += 1;
      pending.count += 1;
      pending.bytes += bytes;
      if (timer !== undefined) return;
      flush();
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    close: () => {
      flush();
      clearInterval(timer);
      timer = undefined;
    },
  };
};
