/**
 * Every table of the platform. snake_case in SQL, camelCase in TypeScript; row types are inferred.
 * Capabilities add their tables here so drizzle-kit sees one schema and writes one migration history.
 */
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The persisted snapshot of every actor (tasks, sessions, leases, orders), written on each transition. */
export const actors = sqliteTable(
  "actors",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    /** `active` until the machine reaches a final state, then `done` (or `error` if it crashed). */
    status: text("status", { enum: ["active", "done", "error"] }).notNull(),
    /** The state value as JSON, for queries and people; the snapshot is what restores the actor. */
    state: text("state", { mode: "json" }).$type<unknown>().notNull(),
    snapshot: text("snapshot", { mode: "json" }).$type<unknown>().notNull(),
    /** Epoch ms at which the actor is owed a `DEADLINE` event; survives restarts, unlike XState `after:` timers. */
    deadline: integer("deadline"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
    finishedAt: integer("finished_at", { mode: "timestamp_ms" }),
  },
  (table) => [index("actors_status_kind").on(table.status, table.kind), index("actors_finished_at").on(table.finishedAt)],
);
export type ActorRow = typeof actors.$inferSelect;

// --- vault ---

/** One row (id 1): whether the vault is sealed and which master key version wraps the data keys. */
export const vaultState = sqliteTable("vault_state", {
  id: integer("id").primaryKey(),
  sealed: integer("sealed", { mode: "boolean" }).notNull(),
  masterVersion: integer("master_version").notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});

/** Data keys, each wrapped (AES-256-GCM) by a version of the master key, which never enters the database. */
export const vaultDataKeys = sqliteTable("vault_data_keys", {
  id: text("id").primaryKey(),
  masterVersion: integer("master_version").notNull(),
  wrapped: text("wrapped").notNull(),
  active: integer("active", { mode: "boolean" }).notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
});
export type VaultDataKeyRow = typeof vaultDataKeys.$inferSelect;

/** A service's credential, encrypted with a data key; the row id is bound as associated data. */
export const vaultSecrets = sqliteTable("vault_secrets", {
  id: text("id").primaryKey(),
  dataKeyId: text("data_key_id").notNull(),
  sealed: text("sealed").notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});
export type VaultSecretRow = typeof vaultSecrets.$inferSelect;

/** A configured service: where it lives and how its credential is used. Nothing here is secret. */
export const vaultServices = sqliteTable("vault_services", {
  name: text("name").primaryKey(),
  template: text("template").notNull(),
  settings: text("settings", { mode: "json" }).$type<unknown>().notNull(),
  status: text("status", { enum: ["unchecked", "working", "failing"] }).notNull(),
  statusReason: text("status_reason"),
  checkedAt: integer("checked_at", { mode: "timestamp_ms" }),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});
export type VaultServiceRow = typeof vaultServices.$inferSelect;

/** AppRole roles: `roleId` is an identifier, not a secret; which services the role may use. */
export const vaultRoles = sqliteTable("vault_roles", {
  name: text("name").primaryKey(),
  roleId: text("role_id").notNull().unique(),
  services: text("services", { mode: "json" }).$type<string[]>().notNull(),
  tokenTtlSeconds: integer("token_ttl_seconds").notNull(),
  tokenMaxTtlSeconds: integer("token_max_ttl_seconds").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
});
export type VaultRoleRow = typeof vaultRoles.$inferSelect;

/** Secret ids, stored as SHA-256 hashes only; `accessor` names one without revealing it. */
export const vaultSecretIds = sqliteTable(
  "vault_secret_ids",
  {
    accessor: text("accessor").primaryKey(),
    roleName: text("role_name").notNull(),
    hash: text("hash").notNull().unique(),
    usesLeft: integer("uses_left"),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("vault_secret_ids_role").on(table.roleName)],
);
export type VaultSecretIdRow = typeof vaultSecretIds.$inferSelect;

/** The record of each vault-lease actor (tokens, setup sessions, credentials handed to a command). */
export const vaultLeases = sqliteTable(
  "vault_leases",
  {
    id: text("id").primaryKey(),
    purpose: text("purpose", { enum: ["token", "session", "exec"] }).notNull(),
    state: text("state").notNull(),
    /** SHA-256 of the bearer value, for tokens and sessions; the value itself is never stored. */
    hash: text("hash").unique(),
    holder: text("holder").notNull(),
    secretIdAccessor: text("secret_id_accessor"),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    renewals: integer("renewals").notNull(),
    issuedAt: integer("issued_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("vault_leases_secret_id").on(table.secretIdAccessor)],
);
export type VaultLeaseRow = typeof vaultLeases.$inferSelect;

/** One line per vault call: who asked what of which service and how it went. Never a secret. */
export const vaultAudit = sqliteTable(
  "vault_audit",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    caller: text("caller").notNull(),
    operation: text("operation").notNull(),
    service: text("service"),
    method: text("method"),
    path: text("path"),
    status: integer("status"),
    outcome: text("outcome").notNull(),
    durationMs: integer("duration_ms").notNull(),
  },
  (table) => [index("vault_audit_at").on(table.at)],
);
export type VaultAuditRow = typeof vaultAudit.$inferSelect;
