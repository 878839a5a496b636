/**
 * GET /metrics in Prometheus' text format, through prom-client. The library costs about 70 ms and 15 MB to load,
 * so it is loaded by the first scrape, not before: what happens until then is counted here, in plain maps (a
 * counter's total, a histogram's buckets, by label values), and prom-client reads those maps when it is scraped.
 * A process that is never scraped (an MCP stdio server, say) never loads it.
 *
 * Capabilities declare their metrics here: counters and histograms they add to as things happen, and figures
 * read when scraped (`gauge`, `countFrom` for a count something else already keeps).
 */
import type { Registry } from "prom-client";

export type PromClient = typeof import("prom-client");
export type Labels = Record<string, string | number>;
export type Reading = { labels?: Labels; value: number }[];

interface Declared {
  name: string;
  help: string;
  labelNames?: readonly string[];
}

type Setup = (prom: PromClient, registry: Registry) => void;

/** One entry per set of label values, keyed by those values joined. */
class Series<T> {
  readonly #entries = new Map<string, { labels: Labels; value: T }>();

  constructor(
    private readonly labelNames: readonly string[],
    private readonly fresh: () => T,
  ) {}

  at(labels: Labels): T {
    const key = this.labelNames.map((name) => labels[name]).join("\0");
    let entry = this.#entries.get(key);
    if (!entry) this.#entries.set(key, (entry = { labels, value: this.fresh() }));
    return entry.value;
  }

  entries() {
    return this.#entries.values();
  }
}

export class Metrics {
  readonly #setups: Setup[] = [];
  #registry?: Promise<Registry>;

  counter(declared: Declared): { inc(labels?: Labels, by?: number): void } {
    const series = new Series(declared.labelNames ?? [], () => ({ total: 0 }));
    this.countFrom(declared, () => [...series.entries()].map(({ labels, value }) => ({ labels, value: value.total })));
    return { inc: (labels = {}, by = 1) => void (series.at(labels).total += by) };
  }

  histogram(declared: Declared & { buckets: number[] }): { observe(labels: Labels, value: number): void } {
    const { buckets } = declared;
    const series = new Series(declared.labelNames ?? [], () => ({ counts: new Array<number>(buckets.length).fill(0), sum: 0, count: 0 }));
    this.#setups.push((_prom, registry) => registry.registerMetric(histogramView(declared, series) as never));
    return {
      observe: (labels, value) => {
        const entry = series.at(labels);
        entry.sum += value;
        entry.count++;
        // Cumulative, as Prometheus reads them: an observation counts in every bucket whose bound it is within.
        for (let i = 0; i < buckets.length; i++) if (value <= buckets[i]!) entry.counts[i]!++;
      },
    };
  }

  /** A figure read when scraped, such as how many actors are in each state. */
  gauge(declared: Declared, read: () => Reading): void {
    this.#setups.push((prom, registry) => {
      new prom.Gauge({ ...declared, labelNames: declared.labelNames ?? [], registers: [registry], collect() {
        this.reset();
        for (const { labels = {}, value } of read()) this.set(labels, value);
      } });
    });
  }

  /** A count another part already keeps (it only grows), exposed as a Prometheus counter when scraped. */
  countFrom(declared: Declared, read: () => Reading): void {
    this.#setups.push((prom, registry) => {
      new prom.Counter({ ...declared, labelNames: declared.labelNames ?? [], registers: [registry], collect() {
        this.reset();
        for (const { labels = {}, value } of read()) this.inc(labels, value);
      } });
    });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    const registry = await (this.#registry ??= import("prom-client").then((prom) => {
      const registry = new prom.Registry();
      for (const setup of this.#setups) setup(prom, registry);
      return registry;
    }));
    return { contentType: registry.contentType, body: await registry.metrics() };
  }
}

/**
 * A histogram kept in `series`, as prom-client's registry asks a metric for its values (the shape its own
 * Histogram answers `get()` with): a `_bucket` sample per bound and `+Inf`, then `_sum` and `_count`.
 */
function histogramView(
  { name, help, buckets }: Declared & { buckets: number[] },
  series: Series<{ counts: number[]; sum: number; count: number }>,
) {
  return {
    name,
    help,
    type: "histogram",
    aggregator: "sum",
    reset() {},
    get: async () => ({
      name,
      help,
      type: "histogram",
      aggregator: "sum",
      values: [...series.entries()].flatMap(({ labels, value }) => [
        ...buckets.map((le, i) => ({ labels: { ...labels, le }, value: value.counts[i]!, metricName: `${name}_bucket` })),
        { labels: { ...labels, le: "+Inf" }, value: value.count, metricName: `${name}_bucket` },
        { labels, value: value.sum, metricName: `${name}_sum` },
        { labels, value: value.count, metricName: `${name}_count` },
      ]),
    }),
  };
}
