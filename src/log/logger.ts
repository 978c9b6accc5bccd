import { pino, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

// The spec's level names; pino calls its most severe level "fatal".
/** The spec's log levels (`--log_level`). */
export const LOG_LEVELS = ['critical', 'error', 'info', 'warn', 'debug'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

const PINO_LEVEL: Record<LogLevel, pino.Level> = {
  critical: 'fatal',
  error: 'error',
  warn: 'warn',
  info: 'info',
  debug: 'debug',
};

/** One JSON line per event on stdout (or the given stream, for tests). */
export const createLogger = (level: LogLevel, destination?: DestinationStream): Logger =>
  pino(
    {
      name: 'tour-bridge',
      level: PINO_LEVEL[level],
      base: { pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
