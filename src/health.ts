/** The combined `/health` document: one overall status and each subsystem's own. */
export type HealthStatus = "ok" | "degraded" | "down";
export type SubsystemHealth = { status: HealthStatus } & Record<string, unknown>;
export type HealthCheck = () => SubsystemHealth;

const severity: Record<HealthStatus, number> = { ok: 0, degraded: 1, down: 2 };

export class Health {
  readonly #checks = new Map<string, HealthCheck>();
  readonly #started = Date.now();
  #shared: { status: HealthStatus; json: string } | undefined;

  constructor(readonly version: string) {}

  register(name: string, check: HealthCheck): void {
    if (this.#checks.has(name)) throw new Error(`health check ${name} is registered twice`);
    this.#checks.set(name, check);
  }

  report() {
    let status: HealthStatus = "ok";
    const subsystems: Record<string, SubsystemHealth> = {};
    for (const [name, check] of this.#checks) {
      let result: SubsystemHealth;
      try {
        result = check();
      } catch (error) {
        result = { status: "down", error: (error as Error).message };
      }
      subsystems[name] = result;
      if (severity[result.status] > severity[status]) status = result.status;
    }
    return { status, version: this.version, uptimeSeconds: Math.floor((Date.now() - this.#started) / 1000), subsystems };
  }

  /**
   * The report as JSON. Requests answered in one event-loop turn arrived together, so they share one reading;
   * the next turn reads afresh, so an answer never misses a change made before its request arrived.
   */
  json(): { status: HealthStatus; json: string } {
    if (!this.#shared) {
      const report = this.report();
      this.#shared = { status: report.status, json: JSON.stringify(report) };
      setImmediate(() => (this.#shared = undefined));
    }
    return this.#shared;
  }
}
