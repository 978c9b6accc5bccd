/**
 * Runs every step of a suite's teardown even when one before it fails, so nothing is left running or on
 * disk, then throws the first failure.
 */
export const tearDownAll = async (steps: readonly (() => unknown)[]): Promise<void> => {
  const failures: unknown[] = [];
  for (const step of steps) {
    try {
      await step();
    } catch (error) {
      failures.push(error);
    }
  }
  if (failures.length > 0) throw failures[0];
};
