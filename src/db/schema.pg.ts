/**
 * The same tables as schema.ts, for PostgreSQL: same names in SQL and TypeScript, same row types. JSON is `jsonb`,
 * times are `timestamptz(3)`, epoch milliseconds and money are `bigint` read as numbers. A capability that adds a
 * table to schema.ts adds it here too; tests/db/schema.test.ts checks that the two agree.
 */
import { bigint, boolean, customType, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import type { CatalogAddress } from "./schema.ts";

/**
 * jsonb, handed to Bun's SQL client as the value itself: it sends objects, arrays and strings as JSON, but a bare
 * number or boolean as its own type, which PostgreSQL will not put in a jsonb column; those go wrapped so that they
 * too are sent as JSON. (drizzle's own jsonb sends JSON text, which this client encodes again as a JSON string.)
 */
const json = customType<{ data: unknown; driverData: unknown }>({
  dataType: () => "jsonb",
  toDriver: (value) => (typeof value === "number" || typeof value === "boolean" ? { toJSON: () => value } : value),
  fromDriver: (value) => value,
});
const time = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });
const epochMs = (name: string) => bigint(name, { mode: "number" });

export const actors = pgTable(
  "actors",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    status: text("status", { enum: ["active", "done", "error"] }).notNull(),
    state: json("state").$type<unknown>().notNull(),
    snapshot: json("snapshot").$type<unknown>().notNull(),
    deadline: epochMs("deadline"),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
    finishedAt: time("finished_at"),
    owner: text("owner"),
    fence: integer("fence").notNull().default(0),
    revision: integer("revision").notNull().default(0),
  },
  (table) => [
    index("actors_status_kind").on(table.status, table.kind),
    index("actors_finished_at").on(table.finishedAt),
    index("actors_owner_status").on(table.owner, table.status),
  ],
);

export const clusterNodes = pgTable("cluster_nodes", {
  id: text("id").primaryKey(),
  url: text("url"),
  startedAt: time("started_at").notNull(),
  heartbeatAt: time("heartbeat_at").notNull(),
  expiresAt: time("expires_at").notNull(),
});

