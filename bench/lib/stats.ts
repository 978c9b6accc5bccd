/** Latency figures in milliseconds. */
export interface LatencySummary {
  readonly samples: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

/** Nearest-rank percentile of sorted values (p in 0..100). */
export const percentileOfSorted = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length)));
  return sorted[rank - 1] ?? Number.NaN;
};

export const summarize = (values: readonly number[]): LatencySummary => {
  const sorted = [...values].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    samples: sorted.length,
    p50: percentileOfSorted(sorted, 50),
    p99: percentileOfSorted(sorted, 99),
    max: sorted.at(-1) ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : sum / sorted.length,
  };
};

export const round = (value: number, digits = 3): number => {
  if (!Number.isFinite(value)) return value;
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

export const ratio = (value: number, reference: number): number =>
  reference > 0 && Number.isFinite(value) ? round(value / reference, 2) : Number.NaN;

/** The middle value (the lower of the two middles for an even count); NaN for none. */
export const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
};
