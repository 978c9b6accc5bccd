import type { BenchResults, MergedRun } from './results.js';

/**
 * A run of some scenarios put into an earlier results file of the same mode (`--merge`): those scenarios
 * are replaced, every other figure stays the earlier run's, and the later run is recorded beside them, so
 * the file still says where each figure comes from. An earlier merge keeps only the scenarios not replaced
 * again (none left: it goes). The targets are the caller's to judge again over the result.
 */
export const mergeResults = (
  base: BenchResults,
  run: Omit<BenchResults, 'targets' | 'merged'>,
): Omit<BenchResults, 'targets'> => {
  if (base.mode !== run.mode) {
    throw new Error(`--merge: the results file is a ${base.mode} run, this one is ${run.mode}`);
  }
  const replaced = Object.keys(run.scenarios);
  if (replaced.length === 0) throw new Error('--merge: this run measured no scenario');
  const record: MergedRun = {
    scenarios: replaced,
    startedAt: run.startedAt,
    durationS: run.durationS,
    quiet: run.quiet,
    settings: run.settings,
  };
  const { targets: _targets, merged = [], ...rest } = base;
  return {
    ...rest,
    scenarios: { ...base.scenarios, ...run.scenarios },
    merged: [
      ...merged.flatMap((earlier) => {
        const kept = earlier.scenarios.filter((name) => !replaced.includes(name));
        return kept.length === 0 ? [] : [{ ...earlier, scenarios: kept }];
      }),
      record,
    ],
  };
};
