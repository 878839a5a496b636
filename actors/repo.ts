/**
 * Queries on the `actors` table. Each takes the database or the transaction it should run in. Those that
 * run on every transition are prepared once per connection (see src/db/prepared.ts).
 */
import { and, eq, lt, sql } from "drizzle-orm";
import type { DbOrTx } from "../src/db/client.ts";
import { preparedOn } from "../src/db/prepared.ts";
import { actors, type ActorRow } from "../src/db/schema.ts";

const p = sql.placeholder;

const changes = {
  status: sql`excluded.status`,
  state: sql`excluded.state`,
  snapshot: sql`excluded.snapshot`,
  deadline: sql`excluded.deadline`,
  updatedAt: sql`excluded.updated_at`,
  finishedAt: sql`excluded.finished_at`,
};

const insertRow = (db: DbOrTx) =>
  db.insert(actors).values({
    id: p("id"),
    kind: p("kind"),
    status: p("status"),
    state: p("state"),
    snapshot: p("snapshot"),
    deadline: p("deadline"),
    createdAt: p("createdAt"),
    updatedAt: p("updatedAt"),
    // Raw SQL: drizzle's timestamp encoder cannot take a null placeholder value.
    finishedAt: sql`${p("finishedAt")}`,
  });
// Each is prepared on its first use: a start that only restores actors builds no insert.
const insertStatement = preparedOn((db) => insertRow(db).prepare());
const saveStatement = preparedOn((db) => insertRow(db).onConflictDoUpdate({ target: actors.id, set: changes }).prepare());
const findStatement = preparedOn((db) => db.select().from(actors).where(eq(actors.id, p("id"))).prepare());

/**
 * Stores a new actor's first snapshot; false, with nothing written, when a row already has its id. The primary
 * key refuses a taken id, so spawning needs no lookup first.
 */
export function insertActor(db: DbOrTx, row: ActorRow): boolean {
  try {
    insertStatement(db).run(encoded(row));
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === "SQLITE_CONSTRAINT_PRIMARYKEY") return false;
    throw error;
  }
}

export function saveActor(db: DbOrTx, row: ActorRow): void {
  saveStatement(db).run(encoded(row));
}

const encoded = (row: ActorRow) => ({ ...row, finishedAt: row.finishedAt?.getTime() ?? null });

export const findActor = (db: DbOrTx, id: string): ActorRow | undefined => findStatement(db).get({ id });

export const activeActors = (db: DbOrTx): ActorRow[] => db.select().from(actors).where(eq(actors.status, "active")).all();

/** Deletes the rows of actors that finished before `before`; returns their ids. */
export const deleteFinishedBefore = (db: DbOrTx, kind: string, before: Date): string[] =>
  db
    .delete(actors)
    .where(and(eq(actors.kind, kind), lt(actors.finishedAt, before)))
    .returning({ id: actors.id })
    .all()
    .map((r) => r.id);
