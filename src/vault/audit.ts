/** The audit trail: one row per vault call. Only names, methods, paths and outcomes; never a credential. */
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

export type Audit = <T>(entry: AuditEntry, run: () => Promise<T>, statusOf?: (result: T) => number | undefined) => Promise<T>;

/** Wraps a call so that its outcome is recorded whatever happens; the query string is left out of the path. */
export function createAudit(db: Db, log: Logger): Audit {
  return async (entry, run, statusOf) => {
    const started = performance.now();
    const record = (status: number | undefined, outcome: string) => {
      const row = {
        at: new Date(),
        caller: entry.caller,
        operation: entry.operation,
        service: entry.service ?? null,
        method: entry.method ?? null,
        path: entry.path?.split("?")[0]?.slice(0, 512) ?? null,
        status: status ?? null,
        outcome,
        durationMs: Math.round(performance.now() - started),
      };
      try {
        insertAudit(db, row);
      } catch (error) {
        log.error("audit record could not be written", { operation: entry.operation, error });
      }
      log.info("vault call", { ...row, at: undefined, duration: row.durationMs, durationMs: undefined });
    };
    try {
      const result = await run();
      record(statusOf?.(result), "ok");
      return result;
    } catch (error) {
      record(error instanceof VaultError ? error.status : 500, error instanceof VaultError ? error.code : "INTERNAL_ERROR");
      throw error;
    }
  };
}
