/**
 * Every table of the platform. snake_case in SQL, camelCase in TypeScript; row types are inferred.
 * Capabilities add their tables here so drizzle-kit sees one schema and writes one migration history.
 */
import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

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
    /** The node holding the actor's lease (see cluster_nodes); null for one a guest process spawned, which the owner claims. */
    owner: text("owner"),
    /** Fencing token: raised by each claim, and every write of a transition requires the one its writer holds. */
    fence: integer("fence").notNull().default(0),
    /** Counts the actor's stored transitions; its logged changes (actor_events) are numbered by it. */
    revision: integer("revision").notNull().default(0),
  },
  (table) => [
    index("actors_status_kind").on(table.status, table.kind),
    index("actors_finished_at").on(table.finishedAt),
    index("actors_owner_status").on(table.owner, table.status),
  ],
);
export type ActorRow = typeof actors.$inferSelect;

/** One row per node sharing the store: its lease on its actors lasts while `expiresAt` is renewed. */
export const clusterNodes = sqliteTable("cluster_nodes", {
  id: text("id").primaryKey(),
  /** Where the node answers, as it reported it (for people and `platform cluster status`). */
  url: text("url"),
  startedAt: integer("started_at", { mode: "timestamp_ms" }).notNull(),
  heartbeatAt: integer("heartbeat_at", { mode: "timestamp_ms" }).notNull(),
  expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
});
export type ClusterNodeRow = typeof clusterNodes.$inferSelect;

/** Each stored transition of a kind whose changes are streamed, so a subscriber on any node can read them in order. */
export const actorEvents = sqliteTable(
  "actor_events",
  {
    actorId: text("actor_id").notNull(),
    revision: integer("revision").notNull(),
    snapshot: text("snapshot", { mode: "json" }).$type<unknown>().notNull(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.actorId, table.revision] })],
);
export type ActorEventRow = typeof actorEvents.$inferSelect;

/** Events sent to an actor that another node owns; its owner applies each and answers the sender. */
export const actorMail = sqliteTable(
  "actor_mail",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    actorId: text("actor_id").notNull(),
    event: text("event", { mode: "json" }).$type<unknown>().notNull(),
    sender: text("sender").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("actor_mail_actor").on(table.actorId)],
);
export type ActorMailRow = typeof actorMail.$inferSelect;

// --- catalog ---

/**
 * Money is stored in integer minor units (cents) so sums are exact; the API shows it as a number. Lists and
 * searches are answered by the catalog's in-memory product index (src/catalog/product-index.ts), not by SQL
 * indexes; it learns of every change, by any writer, from catalog_product_changes.
 */
export const catalogProducts = sqliteTable("catalog_products", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  priceCents: integer("price_cents").notNull(),
  sku: text("sku").notNull().unique(),
  /** Null for a product with no category. */
  category: text("category", { enum: ["electronics", "clothing", "books", "home", "sports"] }),
  stock: integer("stock").notNull(),
  images: text("images", { mode: "json" }).$type<string[]>().notNull(),
  tags: text("tags", { mode: "json" }).$type<string[]>().notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});
export type ProductRow = typeof catalogProducts.$inferSelect;

/**
 * One row per insert, delete, or change of an indexed column (id, name, description, category, price, created)
 * of a product, written by triggers (the catalog_contract migration) whoever writes, so an index kept elsewhere can catch up by
 * reading what came after the last row it saw. Stock changes are not logged: no index keeps stock.
 */
export const catalogProductChanges = sqliteTable("catalog_product_changes", {
  seq: integer("seq").primaryKey({ autoIncrement: true }),
  productId: text("product_id").notNull(),
});

/**
 * Requests counted per rate-limit key and fixed window (window = epoch ms / window length), where several nodes
 * count into one limit (a store they share); a single node counts in memory.
 */
export const catalogRateLimits = sqliteTable(
  "catalog_rate_limits",
  {
    key: text("key").notNull(),
    window: integer("window").notNull(),
    count: integer("count").notNull(),
  },
  (table) => [primaryKey({ columns: [table.key, table.window] })],
);

