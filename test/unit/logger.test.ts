import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/log/logger.js';

const capture = () => {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, stream };
};

describe('logger', () => {
  it('maps critical to pino fatal and filters below the level', () => {
    const { lines, stream } = capture();
    const log = createLogger('critical', stream);
    log.error('hidden');
    log.fatal('shown');
    assert.deepEqual(
      lines.map((line) => [line['level'], line['msg']]),
      [['fatal', 'shown']],
    );
  });

  it('writes one JSON line per event with child bindings such as the request id', () => {
    const { lines, stream } = capture();
    createLogger('debug', stream).child({ reqId: 'r-1' }).debug({ status: 200 }, 'request');
    assert.equal(lines.length, 1);
    assert.deepEqual([lines[0]!['reqId'], lines[0]!['status'], lines[0]!['level']], ['r-1', 200, 'debug']);
  });
});
