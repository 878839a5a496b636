/**
 * Queries on the `actors` table and its companions (the event log, the node rows). Each takes the database or
 * the transaction it should run in. A transition's write is fenced: it changes the row only while the writer
 * still holds the actor (same owner, same fencing token), so a node that lost an actor can never write it again.
 */
import { and, asc, count, eq, gt, inArray, isNull, lt, notInArray, or, sql } from "drizzle-orm";
import { dialectOf, execute, storeNow, tablesOf, timeParam, type DbOrTx } from "../src/db/client.ts";
import { preparedOn } from "../src/db/prepared.ts";
import { insertRows, overRows, runRows } from "../src/db/recordset.ts";
import type { ActorEventRow, ActorMailRow, ActorRow } from "../src/db/schema.ts";

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

// PostgreSQL writes a batch's rows of each table in one statement whose text is the same for any number of rows
// (src/db/recordset.ts), built on first use; SQLite, in process, runs its prepared statement once per row.
const pgStatements = (db: DbOrTx) => (batchStatements ??= buildBatchStatements(db));
let batchStatements: ReturnType<typeof buildBatchStatements> | undefined;
function buildBatchStatements(db: DbOrTx) {
  const { actors, actorEvents } = tablesOf(db);
  const changed = ["status", "state", "snapshot", "deadline", "updatedAt", "finishedAt", "revision"] as const;
  return {
    insert: insertRows(actors, ["id", "kind", "status", "state", "snapshot", "deadline", "createdAt", "updatedAt", "finishedAt", "owner", "fence", "revision"]),
    // Fenced as one row's update is: a row changes only while its owner and token still match. The planner takes
    // the rows for a hundred (it cannot see into the parameter) and would scan the whole table for them; the
    // list of their ids makes it look each one up by the primary key.
    update: overRows(
      actors,
      ["id", "owner", "fence", ...changed],
      `WITH v AS MATERIALIZED (SELECT * FROM`,
      `) UPDATE "actors" SET ${changed.map((k) => `"${actors[k].name}" = v."${k}"`).join(", ")} FROM v
         WHERE "actors"."id" = v."id" AND "actors"."owner" = v."owner" AND "actors"."fence" = v."fence" AND "actors"."id" = ANY(ARRAY(SELECT v."id" FROM v))
         RETURNING "actors"."id"`,
    ),
    log: insertRows(actorEvents, ["actorId", "revision", "snapshot", "at"]),
  };
}

/** Stores new actors' first snapshots; throws a unique violation (isUniqueViolation) when an id is taken. */
export async function insertActors(db: DbOrTx, rows: ActorRow[]): Promise<void> {
  if (!rows.length) return;
  if (dialectOf(db) === "postgresql") return void (await runRows(db, pgStatements(db).insert(rows)));
  for (const row of rows) await insertStatement(db).execute({ ...row, finishedAt: timeParam(db, row.finishedAt) });
}

/** Stores later snapshots; resolves with the ids of those the writer no longer holds (another owner or token), whose rows stay as they were. */
export async function updateActors(db: DbOrTx, rows: ActorRow[]): Promise<string[]> {
  if (!rows.length) return [];
  let written: Set<string>;
  if (dialectOf(db) === "postgresql") written = new Set((await runRows<{ id: string }>(db, pgStatements(db).update(rows))).map((r) => r.id));
  else {
    written = new Set();
    for (const row of rows) for (const { id } of await updateStatement(db).execute({ ...row, finishedAt: timeParam(db, row.finishedAt) })) written.add(id);
  }
  return rows.filter((row) => !written.has(row.id)).map((row) => row.id);
}

export async function findActor(db: DbOrTx, id: string): Promise<ActorRow | undefined> {
  const { actors } = tablesOf(db);
  return (await db.select().from(actors).where(eq(actors.id, id)))[0];
}

/**
 * Takes over the active actors this node may run: those of nodes whose lease has run out (judged by the store's
 * clock), those a guest process spawned (no owner), and, with `own`, those it holds already (a restart under the
 * same node id). Each claimed row gets this node as owner and a new fencing token, in one statement, so two nodes
 * never claim the same actor.
 */
