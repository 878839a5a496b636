/**
 * Queries on the `actors` table and its companions (the event log, the node rows). Each takes the database or
 * the transaction it should run in. A transition's write is fenced: it changes the row only while the writer
 * still holds the actor (same owner, same fencing token), so a node that lost an actor can never write it again.
 */
import { and, asc, eq, gt, inArray, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import { tablesOf, timeParam, type DbOrTx } from "../src/db/client.ts";
import { preparedOn } from "../src/db/prepared.ts";
import type { ActorEventRow, ActorRow } from "../src/db/schema.ts";

const p = sql.placeholder;

const insertStatement = preparedOn((db) => {
  const { actors } = tablesOf(db);
  return db
    .insert(actors)
    .values({
      id: p("id"),
      kind: p("kind"),
      status: p("status"),
      state: p("state"),
      snapshot: p("snapshot"),
      deadline: p("deadline"),
      createdAt: p("createdAt"),
      updatedAt: p("updatedAt"),
      // Raw SQL: drizzle's time encoder cannot take a null placeholder value (see timeParam).
      finishedAt: sql`${p("finishedAt")}`,
      owner: p("owner"),
      fence: p("fence"),
      revision: p("revision"),
    })
    .prepare();
});

const updateStatement = preparedOn((db) => {
  const { actors } = tablesOf(db);
  return db
    .update(actors)
    .set({
      status: p("status") as never,
      state: p("state"),
      snapshot: p("snapshot"),
      deadline: p("deadline") as never,
      updatedAt: p("updatedAt") as never,
      finishedAt: sql`${p("finishedAt")}`,
      revision: p("revision") as never,
    })
    .where(and(eq(actors.id, p("id")), eq(actors.owner, p("owner")), eq(actors.fence, p("fence"))))
    .returning({ id: actors.id })
    .prepare();
});

/** Stores a new actor's first snapshot; throws a unique violation (isUniqueViolation) when its id is taken. */
export async function insertActor(db: DbOrTx, row: ActorRow): Promise<void> {
  await insertStatement(db).execute({ ...row, finishedAt: timeParam(db, row.finishedAt) });
}

/** Stores a later snapshot; false when the writer no longer holds the actor (another owner or token). */
export async function updateActor(db: DbOrTx, row: ActorRow): Promise<boolean> {
  return (await updateStatement(db).execute({ ...row, finishedAt: timeParam(db, row.finishedAt) })).length > 0;
}

export async function findActor(db: DbOrTx, id: string): Promise<ActorRow | undefined> {
  const { actors } = tablesOf(db);
  return (await db.select().from(actors).where(eq(actors.id, id)))[0];
}

/**
 * Takes over the active actors this node may run: those it owns already (a restart under the same node id), those
 * spawned by a guest process (no owner), and those of nodes whose lease has run out. Each claimed row gets this
 * node as owner and a new fencing token, in one statement, so two nodes never claim the same actor.
 */
export async function claimActors(db: DbOrTx, node: string, now: Date): Promise<ActorRow[]> {
  const { actors, clusterNodes } = tablesOf(db);
  const live = db.select({ id: clusterNodes.id }).from(clusterNodes).where(and(gt(clusterNodes.expiresAt, now), sql`${clusterNodes.id} <> ${node}`));
  return db
    .update(actors)
    .set({ owner: node, fence: sql`${actors.fence} + 1` })
    .where(and(eq(actors.status, "active"), or(isNull(actors.owner), eq(actors.owner, node), notInArray(actors.owner, live))))
    .returning();
}

/** Takes over one active actor of `kind`, whoever held it: this node becomes its owner, with a new fencing token. */
export async function claimActor(db: DbOrTx, id: string, kind: string, node: string): Promise<ActorRow[]> {
  const { actors } = tablesOf(db);
  return db
    .update(actors)
    .set({ owner: node, fence: sql`${actors.fence} + 1` })
    .where(and(eq(actors.id, id), eq(actors.kind, kind), eq(actors.status, "active")))
    .returning();
}

/** Deletes the rows of a kind's actors that finished before `before`; returns their ids. */
export async function deleteFinishedBefore(db: DbOrTx, kind: string, before: Date): Promise<string[]> {
  const { actors, actorEvents } = tablesOf(db);
  const ids = (await db.delete(actors).where(and(eq(actors.kind, kind), lt(actors.finishedAt, before))).returning({ id: actors.id })).map((r) => r.id);
  if (ids.length) await db.delete(actorEvents).where(inArray(actorEvents.actorId, ids));
  return ids;
}

// --- the event log of streamed kinds ---

const logStatement = preparedOn((db) => {
  const { actorEvents } = tablesOf(db);
  return db.insert(actorEvents).values({ actorId: p("actorId"), revision: p("revision"), snapshot: p("snapshot"), at: p("at") }).prepare();
});

export async function logEvent(db: DbOrTx, row: ActorEventRow): Promise<void> {
  await logStatement(db).execute(row);
}

/** The logged changes of an actor after `revision`, oldest first. */
export async function eventsAfter(db: DbOrTx, actorId: string, revision: number): Promise<ActorEventRow[]> {
  const { actorEvents } = tablesOf(db);
  return db
    .select()
    .from(actorEvents)
    .where(and(eq(actorEvents.actorId, actorId), gt(actorEvents.revision, revision)))
    .orderBy(asc(actorEvents.revision));
}
