/** Queries on the vault's tables. Each takes the database or the transaction it should run in. */
import { and, count, desc, eq, isNull, max, sql } from "drizzle-orm";
import { dialectOf, execute, tablesOf, type DbOrTx } from "../db/client.ts";
import { preparedOn } from "../db/prepared.ts";
import type { VaultAuditRow, VaultDataKeyRow, VaultLeaseRow, VaultRoleRow, VaultSecretIdRow, VaultSecretRow, VaultServiceRow } from "../db/schema.ts";

const first = <T>(rows: T[]): T | undefined => rows[0];

// Read on nearly every vault call: prepared once per connection.
const stateQuery = preparedOn((db) => {
  const { vaultState } = tablesOf(db);
  return db.select().from(vaultState).where(eq(vaultState.id, 1)).prepare();
});
const serviceQuery = preparedOn((db) => {
  const { vaultServices } = tablesOf(db);
  return db.select().from(vaultServices).where(eq(vaultServices.name, sql.placeholder("name"))).prepare();
});
const secretQuery = preparedOn((db) => {
  const { vaultSecrets } = tablesOf(db);
  return db.select().from(vaultSecrets).where(eq(vaultSecrets.id, sql.placeholder("id"))).prepare();
});
const fingerprintQuery = preparedOn((db) => {
  const { vaultSecrets } = tablesOf(db);
  return db.select({ count: count(), latest: max(vaultSecrets.updatedAt) }).from(vaultSecrets).prepare();
});

// --- state and keys ---
export const readState = async (db: DbOrTx) => first(await stateQuery(db).execute());
export async function writeState(db: DbOrTx, state: { sealed: boolean; masterVersion: number }): Promise<void> {
  const { vaultState } = tablesOf(db);
  const row = { id: 1, ...state, updatedAt: new Date() };
  await db.insert(vaultState).values(row).onConflictDoUpdate({ target: vaultState.id, set: row });
}
export const dataKeys = (db: DbOrTx): Promise<VaultDataKeyRow[]> => db.select().from(tablesOf(db).vaultDataKeys);
export async function countDataKeys(db: DbOrTx): Promise<number> {
  const { vaultDataKeys } = tablesOf(db);
  return Number(first(await db.select({ n: count() }).from(vaultDataKeys))?.n ?? 0);
}
export async function findDataKey(db: DbOrTx, id: string): Promise<VaultDataKeyRow | undefined> {
  const { vaultDataKeys } = tablesOf(db);
  return first(await db.select().from(vaultDataKeys).where(eq(vaultDataKeys.id, id)));
}
export async function activeDataKey(db: DbOrTx): Promise<VaultDataKeyRow | undefined> {
  const { vaultDataKeys } = tablesOf(db);
  return first(await db.select().from(vaultDataKeys).where(eq(vaultDataKeys.active, true)));
}
export async function insertDataKey(db: DbOrTx, row: VaultDataKeyRow): Promise<void> {
  await db.insert(tablesOf(db).vaultDataKeys).values(row);
}
export async function rewrapDataKey(db: DbOrTx, id: string, masterVersion: number, wrapped: string): Promise<void> {
  const { vaultDataKeys } = tablesOf(db);
  await db.update(vaultDataKeys).set({ masterVersion, wrapped }).where(eq(vaultDataKeys.id, id));
}

// --- secrets ---
export const findSecret = async (db: DbOrTx, id: string): Promise<VaultSecretRow | undefined> => first(await secretQuery(db).execute({ id }));
export async function saveSecret(db: DbOrTx, row: VaultSecretRow): Promise<void> {
  const { vaultSecrets } = tablesOf(db);
  await db.insert(vaultSecrets).values(row).onConflictDoUpdate({ target: vaultSecrets.id, set: row });
}
/** Changes whenever a secret is written or removed. */
export async function secretsFingerprint(db: DbOrTx): Promise<string> {
  const row = first(await fingerprintQuery(db).execute());
  return `${row?.count}:${row?.latest ? new Date(row.latest).getTime() : undefined}`;
}
export async function deleteSecret(db: DbOrTx, id: string): Promise<void> {
  const { vaultSecrets } = tablesOf(db);
  await db.delete(vaultSecrets).where(eq(vaultSecrets.id, id));
}

// --- services ---
export async function listServices(db: DbOrTx): Promise<VaultServiceRow[]> {
  const { vaultServices } = tablesOf(db);
  return db.select().from(vaultServices).orderBy(vaultServices.name);
}
export const findService = async (db: DbOrTx, name: string): Promise<VaultServiceRow | undefined> => first(await serviceQuery(db).execute({ name }));
export async function insertService(db: DbOrTx, row: VaultServiceRow): Promise<void> {
  await db.insert(tablesOf(db).vaultServices).values(row);
}
export async function updateService(db: DbOrTx, name: string, changes: Partial<Omit<VaultServiceRow, "name">>): Promise<void> {
  const { vaultServices } = tablesOf(db);
  await db.update(vaultServices).set(changes).where(eq(vaultServices.name, name));
}
export async function deleteService(db: DbOrTx, name: string): Promise<void> {
  const { vaultServices } = tablesOf(db);
  await db.delete(vaultServices).where(eq(vaultServices.name, name));
}
export async function setServiceStatus(db: DbOrTx, name: string, status: VaultServiceRow["status"], reason: string | null): Promise<void> {
  const { vaultServices } = tablesOf(db);
  await db.update(vaultServices).set({ status, statusReason: reason, checkedAt: new Date() }).where(eq(vaultServices.name, name));
}

