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

// --- a2a ---
/** One row per A2A task, written from the task actor's snapshot in the transaction that stores it. */
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
    /** Counts the task's persisted transitions; SSE event ids are these numbers. */
    revision: integer("revision").notNull(),
    createdAt: integer("created_at", { mode: "timestamp_ms" }).notNull(),
    updatedAt: integer("updated_at", { mode: "timestamp_ms" }).notNull(),
  },
  (table) => [index("a2a_tasks_state_type").on(table.state, table.type), index("a2a_tasks_updated_at").on(table.updatedAt)],
);
export type A2aTaskRow = typeof a2aTasks.$inferSelect;
