/** The audit trail: one row per vault call or lease event. Only names, methods, paths and outcomes; never a credential. */
import type { Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { VaultError } from "./errors.ts";
import { insertAudit } from "./repo.ts";

export interface AuditEntry {
  caller: string;
  operation: string;
  service?: string;
  method?: string;
  path?: string;
}

export type Audit = (<T>(entry: AuditEntry, run: () => Promise<T>, statusOf?: (result: T) => number | undefined) => Promise<T>) & {
  /** Records something that happened without a call (a lease renewed or expired by the clock). */
  record(entry: AuditEntry, outcome: string): Promise<void>;
};

/**
 * Wraps a call so that its outcome is recorded whatever happens; the query string is left out of the path.
 * `counted` hears of each record (the vault's metrics).
 */
export function createAudit(db: Db, log: Logger, counted: (entry: AuditEntry, outcome: string) => void = () => {}): Audit {
  const write = async (entry: AuditEntry, status: number | undefined, outcome: string, durationMs: number) => {
    const row = {
      at: new Date(),
      caller: entry.caller,
      operation: entry.operation,
      service: entry.service?.slice(0, 64) ?? null,
      method: entry.method ?? null,
      path: entry.path?.split("?")[0]?.slice(0, 512) ?? null,
      status: status ?? null,
      outcome,
      durationMs,
    };
    counted(entry, outcome);
    try {
      await insertAudit(db, row);
    } catch (error) {
      log.error("audit record could not be written", { operation: entry.operation, error });
    }
    log.info("vault call", { ...row, at: undefined, duration: row.durationMs, durationMs: undefined });
  };
  const audit = async <T>(entry: AuditEntry, run: () => Promise<T>, statusOf?: (result: T) => number | undefined) => {
    const started = performance.now();
    const took = () => Math.round(performance.now() - started);
    try {
      const result = await run();
      await write(entry, statusOf?.(result), "ok", took());
      return result;
    } catch (error) {
      await write(entry, error instanceof VaultError ? error.status : 500, error instanceof VaultError ? error.code : "INTERNAL_ERROR", took());
      throw error;
    }
  };
  return Object.assign(audit, { record: (entry: AuditEntry, outcome: string) => write(entry, undefined, outcome, 0) });
}