export const catalogCustomers = sqliteTable("catalog_customers", {
  id: text("id").primaryKey(),
  /** Stored lower-cased, so uniqueness ignores case. */
  email: text("email").notNull().unique(),
  name: text("name").notNull(),
  role: text("role", { enum: ["admin", "customer"] }).notNull(),
  passwordHash: text("password_hash").notNull(),
  addresses: text("addresses", { mode: "json" }).$type<CatalogAddress[]>().notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});
export type CustomerRow = typeof catalogCustomers.$inferSelect;
export interface CatalogAddress {
  street: string;
  city: string;
  state?: string;
  country: string;
  postalCode: string;
}

/** The row form of an order actor, written by the actor kind's `record` in the snapshot's transaction. */
export const catalogOrders = sqliteTable(
  "catalog_orders",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => catalogCustomers.id),
    status: text("status", { enum: ["pending", "processing", "shipped", "delivered", "cancelled"] }).notNull(),
    items: text("items", { mode: "json" }).$type<{ productId: string; quantity: number; priceCents: number }[]>().notNull(),
    totalCents: integer("total_cents").notNull(),
    shippingAddress: text("shipping_address", { mode: "json" }).$type<CatalogAddress>().notNull(),
    /** Who sent the Idempotency-Key (a customer or API key id), the key, and a hash of the request it came with. */
    idempotencyScope: text("idempotency_scope"),
    idempotencyKey: text("idempotency_key"),
    requestHash: text("request_hash"),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    index("catalog_orders_created").on(table.createdAt, table.id),
    index("catalog_orders_customer_created").on(table.customerId, table.createdAt, table.id),
    index("catalog_orders_status_created").on(table.status, table.createdAt, table.id),
    uniqueIndex("catalog_orders_idempotency").on(table.idempotencyScope, table.idempotencyKey),
  ],
);
export type OrderRow = typeof catalogOrders.$inferSelect;

