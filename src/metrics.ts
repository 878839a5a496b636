/**
 * GET /metrics in Prometheus' text format, through prom-client. The library is loaded on the first scrape, not at
 * start-up (it costs about 70 ms to import): capabilities register a setup that makes their metrics then, most of
 * them gauges that read the live figure when scraped.
 */
import type { Registry } from "prom-client";

export type PromClient = typeof import("prom-client");
export type MetricsSetup = (prom: PromClient, registry: Registry) => void;

export class Metrics {
  readonly #setups: MetricsSetup[] = [];
  #registry?: Promise<Registry>;

  /** Adds metrics, made when the registry is first needed (or at once, if it already exists). */
  define(setup: MetricsSetup): void {
    this.#setups.push(setup);
    if (this.#registry) void this.#registry.then(async (registry) => setup(await import("prom-client"), registry));
  }

  async render(): Promise<{ contentType: string; body: string }> {
    this.#registry ??= import("prom-client").then((prom) => {
      const registry = new prom.Registry();
      for (const setup of this.#setups) setup(prom, registry);
      return registry;
    });
    const registry = await this.#registry;
    return { contentType: registry.contentType, body: await registry.metrics() };
  }
}
