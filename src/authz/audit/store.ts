/**
 * `store://`: the records go to the `authz_audit` table of the store this node uses (database.url, or the data
 * dir's SQLite file), each batch one multi-row INSERT. On a shared store every node's decisions are in one place,
 * read from any of them (`platform audit`).
 */
import type { DatabaseHandle } from "../../db/client.ts";
import type { AuditTransport } from "./log.ts";
import { insertAuditRecords } from "./repo.ts";

export function storeTransport(database: DatabaseHandle, node: string): AuditTransport {
  return {
    description: "store://",
    // The store is the runtime's, closed by it after every capability stopped: nothing of its own to close.
    deliver: (records) => insertAuditRecords(database.db, node, records),
    close: async () => undefined,
  };
}