export async function claimActors(db: DbOrTx, node: string, { own }: { own: boolean }): Promise<ActorRow[]> {
  const { actors, clusterNodes } = tablesOf(db);
  const live = db.select({ id: clusterNodes.id }).from(clusterNodes).where(gt(clusterNodes.expiresAt, storeNow(db)));
  const claimable = own ? or(isNull(actors.owner), eq(actors.owner, node), notInArray(actors.owner, live)) : or(isNull(actors.owner), and(sql`${actors.owner} <> ${node}`, notInArray(actors.owner, live)));
  return db
    .update(actors)
    .set({ owner: node, fence: sql`${actors.fence} + 1` })
    .where(and(eq(actors.status, "active"), claimable))
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

export async function logEvents(db: DbOrTx, rows: ActorEventRow[]): Promise<void> {
  if (!rows.length) return;
  if (dialectOf(db) === "postgresql") return void (await runRows(db, pgStatements(db).log(rows)));
  for (const row of rows) await logStatement(db).execute(row);
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

/** Tells every node listening (PostgreSQL NOTIFY, delivered when the transaction commits) which actors changed, as `id:revision` lines. */
export async function notifyEvents(db: DbOrTx, changes: string[]): Promise<void> {
  if (dialectOf(db) !== "postgresql" || !changes.length) return;
  // A notification carries at most 8000 bytes: long lists go in several.
  for (let start = 0; start < changes.length; ) {
    let end = start;
    for (let size = 0; end < changes.length && size + changes[end]!.length < 7900; end++) size += changes[end]!.length + 1;
    await execute(db, sql`SELECT pg_notify(${eventsChannel}, ${changes.slice(start, end).join("\n")})`);
    start = end;
  }
}
export const eventsChannel = "platform_actor_events";

// --- nodes ---

/** Registers this node, or renews its lease; resolves with whether its lease had run out before (it was taken for dead). */
export async function renewNode(db: DbOrTx, node: string, url: string | null, leaseMs: number): Promise<{ lapsed: boolean }> {
  const { clusterNodes } = tablesOf(db);
  const [before] = await db.select({ expired: sql<unknown>`${clusterNodes.expiresAt} <= ${storeNow(db)}` }).from(clusterNodes).where(eq(clusterNodes.id, node));
  await db
    .insert(clusterNodes)
    .values({ id: node, url, startedAt: new Date(), heartbeatAt: sql`${storeNow(db)}` as never, expiresAt: sql`${storeNow(db, leaseMs)}` as never })
    .onConflictDoUpdate({ target: clusterNodes.id, set: { url, heartbeatAt: sql`${storeNow(db)}` as never, expiresAt: sql`${storeNow(db, leaseMs)}` as never } });
  return { lapsed: before !== undefined && (before.expired === true || before.expired === 1) };
}

/** Ends this node's lease at once (a clean stop): other nodes may take its actors without waiting. */
export async function releaseNode(db: DbOrTx, node: string): Promise<void> {
  const { clusterNodes } = tablesOf(db);
  await db.update(clusterNodes).set({ expiresAt: sql`${storeNow(db)}` as never }).where(eq(clusterNodes.id, node));
}

export interface NodeStatus {
  id: string;
  url: string | null;
  startedAt: Date;
  heartbeatAt: Date;
  expiresAt: Date;
  /** Milliseconds since its last heartbeat, and until its lease runs out (negative once it has), by the store's clock. */
  heartbeatAgeMs: number;
  expiresInMs: number;
  live: boolean;
  /** The active actors it holds, by kind. */
  actors: Record<string, number>;
}

/**
 * Every node the store knows, with whether its lease stands and the active actors it holds by kind; and the active
 * actors no node holds yet (spawned by a guest process, waiting to be claimed). Times are judged by the store's clock,
 * as leases are.
 */
export async function listNodes(db: DbOrTx): Promise<{ nodes: NodeStatus[]; unowned: Record<string, number> }> {
  const { clusterNodes, actors } = tablesOf(db);
  const [rows, held] = await Promise.all([
    db
      .select({
        id: clusterNodes.id,
        url: clusterNodes.url,
        startedAt: clusterNodes.startedAt,
        heartbeatAt: clusterNodes.heartbeatAt,
        expiresAt: clusterNodes.expiresAt,
        // Read in the same statement as the rows, so ages are measured against one reading of the clock.
        now: sql<Date>`${storeNow(db)}`.mapWith(clusterNodes.heartbeatAt),
      })
      .from(clusterNodes)
      .orderBy(clusterNodes.id),
    db
      .select({ owner: actors.owner, kind: actors.kind, n: count() })
      .from(actors)
      .where(eq(actors.status, "active"))
      .groupBy(actors.owner, actors.kind),
  ]);
  const byOwner = new Map<string | null, Record<string, number>>();
  for (const { owner, kind, n } of held) {
    const kinds = byOwner.get(owner) ?? {};
    kinds[kind] = Number(n);
    byOwner.set(owner, kinds);
  }
  const nodes = rows.map(({ now, ...row }) => ({
    ...row,
    heartbeatAgeMs: now.getTime() - row.heartbeatAt.getTime(),
    expiresInMs: row.expiresAt.getTime() - now.getTime(),
    live: row.expiresAt > now,
    actors: byOwner.get(row.id) ?? {},
  }));
  return { nodes, unowned: byOwner.get(null) ?? {} };
}

// --- mail: events for actors another node holds ---

/** Leaves an event for an actor's owner; resolves with the letter's id. */
export async function postMail(db: DbOrTx, actorId: string, event: unknown, sender: string): Promise<number> {
  const { actorMail } = tablesOf(db);
  const [row] = await db.insert(actorMail).values({ actorId, event, sender, createdAt: new Date() }).returning({ id: actorMail.id });
  return row!.id;
}

/** Takes one letter out of the box (once, whichever node asks first). */
export async function takeMail(db: DbOrTx, id: number): Promise<ActorMailRow | undefined> {
  const { actorMail } = tablesOf(db);
  return (await db.delete(actorMail).where(eq(actorMail.id, id)).returning())[0];
}

/** Takes every letter waiting for these actors (an owner that just took them over). */
export async function takeMailFor(db: DbOrTx, actorIds: string[]): Promise<ActorMailRow[]> {
  if (!actorIds.length) return [];
  const { actorMail } = tablesOf(db);
  return db.delete(actorMail).where(inArray(actorMail.actorId, actorIds)).returning();
}

/** The node holding an active actor, or undefined when none does (unknown, or finished). */
export async function ownerOf(db: DbOrTx, actorId: string): Promise<string | undefined> {
  const { actors } = tablesOf(db);
  const [row] = await db.select({ owner: actors.owner }).from(actors).where(and(eq(actors.id, actorId), eq(actors.status, "active")));
  return row?.owner ?? undefined;
}
