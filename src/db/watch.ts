/**
 * The store's health, kept current: a ping every few seconds and whenever a connection drops, so `/health` can
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
  #stopped = false;
  #checking = false;

  constructor(
    private readonly database: DatabaseHandle,
    private readonly log: Logger,
  ) {
    this.#timer = setInterval(() => void this.check(), everyMs);
    this.#timer.unref();
    // A dropped connection is news at once: /health says so without waiting for the next ping. Only while the
    // store was reachable: the ping's own failed attempts report themselves too, and must not set off more pings.
    database.onConnectionLost?.(() => {
      if (this.#reachable && !this.#checking) void this.check();
    });
    void this.check();
  }

  /** Pings the store now; resolves with whether it answered. */
  async check(): Promise<boolean> {
    if (this.#stopped) return this.#reachable;
    const started = performance.now();
    this.#checking = true;
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
    } finally {
      this.#checking = false;
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
    this.#stopped = true;
    clearInterval(this.#timer);
  }
}
