/** The outcome of a contract run from its TAP report (test/ros/run-contract.ts). */

/** The counts at the end of a TAP report (`# tests 30` …). */
export const tapCounts = (tap: string): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const match of tap.matchAll(
    /^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms) ([\d.]+)$/gm,
  )) {
    counts[match[1] ?? ''] = Number(match[2]);
  }
  return counts;
};

export interface RunOutcome {
  readonly passed: boolean;
  /** `31 tests, 31 passed, 0 failed, 0 cancelled, 0 skipped`, or `no test report`. */
  readonly summary: string;
}

/**
 * Passed only when the test process exited 0, something passed, nothing failed and nothing was
 * cancelled: a graph that did not come up fails `before`, and node:test then reports every test as
 * cancelled, not failed (a run once read `0 passed, 0 failed` with all 31 tests cancelled).
 */
export const runOutcome = (exitCode: number, tap: string): RunOutcome => {
  const counts = tapCounts(tap);
  const count = (key: string) => counts[key] ?? 0;
  const summary =
    counts['tests'] === undefined
      ? 'no test report'
      : `${count('tests')} tests, ${count('pass')} passed, ${count('fail')} failed, ` +
        `${count('cancelled')} cancelled, ${count('skipped')} skipped`;
  const passed = exitCode === 0 && count('pass') > 0 && count('fail') === 0 && count('cancelled') === 0;
  return { passed, summary };
};
