/**
 * Counters and histograms counted in plain numbers on the hot paths and handed to prom-client only at
 * scrape time. prom-client's own `inc()`/`observe()` validate and hash their labels on every call, even
 * on a bound child; that was a visible share of an HTTP request's CPU (docs/performance.md). A child here
 * is bound once (by the route, the socket, the service) and counting is one addition. Nothing here needs
 * prom-client, which is loaded only at the first scrape (./bridge-metrics.ts).
 */

type Labels = Record<string, string>;

/** One line of the exposition: prom-client renders `metricName` (default: the family's name) and labels. */
interface ExportedValue {
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

export class PlainCounter {
  value = 0;
  constructor(readonly labels: Labels) {}
  inc(by = 1): void {
    this.value += by;
  }
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
    const values: ExportedValue[] = [];
    for (const child of children) {
      let cumulative = 0;
      this.upperBounds.forEach((bound, index) => {
        cumulative += child.counts[index] ?? 0;
        values.push({
          metricName: `${this.name}_bucket`,
          labels: { ...child.labels, le: String(bound) },
          value: cumulative,
        });
      });
      values.push(
        { metricName: `${this.name}_bucket`, labels: { ...child.labels, le: '+Inf' }, value: child.count },
        { metricName: `${this.name}_sum`, labels: child.labels, value: child.sum },
        { metricName: `${this.name}_count`, labels: child.labels, value: child.count },
      );
    }
    return values;
  }
}

/** A family whose samples are read from whoever holds them, at scrape time. */
export class ReadFamily implements ScrapedFamily {
  readonly aggregator = 'sum' as const;
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: 'counter' | 'gauge',
    private readonly read: () => readonly { readonly value: number; readonly labels?: Labels }[],
  ) {}

  get(): Promise<ExportedFamily> {
    return exported(
      this,
      this.read().map(({ value, labels = {} }) => ({ value, labels })),
    );
  }

  reset(): void {
    // Nothing is held: the values are read each time.
  }
}
