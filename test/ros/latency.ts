/** Percentiles of a set of measured durations (nearest rank). */
export interface LatencySummary {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

const nearestRank = (sorted: readonly number[], percent: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((percent / 100) * sorted.length) - 1))] ?? NaN;

export const summarise = (samplesMs: readonly number[]): LatencySummary => {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: nearestRank(sorted, 50),
    p90: nearestRank(sorted, 90),
    p99: nearestRank(sorted, 99),
    max: sorted.at(-1) ?? NaN,
    mean: sorted.reduce((sum, value) => sum + value, 0) / Math.max(1, sorted.length),
  };
};

const ms = (value: number) => `${value.toFixed(2)} ms`;

export const formatLatencies = (label: string, summary: LatencySummary): string =>
  `${label}: p50 ${ms(summary.p50)}, p90 ${ms(summary.p90)}, p99 ${ms(summary.p99)}, ` +
  `max ${ms(summary.max)}, mean ${ms(summary.mean)}`;

/** The small tour the latency measurements fetch: three steps, one with nulls and one with an empty dialogue. */
export const latencyTour = (tourName: string) => ({
  tour_name: tourName,
  map_name: 'floor-1',
  steps: [
    { description: 'Entrance', destination: 'door', dialogue: 'Welcome!' },
    { description: 'Hall', destination: null, dialogue: null },
    { description: 'Exit', destination: 'gate', dialogue: '' },
  ],
});
