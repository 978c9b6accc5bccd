/** `/health` asked every 10 ms (at most 500 times) while `during` runs; the answer times, in milliseconds. */
export const healthWhile = async (baseUrl: string, during: Promise<unknown>): Promise<number[]> => {
  const times: number[] = [];
  const state = { done: false };
  void during.finally(() => (state.done = true));
  for (let probe = 0; probe < 500 && !state.done; probe += 1) {
    const started = performance.now();
    await fetch(`${baseUrl}/health`);
    times.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return times;
};