// --- roles and secret ids ---
export async function findRole(db: DbOrTx, name: string): Promise<VaultRoleRow | undefined> {
  const { vaultRoles } = tablesOf(db);
  return first(await db.select().from(vaultRoles).where(eq(vaultRoles.name, name)));
}
export async function findRoleByRoleId(db: DbOrTx, roleId: string): Promise<VaultRoleRow | undefined> {
  const { vaultRoles } = tablesOf(db);
  return first(await db.select().from(vaultRoles).where(eq(vaultRoles.roleId, roleId)));
}
export async function insertRole(db: DbOrTx, row: VaultRoleRow): Promise<void> {
  await db.insert(tablesOf(db).vaultRoles).values(row);
}
export async function insertSecretId(db: DbOrTx, row: VaultSecretIdRow): Promise<void> {
  await db.insert(tablesOf(db).vaultSecretIds).values(row);
}
export async function findSecretIdByHash(db: DbOrTx, hash: string): Promise<VaultSecretIdRow | undefined> {
  const { vaultSecretIds } = tablesOf(db);
  return first(await db.select().from(vaultSecretIds).where(eq(vaultSecretIds.hash, hash)));
}
export async function findSecretId(db: DbOrTx, accessor: string): Promise<VaultSecretIdRow | undefined> {
  const { vaultSecretIds } = tablesOf(db);
  return first(await db.select().from(vaultSecretIds).where(eq(vaultSecretIds.accessor, accessor)));
}
/**
 * Counts one use of a secret_id that has uses left (or no limit), atomically: two logins racing on its last use,
 * on one node or two, cannot both succeed. False when it was used up, revoked or expired meanwhile.
 */
export async function useSecretId(db: DbOrTx, accessor: string, now: Date): Promise<boolean> {
  const { vaultSecretIds: ids } = tablesOf(db);
  const rows = await db
    .update(ids)
    .set({ usesLeft: sql`CASE WHEN ${ids.usesLeft} IS NULL THEN NULL ELSE ${ids.usesLeft} - 1 END` })
    .where(
      and(
        eq(ids.accessor, accessor),
        isNull(ids.revokedAt),
        sql`(${ids.usesLeft} IS NULL OR ${ids.usesLeft} > 0)`,
        sql`(${ids.expiresAt} IS NULL OR ${ids.expiresAt} > ${sql.param(now, ids.expiresAt)})`,
      ),
    )
    .returning({ accessor: ids.accessor });
  return rows.length > 0;
}
export async function revokeSecretId(db: DbOrTx, accessor: string): Promise<boolean> {
  const { vaultSecretIds } = tablesOf(db);
  const rows = await db
    .update(vaultSecretIds)
    .set({ revokedAt: new Date() })
    .where(and(eq(vaultSecretIds.accessor, accessor), isNull(vaultSecretIds.revokedAt)))
    .returning({ accessor: vaultSecretIds.accessor });
  return rows.length > 0;
}

// --- leases ---
export async function saveLease(db: DbOrTx, row: VaultLeaseRow): Promise<void> {
  const { vaultLeases } = tablesOf(db);
  const { id: _id, ...changes } = row;
  await db.insert(vaultLeases).values(row).onConflictDoUpdate({ target: vaultLeases.id, set: changes });
}
export async function findLease(db: DbOrTx, id: string): Promise<VaultLeaseRow | undefined> {
  const { vaultLeases } = tablesOf(db);
  return first(await db.select().from(vaultLeases).where(eq(vaultLeases.id, id)));
}
export async function findLeaseByHash(db: DbOrTx, hash: string): Promise<VaultLeaseRow | undefined> {
  const { vaultLeases } = tablesOf(db);
  return first(await db.select().from(vaultLeases).where(eq(vaultLeases.hash, hash)));
}
export async function leasesOfSecretId(db: DbOrTx, accessor: string): Promise<VaultLeaseRow[]> {
  const { vaultLeases } = tablesOf(db);
  return db.select().from(vaultLeases).where(eq(vaultLeases.secretIdAccessor, accessor));
}

// --- audit ---
export async function insertAudit(db: DbOrTx, row: Omit<VaultAuditRow, "id">): Promise<void> {
  await db.insert(tablesOf(db).vaultAudit).values(row);
}
export async function recentAudit(db: DbOrTx, limit: number): Promise<VaultAuditRow[]> {
  const { vaultAudit } = tablesOf(db);
  return db.select().from(vaultAudit).orderBy(desc(vaultAudit.id)).limit(limit);
}

const initializationLock = 7_201_022;
/**
 * Holds, until the transaction ends, the lock under which a vault is initialised, so that nodes starting together
 * on one PostgreSQL store create one set of keys between them. SQLite has one writer already.
 */
export async function lockInitialization(tx: DbOrTx): Promise<void> {
  if (dialectOf(tx) === "postgresql") await execute(tx, sql`SELECT pg_advisory_xact_lock(${initializationLock})`);
}
