import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { createFailureLog, FAILURE_SUMMARY_INTERVAL_MS } from '../../src/log/failure-log.js';
import { createLogger } from '../../src/log/logger.js';

/** A logger whose lines land, parsed, in `lines` (pino writes synchronously to a plain stream). */
const capturedLogger = () => {
  const lines: Record<string, unknown>[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      }
      done();
    },
  });
  return { log: createLogger('info', destination), lines };
};

describe('the failure log', () => {
  it('logs the first failure, one summary per interval and one line on recovery', async () => {
    const { log, lines } = capturedLogger();
    let clock = 0;
    const failures = createFailureLog(log, {
      keyField: 'service',
      firstMessage: 'request failed',
      now: () => clock,
    });
    // 1000 failures over 60 s of the test's clock: 60 ms apart.
    for (let index = 0; index < 1000; index += 1) {
      failures.failed('tour_list', new Error(`unavailable #${index}`), { reqId: `r${index}` });
      clock += 60;
    }
    failures.succeeded('tour_list');
    await new Promise((resolve) => setImmediate(resolve));

    // At most one summary per interval of the 60 s the failures lasted (the first one opens the run).
    const intervals = Math.floor((1000 * 60) / FAILURE_SUMMARY_INTERVAL_MS);
    const summaries = lines.length - 2;
    assert.ok(
      summaries >= intervals - 1 && summaries <= intervals,
      JSON.stringify(lines.map((line) => line['msg'])),
    );
    const [first, ...rest] = lines;
    const recovered = rest.pop();
    assert.ok(first !== undefined && recovered !== undefined);
    assert.equal(first['level'], 'warn');
    assert.equal(first['service'], 'tour_list');
    assert.equal(first['reqId'], 'r0');
    assert.equal(first['msg'], 'request failed');
    assert.equal(
      first['followUp'],
      'further failures of tour_list are summarised every 10 s until it answers',
    );
    assert.equal((first['err'] as { message: string }).message, 'unavailable #0');
    // A summary counts the failures since the line before; the recovery line counts them all.
    const summarised = rest.reduce((sum, line) => sum + Number(line['failures']), 0);
    for (const line of rest) {
      assert.equal(line['level'], 'warn');
      assert.match(String(line['msg']), /^tour_list still failing: \d+ more failures in 10(\.\d)? s$/);
      assert.match(String(line['lastError']), /^unavailable #\d+$/);
      assert.ok(Number(line['failures']) > 0);
    }
    assert.ok(summarised <= 999, `summarised ${summarised}`);
    assert.equal(recovered['level'], 'info');
    assert.equal(recovered['totalFailures'], 1000);
    assert.equal(recovered['lastError'], 'unavailable #999');
    assert.match(String(recovered['msg']), /^tour_list answers again after 1000 failures in 60 s$/);
  });

  it('keeps services apart and says nothing for a success without failures', async () => {
    const { log, lines } = capturedLogger();
    let clock = 0;
    const failures = createFailureLog(log, {
      keyField: 'service',
      firstMessage: 'request failed',
      now: () => clock,
    });
    failures.succeeded('tour_get');
    failures.failed('tour_list', new Error('a'));
    failures.failed('tour_get', new Error('b'));
    failures.failed('tour_get', new Error('c'));
    clock += 5;
    failures.succeeded('tour_get');
    failures.failed('tour_list', new Error('d'));
    // A new run after recovery starts with a first line again.
    failures.failed('tour_get', new Error('e'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      lines.map((line) => [line['level'], line['service'], line['msg']]),
      [
        ['warn', 'tour_list', 'request failed'],
        ['warn', 'tour_get', 'request failed'],
        ['info', 'tour_get', 'tour_get answers again after 2 failures in 0 s'],
        ['warn', 'tour_get', 'request failed'],
      ],
    );
  });
});
