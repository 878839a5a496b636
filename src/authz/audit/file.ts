/**
 * `file://<path>`: JSON lines appended to a file. Each batch opens, appends and closes, so rotation is a rename:
 * the next batch starts a new file at the path (logrotate without copytruncate works as is).
 */
import { mkdirSync } from "node:fs";
import { appendFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { AuditRecord, AuditTransport } from "./log.ts";

export function fileTransport(path: string): AuditTransport {
  mkdirSync(dirname(path), { recursive: true });
  return {
    description: `file://${path}`,
    deliver: (records: readonly AuditRecord[]) => appendFile(path, records.map((r) => JSON.stringify(r)).join("\n") + "\n", { mode: 0o600 }),
    close: async () => undefined,
  };
}
