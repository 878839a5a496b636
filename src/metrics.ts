/**
 * GET /metrics in Prometheus' text format, through prom-client. The library costs about 70 ms to import, so it is
 * not loaded at start-up: `serve` loads it in the background once it listens (a scrape would too). What is
 * counted before then is kept and applied when it has loaded, so nothing of the first moments is lost.
 *
 * Capabilities declare their metrics here: counters and histograms they add to as things happen, and figures
 * read when scraped (`gauge`, `countFrom` for a count something else already keeps).
 */
import type { Registry } from "prom-client";

export type PromClient = typeof import("prom-client");
export type MetricsSetup = (prom: PromClient, registry: Registry) => void;
export type Labels = Record<string, string | number>;
export type Reading = { labels?: Labels; value: number }[];

interface Declared {
  name: string;
  help: string;
  labelNames?: readonly string[];
}

/** Operations recorded before the library loaded, at most: past that, a process that is never scraped forgets them. */
const maxPending = 100_000;

export class Metrics {
  readonly #setups: MetricsSetup[] = [];
  #pending: (() => void)[] = [];
  #loaded?: Promise<Registry>;
  #ready = false;

  /** Adds metrics, made when the library loads (at once, if it has). */
  define(setup: MetricsSetup): void {
    this.#setups.push(setup);
    if (this.#loaded) void this.#loaded.then(async (registry) => setup(await import("prom-client"), registry));
  }

  counter(declared: Declared): { inc(labels?: Labels, by?: number): void } {
    let counter: import("prom-client").Counter | undefined;
    this.define((prom, registry) => void (counter = new prom.Counter({ ...declared, labelNames: declared.labelNames ?? [], registers: [registry] })));
    return { inc: (labels = {}, by = 1) => this.#apply(() => counter!.inc(labels, by)) };
  }

  histogram(declared: Declared & { buckets: number[] }): { observe(labels: Labels, value: number): void } {
    let histogram: import("prom-client").Histogram | undefined;
    this.define((prom, registry) => void (histogram = new prom.Histogram({ ...declared, labelNames: declared.labelNames ?? [], registers: [registry] })));
    return { observe: (labels, value) => this.#apply(() => histogram!.observe(labels, value)) };
  }

  /** A figure read when scraped, such as how many actors are in each state. */
  gauge(declared: Declared, read: () => Reading): void {
    this.define((prom, registry) => {
      new prom.Gauge({ ...declared, labelNames: declared.labelNames ?? [], registers: [registry], collect() {
        this.reset();
        for (const { labels = {}, value } of read()) this.set(labels, value);
      } });
    });
  }

  /** A count another part already keeps (it only grows), exposed as a Prometheus counter when scraped. */
  countFrom(declared: Declared, read: () => Reading): void {
    this.define((prom, registry) => {
      new prom.Counter({ ...declared, labelNames: declared.labelNames ?? [], registers: [registry], collect() {
        this.reset();
        for (const { labels = {}, value } of read()) this.inc(labels, value);
      } });
    });
  }

  /** Loads the library and makes every metric; idempotent. */
  load(): Promise<Registry> {
    return (this.#loaded ??= import("prom-client").then((prom) => {
      const registry = new prom.Registry();
      for (const setup of this.#setups) setup(prom, registry);
      this.#ready = true;
      for (const apply of this.#pending) apply();
      this.#pending = [];
      return registry;
    }));
  }

  async render(): Promise<{ contentType: string; body: string }> {
    const registry = await this.load();
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  #apply(operation: () => void): void {
    if (this.#ready) operation();
    else if (this.#pending.length < maxPending) this.#pending.push(operation);
  }
}
