/** Queries on the `actors` table. Each takes the database or the transaction it should run in. */
import { and, eq, lt } from "drizzle-orm";
import type { DbOrTx } from "../src/db/client.ts";
import { actors, type ActorRow } from "../src/db/schema.ts";

export function saveActor(db: DbOrTx, row: ActorRow): void {
  const { id: _id, createdAt: _createdAt, ...changes } = row;
  db.insert(actors).values(row).onConflictDoUpdate({ target: actors.id, set: changes }).run();
}

export const findActor = (db: DbOrTx, id: string): ActorRow | undefined =>
  db.select().from(actors).where(eq(actors.id, id)).get();

export const activeActors = (db: DbOrTx): ActorRow[] =>
  db.select().from(actors).where(eq(actors.status, "active")).all();

/** Deletes the rows of actors that finished before `before`; returns their ids. */
export const deleteFinishedBefore = (db: DbOrTx, kind: string, before: Date): string[] =>
  db
    .delete(actors)
    .where(and(eq(actors.kind, kind), lt(actors.finishedAt, before)))
    .returning({ id: actors.id })
    .all()
    .map((r) => r.id);
