import type { Metric, MetricValue, Registry } from 'prom-client';

/**
 * Counters and histograms for the per-request paths, served by a prom-client registry in its own
 * text format. prom-client hashes the label object of every inc and observe into a string and
 * looks it up: 0.15–0.7 µs each in a loop, and a REST request through the router made five of them
 * (issue 32). Here a series is found by its label values (a Map per label, no string built) and
 * counts in plain numbers; the registry reads them at each scrape through `get()`, as it reads
 * its own metrics. Label values must come from bounded sets, as with prom-client.
 */
type LabelValue = string | number;

interface Config {
  name: string;
  help: string;
  /** The label names, in the order `series` takes their values. */
  labelNames: readonly string[];
  registers: Registry[];
}

type Sample = MetricValue<string> & { metricName?: string; sharedLabels?: Record<string, string> };

interface Family {
  name: string;
  help: string;
  type: string;
  aggregator: 'sum';
  values: Sample[];
}

/** `Public`: what callers get of a series; `Series`: what the metric keeps and renders. */
abstract class BoundMetric<Public, Series extends Public & { reset(): void }> {
  readonly name: string;
  readonly help: string;
  private readonly labelNames: readonly string[];
  private readonly root = new Map<LabelValue, unknown>();
  protected readonly all: Array<{ labels: Record<string, string>; series: Series }> = [];

  protected constructor(
    config: Config,
    readonly type: 'counter' | 'histogram',
  ) {
    this.name = config.name;
    this.help = config.help;
    this.labelNames = config.labelNames;
    for (const registry of config.registers) registry.registerMetric(this as unknown as Metric);
  }

  /**
   * The series of these label values (in `labelNames` order), made on first use. A value is a Map
   * key: pass each label always as the same type (a status as the number, say), or 200 and '200'
   * would be two series printed alike.
   */
  series(...values: LabelValue[]): Public {
    if (values.length !== this.labelNames.length)
      throw new Error(`${this.name}: ${this.labelNames.length} label values expected, got ${values.length}`);
    let node = this.root;
    const last = values.length - 1;
    for (let i = 0; i < last; i += 1) {
      let next = node.get(values[i]!) as Map<LabelValue, unknown> | undefined;
      if (!next) node.set(values[i]!, (next = new Map()));
      node = next;
    }
    // No labels: the one series sits under an empty key.
    const key = last >= 0 ? values[last]! : '';
    let series = node.get(key) as Series | undefined;
    if (!series) {
      series = this.newSeries();
      node.set(key, series);
      const labels: Record<string, string> = {};
      this.labelNames.forEach((name, i) => (labels[name] = String(values[i])));
      this.all.push({ labels, series });
    }
    return series;
  }

  /** What prom-client's registry renders as text: a histogram's series labels apart (`sharedLabels`), as prom-client's own. */
  async getForPromString(): Promise<Family> {
    return { name: this.name, help: this.help, type: this.type, aggregator: 'sum', values: this.samples() };
  }

  /** The same as JSON (Registry.getMetricsAsJSON, which metricsText's merge reads): each sample's labels in one object. */
  async get(): Promise<Family> {
    const family = await this.getForPromString();
    family.values = family.values.map(({ sharedLabels, ...sample }) => ({
      ...sample,
      labels: { ...sample.labels, ...sharedLabels },
    }));
    return family;
  }

  /** Registry.resetMetrics(): every series back to zero (kept: a caller may hold one). */
  reset(): void {
    for (const { series } of this.all) series.reset();
  }

  protected abstract newSeries(): Series;
  protected abstract samples(): Sample[];
}

export interface CounterSeries {
  inc(by?: number): void;
}

export class BoundCounter extends BoundMetric<CounterSeries, CounterValue> {
  constructor(config: Config) {
    super(config, 'counter');
  }

  protected newSeries(): CounterValue {
    return new CounterValue();
  }

  protected samples(): Sample[] {
    return this.all.map(({ labels, series }) => ({ labels, value: series.value }));
  }
}

class CounterValue implements CounterSeries {
  value = 0;
  inc(by = 1): void {
    this.value += by;
  }
  reset(): void {
    this.value = 0;
  }
}

/** prom-client's default buckets, in seconds. */
const DEFAULT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export interface HistogramSeries {
  observe(value: number): void;
  /**
   * Observes the seconds since `startedMs` (a `performance.now()`). A request's labels are known
   * only when it ends, so its caller notes the start and finds the series at the end.
   */
  observeSince(startedMs: number): void;
}

export class BoundHistogram extends BoundMetric<HistogramSeries, HistogramValue> {
  private readonly buckets: readonly number[];

  constructor(config: Config & { buckets?: readonly number[] }) {
    super(config, 'histogram');
    this.buckets = config.buckets ?? DEFAULT_BUCKETS;
  }

  protected newSeries(): HistogramValue {
    return new HistogramValue(this.buckets);
  }

  protected samples(): Sample[] {
    const samples: Sample[] = [];
    for (const { labels, series } of this.all) {
      const { counts, sum, count } = series;
      // As prom-client lays a histogram out: `le` (or nothing) as the sample's labels, the series'
      // labels shared, so they print after the registry's default labels.
      const bucket = `${this.name}_bucket`;
      let cumulative = 0;
      this.buckets.forEach((le, i) => {
        cumulative += counts[i]!;
        samples.push({ labels: { le }, sharedLabels: labels, value: cumulative, metricName: bucket });
      });
      samples.push({ labels: { le: '+Inf' }, sharedLabels: labels, value: count, metricName: bucket });
      samples.push({ labels: {}, sharedLabels: labels, value: sum, metricName: `${this.name}_sum` });
      samples.push({ labels: {}, sharedLabels: labels, value: count, metricName: `${this.name}_count` });
    }
    return samples;
  }
}

class HistogramValue implements HistogramSeries {
  /** Per bucket, the observations at most its bound and above the one before (the last: above every bound). */
  readonly counts: number[];
  sum = 0;
  count = 0;

  constructor(private readonly buckets: readonly number[]) {
    this.counts = new Array<number>(buckets.length + 1).fill(0);
  }

  observe(value: number): void {
    let i = 0;
    while (i < this.buckets.length && value > this.buckets[i]!) i += 1;
    this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }

  observeSince(startedMs: number): void {
    this.observe((performance.now() - startedMs) / 1000);
  }

  reset(): void {
    this.counts.fill(0);
    this.sum = 0;
    this.count = 0;
  }
}
