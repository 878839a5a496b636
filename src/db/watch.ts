/**
 * The store's health, kept current: a ping every few seconds (and the last outcome of any), so `/health` can
 * say at once whether the store answers without waiting on it, even while it is down.
 */
import type { SubsystemHealth } from "../health.ts";
import type { Logger } from "../log.ts";
import type { DatabaseHandle } from "./client.ts";

const everyMs = 2000;

export class StoreWatch {
  #reachable = true;
  #error?: string;
  #latencyMs?: number;
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly log: Logger,
  ) {
    this.#timer = setInterval(() => void this.check(), everyMs);
    this.#timer.unref();
    void this.check();
  }

  /** Pings the store now; resolves with whether it answered. */
  async check(): Promise<boolean> {
    const started = performance.now();
    try {
      await this.database.ping();
      if (!this.#reachable) this.log.info("store reachable again", { store: this.database.location });
      this.#reachable = true;
      this.#error = undefined;
      this.#latencyMs = Math.round((performance.now() - started) * 10) / 10;
    } catch (error) {
      if (this.#reachable) this.log.error("store unreachable", { store: this.database.location, error });
      this.#reachable = false;
      this.#error = (error as Error).message;
    }
    return this.#reachable;
  }

  get reachable(): boolean {
    return this.#reachable;
  }

  health(): SubsystemHealth {
    const { dialect, location } = this.database;
    return this.#reachable
      ? { status: "ok", dialect, location, reachable: true, latencyMs: this.#latencyMs }
      : { status: "down", dialect, location, reachable: false, error: this.#error };
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