/** Refresh tokens, stored as SHA-256 hashes. A family is one login; a replayed token revokes its family. */
export const catalogRefreshTokens = sqliteTable(
  "catalog_refresh_tokens",
  {
    id: text("id").primaryKey(),
    familyId: text("family_id").notNull(),
    customerId: text("customer_id")
      .notNull()
      .references(() => catalogCustomers.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    expiresAt: integer("expires_at", { mode: "timestamp_ms" }).notNull(),
    usedAt: integer("used_at", { mode: "timestamp_ms" }),
    revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("catalog_refresh_tokens_family").on(table.familyId)],
);
export type RefreshTokenRow = typeof catalogRefreshTokens.$inferSelect;

/** Server-to-server keys, stored as SHA-256 hashes; the key itself is shown once, at creation. */
export const catalogApiKeys = sqliteTable("catalog_api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  keyHash: text("key_hash").notNull().unique(),
  role: text("role", { enum: ["admin", "customer"] }).notNull(),
  customerId: text("customer_id").references(() => catalogCustomers.id, { onDelete: "cascade" }),
  createdBy: text("created_by").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  revokedAt: integer("revoked_at", { mode: "timestamp_ms" }),
});
export type ApiKeyRow = typeof catalogApiKeys.$inferSelect;
// --- a2a ---
/** One row per finished A2A task, written in the transaction that stores its actor's final snapshot (tasks in progress are their actors). */
export const a2aTasks = sqliteTable(
  "a2a_tasks",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    /** pending, running, completed, failed or cancelled (the task machine's state). */
    state: text("state").notNull(),
    contextId: text("context_id").notNull(),
    payload: text("payload", { mode: "json" }).$type<unknown>().notNull(),
    messages: text("messages", { mode: "json" }).$type<unknown[]>().notNull(),
    artifacts: text("artifacts", { mode: "json" }).$type<unknown[]>().notNull(),
    result: text("result", { mode: "json" }).$type<unknown>(),
    error: text("error"),
    metadata: text("metadata", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    /** The verified SPIFFE id of the caller that sent it; null when the caller was not identified. */
    owner: text("owner"),
    /** Counts the task's persisted transitions; SSE event ids are these numbers. */
    revision: integer("revision").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [
    index("a2a_tasks_state_type").on(table.state, table.type),
    index("a2a_tasks_updated_at").on(table.updatedAt),
    index("a2a_tasks_owner_created_at").on(table.owner, table.createdAt),
  ],
);
export type A2aTaskRow = typeof a2aTasks.$inferSelect;

/** Where a task's changes are pushed: a client's webhook, as CreateTaskPushNotificationConfig set it. */
export const a2aPushConfigs = sqliteTable(
  "a2a_push_configs",
  {
    /** Unique per task; the client's or generated. */
    id: text("id").notNull(),
    taskId: text("task_id").notNull(),
    url: text("url").notNull(),
    /** Echoed in X-A2A-Notification-Token so the client can tell its notifications apart. */
    token: text("token"),
    /** `Authorization: <scheme> <credentials>` on each delivery (scheme `mTLS`: the agent's SVID instead). */
    authScheme: text("auth_scheme"),
    authCredentials: text("auth_credentials"),
    /** The A2A version it was set with (1.0 or 0.3): deliveries and answers are shaped for it. */
    version: text("version").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [primaryKey({ columns: [table.taskId, table.id] })],
);
export type A2aPushConfigRow = typeof a2aPushConfigs.$inferSelect;

/** One row per attempt to deliver a push notification, written with the delivery actor's transition. */
export const a2aPushAttempts = sqliteTable(
  "a2a_push_attempts",
  {
    deliveryId: text("delivery_id").notNull(),
    attempt: integer("attempt").notNull(),
    taskId: text("task_id").notNull(),
    configId: text("config_id").notNull(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    /** The webhook's HTTP status; null when it could not be reached. */
    status: integer("status"),
    /** delivered, retrying or failed (the last attempt). */
    outcome: text("outcome").notNull(),
    error: text("error"),
  },
  (table) => [primaryKey({ columns: [table.deliveryId, table.attempt] }), index("a2a_push_attempts_task").on(table.taskId, table.at)],
);
export type A2aPushAttemptRow = typeof a2aPushAttempts.$inferSelect;
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

/** The record of each vault-lease actor (tokens, setup sessions, admin tokens, credentials handed to a command). */
export const vaultLeases = sqliteTable(
  "vault_leases",
  {
    id: text("id").primaryKey(),
    purpose: text("purpose", { enum: ["token", "session", "admin", "exec"] }).notNull(),
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

// --- browser ---

/** A named browser session; its storage state (cookies, local storage) is a vault secret `browser-session:<name>`. */
export const browserSessions = sqliteTable("browser_sessions", {
  name: text("name").primaryKey(),
  cookies: integer("cookies").notNull(),
  origins: integer("origins").notNull(),
  createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
});
export type BrowserSessionRow = typeof browserSessions.$inferSelect;

/** Every finished test run and playbook, as the TestResult callers got; reports are rendered from it. */
export const browserResults = sqliteTable(
  "browser_results",
  {
    id: text("id").primaryKey(),
    test: text("test").notNull(),
    url: text("url").notNull(),
    status: text("status").notNull(),
    result: text("result", { mode: "json" }).$type<unknown>().notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("browser_results_created_at").on(table.createdAt)],
);
export type BrowserResultRow = typeof browserResults.$inferSelect;

// --- authorization ---

/** One row per authorization decision, from every node (`authorization.audit.destination: store://`). */
export const authzAudit = sqliteTable(
  "authz_audit",
  {
    /** The decision's audit id: a batch delivered again after a commit whose answer was lost inserts nothing twice. */
    auditId: text("audit_id").primaryKey(),
    at: integer("at", { mode: "timestamp_ms" }).notNull(),
    node: text("node").notNull(),
    callerSpiffeId: text("caller_spiffe_id"),
    calleeSpiffeId: text("callee_spiffe_id"),
    action: text("action").notNull(),
    decision: text("decision", { enum: ["allowed", "denied"] }).notNull(),
    reason: text("reason").notNull(),
    policyVersion: text("policy_version").notNull(),
    context: text("context", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
    result: text("result", { mode: "json" }).$type<Record<string, unknown>>(),
  },
  (table) => [index("authz_audit_at").on(table.at)],
);
export type AuthzAuditRow = typeof authzAudit.$inferSelect;
