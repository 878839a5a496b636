/** Queries on the `authz_audit` table. Each takes the database or the transaction it should run in. */
import { and, desc, eq, gte, type SQL } from "drizzle-orm";
import { dialectOf, tablesOf, type DbOrTx } from "../../db/client.ts";
import { insertRows, runRows, type RowsStatement } from "../../db/recordset.ts";
import { makeStorable, refusedText } from "../../db/storable.ts";
import type { AuthzAuditRow } from "../../db/schema.ts";
import type { AuditRecord } from "./log.ts";

/** A stored record: the record as every destination writes it, and the node that made the decision. */
export type StoredAuditRecord = AuditRecord & { node: string };

/**
 * One multi-row INSERT for the whole batch. A record already stored (its batch committed, but the answer was lost
 * and the batch is delivered again) is skipped, not duplicated.
 */
export async function insertAuditRecords(db: DbOrTx, node: string, records: readonly AuditRecord[]): Promise<void> {
  if (!records.length) return;
  const rows = records.map((record) => toRow(node, record));
  if (dialectOf(db) !== "postgresql") {
    const { authzAudit } = tablesOf(db);
    return void (await db.insert(authzAudit).values(rows).onConflictDoNothing({ target: authzAudit.auditId }));
  }
  try {
    await runRows(db, pgInsertStatement(db)(rows));
  } catch (error) {
    // A caller's context can carry text PostgreSQL cannot hold: it is stored replaced, not left to fail its
    // batch on every retry (src/db/storable.ts).
    if (!refusedText(error)) throw error;
    makeStorable(rows);
    await runRows(db, pgInsertStatement(db)(rows));
  }
}

// PostgreSQL takes a batch as one jsonb parameter (src/db/recordset.ts): one SQL text whatever the batch's size, so
// it is prepared once, and no value is built into the statement one by one.
let pgInsert: RowsStatement | undefined;
const pgInsertStatement = (db: DbOrTx) =>
  (pgInsert ??= insertRows(
    tablesOf(db).authzAudit,
    ["auditId", "at", "node", "callerSpiffeId", "calleeSpiffeId", "action", "decision", "reason", "policyVersion", "context", "result"],
    { conflict: "auditId" },
  ));

export interface AuditFilter {
  /** Only decisions made at or after this time. */
  since?: Date;
  decision?: AuditRecord["decision"];
  limit: number;
}

/** The newest records first. */
export async function listAuditRecords(db: DbOrTx, { since, decision, limit }: AuditFilter): Promise<StoredAuditRecord[]> {
  const { authzAudit } = tablesOf(db);
  const conditions: SQL[] = [];
  if (since) conditions.push(gte(authzAudit.at, since));
  if (decision) conditions.push(eq(authzAudit.decision, decision));
  const rows = await db
    .select()
    .from(authzAudit)
    .where(and(...conditions))
    .orderBy(desc(authzAudit.at), desc(authzAudit.auditId))
    .limit(limit);
  return rows.map(fromRow);
}

const toRow = (node: string, record: AuditRecord): AuthzAuditRow => {
  return {
    auditId: record.audit_id,
    at: new Date(record.timestamp),
    node,
    callerSpiffeId: record.caller_spiffe_id,
    calleeSpiffeId: record.callee_spiffe_id,
    action: record.action,
    decision: record.decision,
    reason: record.reason,
    policyVersion: record.policy_version,
    context: record.context,
    result: record.result ?? null,
  };
};

const fromRow = (row: AuthzAuditRow): StoredAuditRecord => ({
  timestamp: row.at.toISOString(),
  audit_id: row.auditId,
  node: row.node,
  caller_spiffe_id: row.callerSpiffeId,
  callee_spiffe_id: row.calleeSpiffeId,
  action: row.action,
  decision: row.decision,
  reason: row.reason,
  policy_version: row.policyVersion,
  context: row.context,
  ...(row.result ? { result: row.result } : {}),
});
