import { pino, type Logger, type DestinationStream } from 'pino';

import type { LogLevel } from '../cli/options.js';

export type { Logger } from 'pino';

// The spec's level names; pino calls its most severe level "fatal".
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
