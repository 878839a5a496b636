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
