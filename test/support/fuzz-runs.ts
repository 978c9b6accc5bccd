/**
 * How many cases each property runs: a bounded number in `npm test` (CI), more in `npm run fuzz`
 * (FUZZ_RUNS=…). Every property is bounded either way.
 */
export const fuzzRuns = (inTests: number): number => {
  const configured = Number(process.env['FUZZ_RUNS']);
  return Number.isInteger(configured) && configured > 0 ? Math.min(configured, 1_000_000) : inTests;
};
