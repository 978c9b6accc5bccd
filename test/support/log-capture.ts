import { Writable } from 'node:stream';

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
