/** The combined `/health` document: one overall status and each subsystem's own. */
export type HealthStatus = "ok" | "degraded" | "down";
export type SubsystemHealth = { status: HealthStatus } & Record<string, unknown>;
export type HealthCheck = () => SubsystemHealth;

const severity: Record<HealthStatus, number> = { ok: 0, degraded: 1, down: 2 };

const reserved = new Set(["status", "version", "uptimeSeconds", "subsystems"]);

export class Health {
  readonly #checks = new Map<string, HealthCheck>();
  readonly #fields = new Map<string, () => unknown>();
  readonly #started = Date.now();
  #shared: { status: HealthStatus; json: string } | undefined;

  constructor(readonly version: string) {}

  register(name: string, check: HealthCheck): void {
    if (this.#checks.has(name)) throw new Error(`health check ${name} is registered twice`);
    this.#checks.set(name, check);
  }

  /**
   * A top-level field of the report, beside `status`, for a client that reads a flat document (the chat server's
   * `chat` state, as the system it replaces answered `{status, chat}`). Its subsystem entry stays the full account.
   */
  field(name: string, read: () => unknown): void {
    if (reserved.has(name) || this.#fields.has(name)) throw new Error(`health field ${name} is taken`);
    this.#fields.set(name, read);
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
    const fields = Object.fromEntries([...this.#fields].map(([name, read]) => [name, readField(read)]));
    return { status, ...fields, version: this.version, uptimeSeconds: Math.floor((Date.now() - this.#started) / 1000), subsystems };
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

/** A field that cannot be read is null; its subsystem entry says why. */
function readField(read: () => unknown): unknown {
  try {
    return read();
  } catch {
    return null;
  }
}
