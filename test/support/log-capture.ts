import { Writable } from 'node:stream';
import { pino, type Level, type Logger } from 'pino';

/** One line a logger wrote, parsed: pino's numeric level, the message, and the line's other fields. */
export interface LogLine {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

/** A pino destination that keeps every line, parsed, for tests that assert on logs. */
export const logCapture = (lines: Record<string, unknown>[]): Writable =>
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });

/**
 * A logger at `level` (debug when not given) that keeps each line it writes, parsed, in `lines`, in the
 * order written (logCapture): the line is there when the logging call returns.
 */
export const capturingLogger = (
  level: Level = 'debug',
): { readonly logger: Logger; readonly lines: LogLine[] } => {
  const lines: LogLine[] = [];
  return { logger: pino({ level }, logCapture(lines)), lines };
};
