/**
 * Counters and histograms kept as plain numbers and handed to prom-client only at scrape time. A child is
 * bound once (by the route, the socket, the reason) and counting is an addition to its `value`, done where
 * the thing counted happens. Nothing here needs prom-client, which is loaded only at the first scrape
 * (./bridge-metrics.ts).
 */

type Labels = Record<string, string>;

/** One line of the exposition: prom-client renders `metricName` (default: the family's name) and labels. */
export interface ExportedValue {
  readonly value: number;
  readonly labels: Labels;
  readonly metricName?: string;
}

/**
 * What prom-client's registry asks of a metric at scrape time (its `get()`). prom-client's typings name
 * the type with an enum its runtime does not use (the registry prints `type` as it is), hence our own.
 */
interface ExportedFamily {
  readonly name: string;
  readonly help: string;
  readonly type: 'counter' | 'gauge' | 'histogram';
  readonly aggregator: 'sum';
  readonly values: readonly ExportedValue[];
}

/** A family the registry renders at scrape time: it calls get() and reset(), all of its Metric interface it uses. */
export interface ScrapedFamily {
  readonly name: string;
  get(): Promise<ExportedFamily>;
  reset(): void;
}

const labelsOf = (names: readonly string[], values: readonly string[]): Labels =>
  Object.fromEntries(names.map((name, index) => [name, values[index] ?? '']));

/** A count: whoever counts adds to `value`. */
export class PlainCounter {
  value = 0;
  constructor(readonly labels: Labels) {}
}

export class PlainHistogram {
  readonly counts: number[];
  sum = 0;
  count = 0;
  constructor(
    readonly labels: Labels,
    private readonly upperBounds: readonly number[],
  ) {
    this.counts = upperBounds.map(() => 0);
  }
  observe(value: number): void {
    this.sum += value;
    this.count += 1;
    // Buckets are cumulative when exported; here each value counts in its first bucket only.
    for (let index = 0; index < this.upperBounds.length; index += 1) {
      if (value <= (this.upperBounds[index] ?? Number.POSITIVE_INFINITY)) {
        this.counts[index] = (this.counts[index] ?? 0) + 1;
        return;
      }
    }
  }
}

/** A family as prom-client's registry asks for it at scrape time. */
const exported = (
  family: Pick<ExportedFamily, 'name' | 'help' | 'type' | 'aggregator'>,
  values: readonly ExportedValue[],
): Promise<ExportedFamily> =>
  Promise.resolve({
    name: family.name,
    help: family.help,
    type: family.type,
    aggregator: family.aggregator,
    values,
  });

abstract class PlainFamily<Child> implements ScrapedFamily {
  abstract readonly type: ExportedFamily['type'];
  readonly aggregator = 'sum' as const;
  readonly #children = new Map<string, Child>();

  constructor(
    readonly name: string,
    readonly help: string,
    protected readonly labelNames: readonly string[],
  ) {}

  protected abstract create(labels: Labels): Child;
  protected abstract values(children: Iterable<Child>): ExportedValue[];

  /** The child for these label values (in `labelNames` order), made on first use. Bind it once. */
  child(...labelValues: string[]): Child {
    const key = labelValues.join('\u0000');
    let child = this.#children.get(key);
    if (child === undefined) {
      child = this.create(labelsOf(this.labelNames, labelValues));
      this.#children.set(key, child);
    }
    return child;
  }

  get(): Promise<ExportedFamily> {
    return exported(this, this.values(this.#children.values()));
  }

  reset(): void {
    this.#children.clear();
  }
}

export class CounterFamily extends PlainFamily<PlainCounter> {
  readonly type = 'counter' as const;
  protected create(labels: Labels): PlainCounter {
    return new PlainCounter(labels);
  }
  protected values(children: Iterable<PlainCounter>): ExportedValue[] {
    return [...children].map((child) => ({ labels: child.labels, value: child.value }));
  }
}

export class HistogramFamily extends PlainFamily<PlainHistogram> {
  readonly type = 'histogram' as const;
  constructor(
    name: string,
    help: string,
    labelNames: readonly string[],
    private readonly upperBounds: readonly number[],
  ) {
    super(name, help, labelNames);
  }
  protected create(labels: Labels): PlainHistogram {
    return new PlainHistogram(labels, this.upperBounds);
  }
  protected values(children: Iterable<PlainHistogram>): ExportedValue[] {
    return [...children].flatMap((child) =>
      histogramValues(this.name, this.upperBounds, child.labels, child),
    );
  }
}

/**
 * One histogram child's lines: its buckets cumulative (`counts[i]`: the values in bucket i only), then the
 * `+Inf` bucket, the sum and the count.
 */
export const histogramValues = (
  name: string,
  upperBounds: readonly number[],
  labels: Labels,
  {
    counts,
    sum,
    count,
  }: { readonly counts: readonly number[]; readonly sum: number; readonly count: number },
): ExportedValue[] => {
  let cumulative = 0;
  const values: ExportedValue[] = upperBounds.map((bound, index) => {
    cumulative += counts[index] ?? 0;
    return { metricName: `${name}_bucket`, labels: { ...labels, le: String(bound) }, value: cumulative };
  });
  values.push(
    { metricName: `${name}_bucket`, labels: { ...labels, le: '+Inf' }, value: count },
    { metricName: `${name}_sum`, labels, value: sum },
    { metricName: `${name}_count`, labels, value: count },
  );
  return values;
};

/** A family whose samples are read from whoever holds them, at scrape time. */
export class ReadFamily implements ScrapedFamily {
  readonly aggregator = 'sum' as const;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: ExportedFamily['type'],
    private readonly read: () => readonly {
      readonly value: number;
      readonly labels?: Labels;
      readonly metricName?: string;
    }[],
  ) {}

  get(): Promise<ExportedFamily> {
    return exported(
      this,
      this.read().map(({ value, labels = {}, metricName }) =>
        metricName === undefined ? { value, labels } : { value, labels, metricName },
      ),
    );
  }

  reset(): void {
    // Nothing is held: the values are read each time.
  }
}
