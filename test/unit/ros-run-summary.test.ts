import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runOutcome, tapCounts } from '../ros/tap-summary.js';

/** The end of a node:test TAP report with these counts. */
const tapEnd = (counts: Record<string, number>): string =>
  [
    'TAP version 13',
    ...Object.entries(counts).map(([key, value]) => `# ${key} ${String(value)}`),
    '# duration_ms 1234.5',
    '',
  ].join('\n');

describe('the summary of a real-graph run (npm run test:ros)', () => {
  it('reads the counts at the end of a TAP report', () => {
    assert.deepEqual(tapCounts(tapEnd({ tests: 31, pass: 30, fail: 1, cancelled: 0, skipped: 0 })), {
      tests: 31,
      pass: 30,
      fail: 1,
      cancelled: 0,
      skipped: 0,
      duration_ms: 1234.5,
    });
  });

  it('fails a run whose graph did not come up: every test cancelled, none failed', () => {
    // What node:test reports when `before` (starting the graph) throws.
    const outcome = runOutcome(1, tapEnd({ tests: 31, suites: 3, pass: 0, fail: 0, cancelled: 31 }));
    assert.equal(outcome.passed, false);
    assert.equal(outcome.summary, '31 tests, 0 passed, 0 failed, 31 cancelled, 0 skipped');
  });

  it('fails on one cancelled test even when the process exited 0 and the rest passed', () => {
    const outcome = runOutcome(0, tapEnd({ tests: 31, pass: 30, fail: 0, cancelled: 1 }));
    assert.equal(outcome.passed, false);
    assert.match(outcome.summary, /30 passed, 0 failed, 1 cancelled/);
  });

  it('passes only with tests passed, none failed or cancelled, exit 0', () => {
    assert.deepEqual(runOutcome(0, tapEnd({ tests: 31, pass: 31, fail: 0, cancelled: 0, skipped: 0 })), {
      passed: true,
      summary: '31 tests, 31 passed, 0 failed, 0 cancelled, 0 skipped',
    });
    assert.equal(runOutcome(0, tapEnd({ tests: 31, pass: 30, fail: 1 })).passed, false);
    assert.equal(runOutcome(1, tapEnd({ tests: 31, pass: 31 })).passed, false);
    assert.deepEqual(runOutcome(0, ''), { passed: false, summary: 'no test report' });
  });
});