export const actorEvents = pgTable(
  "actor_events",
  {
    actorId: text("actor_id").notNull(),
    revision: integer("revision").notNull(),
    snapshot: json("snapshot").$type<unknown>().notNull(),
    at: time("at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.actorId, table.revision] })],
);

export const actorMail = pgTable(
  "actor_mail",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    actorId: text("actor_id").notNull(),
    event: json("event").$type<unknown>().notNull(),
    sender: text("sender").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (table) => [index("actor_mail_actor").on(table.actorId)],
);

// --- catalog ---

export const catalogProducts = pgTable("catalog_products", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  priceCents: epochMs("price_cents").notNull(),
  sku: text("sku").notNull().unique(),
  category: text("category", { enum: ["electronics", "clothing", "books", "home", "sports"] }),
  stock: integer("stock").notNull(),
  images: json("images").$type<string[]>().notNull(),
  tags: json("tags").$type<string[]>().notNull(),
  createdAt: time("created_at").notNull(),
  updatedAt: time("updated_at").notNull(),
});

export const catalogProductChanges = pgTable("catalog_product_changes", {
  seq: bigint("seq", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  productId: text("product_id").notNull(),
});

export const catalogRateLimits = pgTable(
  "catalog_rate_limits",
  {
    key: text("key").notNull(),
    window: bigint("window", { mode: "number" }).notNull(),
    count: integer("count").notNull(),
  },
  (table) => [primaryKey({ columns: [table.key, table.window] })],
);

export const catalogCustomers = pgTable("catalog_customers", {
  id: text("id").primaryKey(),
  email: text("email").notNull().unique(),
  name: text("name").notNull(),
  role: text("role", { enum: ["admin", "customer"] }).notNull(),
  passwordHash: text("password_hash").notNull(),
  addresses: json("addresses").$type<CatalogAddress[]>().notNull(),
  createdAt: time("created_at").notNull(),
  updatedAt: time("updated_at").notNull(),
});

export const catalogOrders = pgTable(
  "catalog_orders",
  {
    id: text("id").primaryKey(),
    customerId: text("customer_id")
      .notNull()
      .references(() => catalogCustomers.id),
    status: text("status", { enum: ["pending", "processing", "shipped", "delivered", "cancelled"] }).notNull(),
    items: json("items").$type<{ productId: string; quantity: number; priceCents: number }[]>().notNull(),
    totalCents: epochMs("total_cents").notNull(),
    shippingAddress: json("shipping_address").$type<CatalogAddress>().notNull(),
    idempotencyScope: text("idempotency_scope"),
    idempotencyKey: text("idempotency_key"),
    requestHash: text("request_hash"),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (table) => [
    index("catalog_orders_created").on(table.createdAt, table.id),
    index("catalog_orders_customer_created").on(table.customerId, table.createdAt, table.id),
    index("catalog_orders_status_created").on(table.status, table.createdAt, table.id),
    uniqueIndex("catalog_orders_idempotency").on(table.idempotencyScope, table.idempotencyKey),
  ],
);

export const catalogRefreshTokens = pgTable(
  "catalog_refresh_tokens",
  {
    id: text("id").primaryKey(),
    familyId: text("family_id").notNull(),
    customerId: text("customer_id")
      .notNull()
      .references(() => catalogCustomers.id, { onDelete: "cascade" }),
    tokenHash: text("token_hash").notNull().unique(),
    expiresAt: time("expires_at").notNull(),
    usedAt: time("used_at"),
    revokedAt: time("revoked_at"),
    createdAt: time("created_at").notNull(),
  },
  (table) => [index("catalog_refresh_tokens_family").on(table.familyId)],
);

export const catalogApiKeys = pgTable("catalog_api_keys", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  keyHash: text("key_hash").notNull().unique(),
  role: text("role", { enum: ["admin", "customer"] }).notNull(),
  customerId: text("customer_id").references(() => catalogCustomers.id, { onDelete: "cascade" }),
  createdBy: text("created_by").notNull(),
  createdAt: time("created_at").notNull(),
  revokedAt: time("revoked_at"),
});

// --- a2a ---

export const a2aTasks = pgTable(
  "a2a_tasks",
  {
    id: text("id").primaryKey(),
    type: text("type").notNull(),
    state: text("state").notNull(),
    contextId: text("context_id").notNull(),
    payload: json("payload").$type<unknown>().notNull(),
    messages: json("messages").$type<unknown[]>().notNull(),
    artifacts: json("artifacts").$type<unknown[]>().notNull(),
    result: json("result").$type<unknown>(),
    error: text("error"),
    metadata: json("metadata").$type<Record<string, unknown>>().notNull(),
    owner: text("owner"),
    revision: integer("revision").notNull(),
    createdAt: time("created_at").notNull(),
    updatedAt: time("updated_at").notNull(),
  },
  (table) => [
    index("a2a_tasks_state_type").on(table.state, table.type),
    index("a2a_tasks_updated_at").on(table.updatedAt),
    index("a2a_tasks_owner_created_at").on(table.owner, table.createdAt),
  ],
);

export const a2aPushConfigs = pgTable(
  "a2a_push_configs",
  {
    id: text("id").notNull(),
    taskId: text("task_id").notNull(),
    url: text("url").notNull(),
    token: text("token"),
    authScheme: text("auth_scheme"),
    authCredentials: text("auth_credentials"),
    version: text("version").notNull(),
    createdAt: time("created_at").notNull(),
  },
  (table) => [primaryKey({ columns: [table.taskId, table.id] })],
);

export const a2aPushAttempts = pgTable(
  "a2a_push_attempts",
  {
    deliveryId: text("delivery_id").notNull(),
    attempt: integer("attempt").notNull(),
    taskId: text("task_id").notNull(),
    configId: text("config_id").notNull(),
    at: time("at").notNull(),
    status: integer("status"),
    outcome: text("outcome").notNull(),
    error: text("error"),
  },
  (table) => [primaryKey({ columns: [table.deliveryId, table.attempt] }), index("a2a_push_attempts_task").on(table.taskId, table.at)],
);

// --- vault ---

export const vaultState = pgTable("vault_state", {
  id: integer("id").primaryKey(),
  sealed: boolean("sealed").notNull(),
  masterVersion: integer("master_version").notNull(),
  updatedAt: time("updated_at").notNull(),
});

export const vaultDataKeys = pgTable("vault_data_keys", {
  id: text("id").primaryKey(),
  masterVersion: integer("master_version").notNull(),
  wrapped: text("wrapped").notNull(),
  active: boolean("active").notNull(),
  createdAt: time("created_at").notNull(),
});

export const vaultSecrets = pgTable("vault_secrets", {
  id: text("id").primaryKey(),
  dataKeyId: text("data_key_id").notNull(),
  sealed: text("sealed").notNull(),
  updatedAt: time("updated_at").notNull(),
});

export const vaultServices = pgTable("vault_services", {
  name: text("name").primaryKey(),
  template: text("template").notNull(),
  settings: json("settings").$type<unknown>().notNull(),
  status: text("status", { enum: ["unchecked", "working", "failing"] }).notNull(),
  statusReason: text("status_reason"),
  checkedAt: time("checked_at"),
  createdAt: time("created_at").notNull(),
  updatedAt: time("updated_at").notNull(),
});

export const vaultRoles = pgTable("vault_roles", {
  name: text("name").primaryKey(),
  roleId: text("role_id").notNull().unique(),
  services: json("services").$type<string[]>().notNull(),
  tokenTtlSeconds: integer("token_ttl_seconds").notNull(),
  tokenMaxTtlSeconds: integer("token_max_ttl_seconds").notNull(),
  createdAt: time("created_at").notNull(),
});

export const vaultSecretIds = pgTable(
  "vault_secret_ids",
  {
    accessor: text("accessor").primaryKey(),
    roleName: text("role_name").notNull(),
    hash: text("hash").notNull().unique(),
    usesLeft: integer("uses_left"),
    expiresAt: time("expires_at"),
    revokedAt: time("revoked_at"),
    createdAt: time("created_at").notNull(),
  },
  (table) => [index("vault_secret_ids_role").on(table.roleName)],
);

export const vaultLeases = pgTable(
  "vault_leases",
  {
    id: text("id").primaryKey(),
    purpose: text("purpose", { enum: ["token", "session", "admin", "exec"] }).notNull(),
    state: text("state").notNull(),
    hash: text("hash").unique(),
    holder: text("holder").notNull(),
    secretIdAccessor: text("secret_id_accessor"),
    expiresAt: time("expires_at").notNull(),
    renewals: integer("renewals").notNull(),
    issuedAt: time("issued_at").notNull(),
  },
  (table) => [index("vault_leases_secret_id").on(table.secretIdAccessor)],
);

export const vaultAudit = pgTable(
  "vault_audit",
  {
    id: integer("id").primaryKey().generatedByDefaultAsIdentity(),
    at: time("at").notNull(),
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

// --- browser ---

export const browserSessions = pgTable("browser_sessions", {
  name: text("name").primaryKey(),
  cookies: integer("cookies").notNull(),
  origins: integer("origins").notNull(),
  createdAt: time("created_at").notNull(),
  updatedAt: time("updated_at").notNull(),
});

export const browserResults = pgTable(
  "browser_results",
  {
    id: text("id").primaryKey(),
    test: text("test").notNull(),
    url: text("url").notNull(),
    status: text("status").notNull(),
    result: json("result").$type<unknown>().notNull(),
    createdAt: time("created_at").notNull(),
  },
  (table) => [index("browser_results_created_at").on(table.createdAt)],
);

// --- authorization ---

export const authzAudit = pgTable(
  "authz_audit",
  {
    auditId: text("audit_id").primaryKey(),
    at: time("at").notNull(),
    node: text("node").notNull(),
    callerSpiffeId: text("caller_spiffe_id"),
    calleeSpiffeId: text("callee_spiffe_id"),
    action: text("action").notNull(),
    decision: text("decision", { enum: ["allowed", "denied"] }).notNull(),
    reason: text("reason").notNull(),
    policyVersion: text("policy_version").notNull(),
    context: json("context").$type<Record<string, unknown>>().notNull(),
    result: json("result").$type<Record<string, unknown>>(),
  },
  (table) => [index("authz_audit_at").on(table.at)],
);
