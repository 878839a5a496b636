/** Queries on the vault's tables. Each takes the database or the transaction it should run in. */
import { and, count, desc, eq, isNull, max, sql } from "drizzle-orm";
import { preparedOn } from "../db/prepared.ts";
import type { DbOrTx } from "../db/client.ts";
import {
  vaultAudit,
  vaultDataKeys,
  vaultLeases,
  vaultRoles,
  vaultSecretIds,
  vaultSecrets,
  vaultServices,
  vaultState,
  type VaultAuditRow,
  type VaultDataKeyRow,
  type VaultLeaseRow,
  type VaultRoleRow,
  type VaultSecretIdRow,
  type VaultSecretRow,
  type VaultServiceRow,
} from "../db/schema.ts";

const stateQuery = preparedOn((db) => db.select().from(vaultState).where(eq(vaultState.id, 1)).prepare());
const serviceQuery = preparedOn((db) => db.select().from(vaultServices).where(eq(vaultServices.name, sql.placeholder("name"))).prepare());
const secretQuery = preparedOn((db) => db.select().from(vaultSecrets).where(eq(vaultSecrets.id, sql.placeholder("id"))).prepare());
const fingerprintQuery = preparedOn((db) => db.select({ count: count(), latest: max(vaultSecrets.updatedAt) }).from(vaultSecrets).prepare());

// --- state and keys ---
export const readState = (db: DbOrTx) => stateQuery(db).get();
export function writeState(db: DbOrTx, state: { sealed: boolean; masterVersion: number }): void {
  const row = { id: 1, ...state, updatedAt: new Date() };
  db.insert(vaultState).values(row).onConflictDoUpdate({ target: vaultState.id, set: row }).run();
}
export const dataKeys = (db: DbOrTx): VaultDataKeyRow[] => db.select().from(vaultDataKeys).all();
const dataKeyCount = preparedOn((db) => db.select({ n: count() }).from(vaultDataKeys).prepare());
export const countDataKeys = (db: DbOrTx): number => dataKeyCount(db).get()?.n ?? 0;
export const findDataKey = (db: DbOrTx, id: string) => db.select().from(vaultDataKeys).where(eq(vaultDataKeys.id, id)).get();
export const activeDataKey = (db: DbOrTx) => db.select().from(vaultDataKeys).where(eq(vaultDataKeys.active, true)).get();
export const insertDataKey = (db: DbOrTx, row: VaultDataKeyRow) => void db.insert(vaultDataKeys).values(row).run();
export const rewrapDataKey = (db: DbOrTx, id: string, masterVersion: number, wrapped: string) =>
  void db.update(vaultDataKeys).set({ masterVersion, wrapped }).where(eq(vaultDataKeys.id, id)).run();

// --- secrets ---
export const findSecret = (db: DbOrTx, id: string): VaultSecretRow | undefined => secretQuery(db).get({ id });
export function saveSecret(db: DbOrTx, row: VaultSecretRow): void {
  db.insert(vaultSecrets).values(row).onConflictDoUpdate({ target: vaultSecrets.id, set: row }).run();
}
/** Changes whenever a secret is written or removed. */
export function secretsFingerprint(db: DbOrTx): string {
  const row = fingerprintQuery(db).get();
  return `${row?.count}:${row?.latest?.getTime()}`;
}
export const deleteSecret = (db: DbOrTx, id: string) => void db.delete(vaultSecrets).where(eq(vaultSecrets.id, id)).run();

// --- services ---
export const listServices = (db: DbOrTx): VaultServiceRow[] => db.select().from(vaultServices).orderBy(vaultServices.name).all();
export const findService = (db: DbOrTx, name: string): VaultServiceRow | undefined => serviceQuery(db).get({ name });
export const insertService = (db: DbOrTx, row: VaultServiceRow) => void db.insert(vaultServices).values(row).run();
export const updateService = (db: DbOrTx, name: string, changes: Partial<Omit<VaultServiceRow, "name">>) =>
  void db.update(vaultServices).set(changes).where(eq(vaultServices.name, name)).run();
export const deleteService = (db: DbOrTx, name: string) => void db.delete(vaultServices).where(eq(vaultServices.name, name)).run();
export const setServiceStatus = (db: DbOrTx, name: string, status: VaultServiceRow["status"], reason: string | null) =>
  void db
    .update(vaultServices)
    .set({ status, statusReason: reason, checkedAt: new Date() })
    .where(eq(vaultServices.name, name))
    .run();

// --- roles and secret ids ---
export const findRole = (db: DbOrTx, name: string): VaultRoleRow | undefined =>
  db.select().from(vaultRoles).where(eq(vaultRoles.name, name)).get();
export const findRoleByRoleId = (db: DbOrTx, roleId: string): VaultRoleRow | undefined =>
  db.select().from(vaultRoles).where(eq(vaultRoles.roleId, roleId)).get();
export const insertRole = (db: DbOrTx, row: VaultRoleRow) => void db.insert(vaultRoles).values(row).run();
export const insertSecretId = (db: DbOrTx, row: VaultSecretIdRow) => void db.insert(vaultSecretIds).values(row).run();
export const findSecretIdByHash = (db: DbOrTx, hash: string): VaultSecretIdRow | undefined =>
  db.select().from(vaultSecretIds).where(eq(vaultSecretIds.hash, hash)).get();
export const findSecretId = (db: DbOrTx, accessor: string): VaultSecretIdRow | undefined =>
  db.select().from(vaultSecretIds).where(eq(vaultSecretIds.accessor, accessor)).get();
export const useSecretId = (db: DbOrTx, accessor: string, usesLeft: number | null) =>
  void db.update(vaultSecretIds).set({ usesLeft }).where(eq(vaultSecretIds.accessor, accessor)).run();
export const revokeSecretId = (db: DbOrTx, accessor: string) =>
  db
    .update(vaultSecretIds)
    .set({ revokedAt: new Date() })
    .where(and(eq(vaultSecretIds.accessor, accessor), isNull(vaultSecretIds.revokedAt)))
    .returning()
    .all().length > 0;

// --- leases ---
export function saveLease(db: DbOrTx, row: VaultLeaseRow): void {
  const { id: _id, ...changes } = row;
  db.insert(vaultLeases).values(row).onConflictDoUpdate({ target: vaultLeases.id, set: changes }).run();
}
export const findLease = (db: DbOrTx, id: string): VaultLeaseRow | undefined =>
  db.select().from(vaultLeases).where(eq(vaultLeases.id, id)).get();
export const findLeaseByHash = (db: DbOrTx, hash: string): VaultLeaseRow | undefined =>
  db.select().from(vaultLeases).where(eq(vaultLeases.hash, hash)).get();
export const leasesOfSecretId = (db: DbOrTx, accessor: string): VaultLeaseRow[] =>
  db.select().from(vaultLeases).where(eq(vaultLeases.secretIdAccessor, accessor)).all();

// --- audit ---
export const insertAudit = (db: DbOrTx, row: Omit<VaultAuditRow, "id">) => void db.insert(vaultAudit).values(row).run();
export const recentAudit = (db: DbOrTx, limit: number): VaultAuditRow[] =>
  db.select().from(vaultAudit).orderBy(desc(vaultAudit.id)).limit(limit).all();
