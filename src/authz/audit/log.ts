/**
 * The audit trail: one record per decision, handed to a destination in the background. `write` never waits
 * and never throws, so a slow or dead destination cannot hold up or fail a request; records wait in a bounded
 * buffer and are retried with backoff, and every record that has to be let go is counted.
 */
import type { Logger } from "../../log.ts";

export interface AuditRecord {
  /** ISO 8601, UTC. */
  timestamp: string;
  audit_id: string;
  caller_spiffe_id: string | null;
  /** Null for inbound decisions: the callee is this workload. */
  callee_spiffe_id: string | null;
  action: string;
  decision: "allowed" | "denied";
  reason: string;
  policy_version: string;
  context: Record<string, unknown>;
  /** Extra keys of the policy's answer (e.g. `decision_metadata`), kept as given. */
  result?: Record<string, unknown>;
}

/** Somewhere records go. `deliver` either takes the whole batch or throws; it is never called concurrently. */
export interface AuditTransport {
  /** For /health and logs; carries no credentials. */
  readonly description: string;
  deliver(records: readonly AuditRecord[]): Promise<void>;
  close(): Promise<void>;
}

export interface AuditStats {
  destination: string;
  written: number;
  pending: number;
  /** Delivery attempts that failed (each is retried). */
  failedAttempts: number;
  /** Records let go because the buffer was full; never silent. */
  dropped: number;
  lastError?: string;
}

const batchSize = 500;
const maxBackoffMs = 30_000;

export class AuditLog {
  #buffer: AuditRecord[] = [];
  #delivering?: Promise<void>;
  #retry?: ReturnType<typeof setTimeout>;
  #failuresInARow = 0;
  #closed = false;
  readonly #stats: Omit<AuditStats, "pending" | "destination"> = { written: 0, failedAttempts: 0, dropped: 0 };

  constructor(
    private readonly transport: AuditTransport,
    private readonly options: { capacity: number; log: Logger; firstRetryMs?: number },
  ) {}

  write(record: AuditRecord): void {
    if (this.#closed) return void this.#stats.dropped++;
    this.#buffer.push(record);
    this.#trim();
    if (!this.#delivering && !this.#retry) this.#delivering = this.#deliver();
  }

  /** Tries to deliver everything buffered now; resolves when the buffer is empty or an attempt failed. */
  async flush(): Promise<void> {
    clearTimeout(this.#retry);
    this.#retry = undefined;
    await this.#delivering;
    if (this.#buffer.length) await (this.#delivering = this.#deliver());
  }

  stats(): AuditStats {
    return { destination: this.transport.description, ...this.#stats, pending: this.#buffer.length };
  }

  /** Delivers what it can, then closes the destination; whatever is left is counted as dropped. */
  async close(): Promise<void> {
    await this.flush();
    this.#closed = true;
    clearTimeout(this.#retry);
    this.#stats.dropped += this.#buffer.length;
    if (this.#buffer.length) this.options.log.error("audit records dropped at shutdown", { count: this.#buffer.length });
    this.#buffer = [];
    await this.transport.close().catch(() => undefined);
  }

  async #deliver(): Promise<void> {
    // One turn of the event loop first: the decisions of every request it serves go out as one batch.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#buffer.length && !this.#closed) {
      const batch = this.#buffer.splice(0, batchSize);
      try {
        await this.transport.deliver(batch);
        this.#stats.written += batch.length;
        this.#failuresInARow = 0;
      } catch (error) {
        this.#buffer.unshift(...batch);
        this.#trim();
        this.#stats.failedAttempts++;
        this.#stats.lastError = (error as Error).message;
        if (this.#failuresInARow++ === 0)
          this.options.log.warn("audit destination failed; records are buffered and retried", {
            destination: this.transport.description,
            error,
          });
        const delay = Math.min(maxBackoffMs, (this.options.firstRetryMs ?? 100) * 2 ** (this.#failuresInARow - 1));
        this.#retry = setTimeout(() => {
          this.#retry = undefined;
          this.#delivering = this.#deliver();
        }, delay);
        this.#retry.unref();
        break;
      }
    }
    this.#delivering = undefined;
  }

  #trim() {
    const over = this.#buffer.length - this.options.capacity;
    if (over <= 0) return;
    this.#buffer.splice(0, over);
    this.#stats.dropped += over;
  }
}
