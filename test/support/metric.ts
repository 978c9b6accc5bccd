/** One sample of the service's /metrics, by the start of its line (name and labels); NaN when absent. */
export const metric = async (baseUrl: string, name: string): Promise<number> => {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const line = text.split('\n').find((row) => row.startsWith(name));
  return Number(line?.split(' ').at(-1) ?? Number.NaN);
};
