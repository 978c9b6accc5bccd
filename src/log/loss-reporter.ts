import type { Logger } from 'pino';

export interface LossReporter {
  /** One more item lost, `bytes` of it; `latest` (what the last one was) goes on the next line. */
  lost(bytes: number, latest?: Readonly<Record<string, unknown>>): void;
  /** `count` more items lost at once, their bytes unknown (a middleware's or a kiosk's count). */
  lostMany(count: number): void;
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
  /** What the counts are called on a line: `dropped` (default) gives `dropped`, `droppedTotal`. */
  readonly countField?: string;
  /** Whether lines carry the bytes lost (`droppedBytes`); default true. */
  readonly withBytes?: boolean;
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
  countField = 'dropped',
  withBytes = true,
}: LossReporterOptions): LossReporter => {
  let total = 0;
  let pending = { count: 0, bytes: 0 };
  let latestFields: Readonly<Record<string, unknown>> | undefined;
  let timer: NodeJS.Timeout | undefined;
  const flush = (): boolean => {
    if (pending.count === 0) return false;
    log.warn(
      {
        ...fields,
        ...latestFields,
        [countField]: pending.count,
        ...(withBytes ? { [`${countField}Bytes`]: pending.bytes } : {}),
        [`${countField}Total`]: total,
      },
      message,
    );
    pending = { count: 0, bytes: 0 };
    latestFields = undefined;
    return true;
  };
  const tick = () => {
    // Quiet for a whole interval: the next loss is logged at once again.
    if (!flush()) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const add = (count: number, bytes: number, latest: Readonly<Record<string, unknown>> | undefined) => {
    total += count;
    pending.count += count;
    pending.bytes += bytes;
    latestFields = latest;
    if (timer !== undefined) return;
    flush();
    timer = setInterval(tick, intervalMs);
    timer.unref();
  };
  return {
    lost: (bytes, latest) => {
      add(1, bytes, latest);
    },
    lostMany: (count) => {
      // A count from outside (the middleware's) is taken as it is, in one step, however large.
      if (Number.isSafeInteger(count) && count > 0) add(count, 0, undefined);
    },
    close: () => {
      flush();
      clearInterval(timer);
      timer = undefined;
    },
  };
};
