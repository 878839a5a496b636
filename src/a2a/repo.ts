/** Queries on the `a2a_tasks`, `a2a_push_configs` and `a2a_push_attempts` tables. Each takes the database or the transaction it should run in. */
import { and, count, desc, eq, gt, inArray, isNull, lte, notInArray, sql, type SQL } from "drizzle-orm";
import { dialectOf, tablesOf, type DbOrTx } from "../db/client.ts";
import { preparedOn } from "../db/prepared.ts";
import { insertRows, runRows, type RowsStatement } from "../db/recordset.ts";
import type { A2aPushAttemptRow, A2aPushConfigRow, A2aTaskRow } from "../db/schema.ts";
import type { TaskState } from "./model.ts";

const columns = ["id", "type", "state", "contextId", "payload", "messages", "artifacts", "result", "error", "metadata", "owner", "revision", "createdAt", "updatedAt"] as const;

// The statements every final transition (and /health) runs, prepared once per connection: building and preparing
// a query each time costs more than running it.
const upsertStatement = preparedOn((db) => {
  const { a2aTasks } = tablesOf(db);
  const values = Object.fromEntries(columns.map((c) => [c, sql.placeholder(c)])) as unknown as A2aTaskRow;
  const { id: _id, createdAt: _createdAt, ...changes } = values;
  return db.insert(a2aTasks).values(values).onConflictDoUpdate({ target: a2aTasks.id, set: changes }).prepare();
});
const findStatement = preparedOn((db) => {
  const { a2aTasks } = tablesOf(db);
  return db.select().from(a2aTasks).where(eq(a2aTasks.id, sql.placeholder("id"))).prepare();
});
const countStatement = preparedOn((db) => {
  const { a2aTasks } = tablesOf(db);
  return db.select({ n: count() }).from(a2aTasks).where(eq(a2aTasks.state, sql.placeholder("state"))).prepare();
});

// PostgreSQL stores a batch's finished tasks in one statement (src/db/recordset.ts).
let pgUpsert: RowsStatement | undefined;
const pgUpsertStatement = (db: DbOrTx) =>
  (pgUpsert ??= insertRows(tablesOf(db).a2aTasks, columns, { conflict: "id", update: columns.filter((c) => c !== "id" && c !== "createdAt") }));

export const saveTask = async (db: DbOrTx, row: A2aTaskRow): Promise<void> => void (await upsertStatement(db).execute(row));

/** Stores tasks as saveTask does, each at most once. */
export async function saveTasks(db: DbOrTx, rows: A2aTaskRow[]): Promise<void> {
  if (!rows.length) return;
  if (dialectOf(db) === "postgresql") return void (await runRows(db, pgUpsertStatement(db)(rows)));
  for (const row of rows) await saveTask(db, row);
}
export const findTask = async (db: DbOrTx, id: string): Promise<A2aTaskRow | undefined> => (await findStatement(db).execute({ id }))[0];
export const countTasks = async (db: DbOrTx, state: TaskState): Promise<number> => Number((await countStatement(db).execute({ state }))[0]?.n ?? 0);

/** What a task list is narrowed to; `owner: null` means the tasks of unidentified callers. */
export interface TaskFilter {
  state?: TaskState;
  type?: string;
  contextId?: string;
  owner?: string | null;
  /** Only tasks whose last change is later than this. */
  updatedAfter?: Date;
  limit?: number;
}

/** Newest first. */
export async function listTasks(db: DbOrTx, filter: TaskFilter = {}): Promise<A2aTaskRow[]> {
  const { a2aTasks } = tablesOf(db);
  const conditions: SQL[] = [];
  if (filter.state) conditions.push(eq(a2aTasks.state, filter.state));
  if (filter.type) conditions.push(eq(a2aTasks.type, filter.type));
  if (filter.contextId) conditions.push(eq(a2aTasks.contextId, filter.contextId));
  if (filter.owner !== undefined) conditions.push(filter.owner === null ? isNull(a2aTasks.owner) : eq(a2aTasks.owner, filter.owner));
  if (filter.updatedAfter) conditions.push(gt(a2aTasks.updatedAt, filter.updatedAfter));
  const query = db.select().from(a2aTasks).where(and(...conditions)).orderBy(desc(a2aTasks.createdAt));
  return filter.limit ? query.limit(filter.limit) : query;
}

export async function deleteTask(db: DbOrTx, id: string): Promise<boolean> {
  const { a2aTasks } = tablesOf(db);
  return (await db.delete(a2aTasks).where(eq(a2aTasks.id, id)).returning({ id: a2aTasks.id })).length > 0;
}

/** Deletes final tasks last updated at or before `before`; returns their ids. */
export async function deleteFinishedBefore(db: DbOrTx, before: Date): Promise<string[]> {
  const { a2aTasks } = tablesOf(db);
  const rows = await db
    .delete(a2aTasks)
    .where(and(inArray(a2aTasks.state, ["completed", "failed", "cancelled"]), lte(a2aTasks.updatedAt, before)))
    .returning({ id: a2aTasks.id });
  return rows.map((r) => r.id);
}

// --- push notifications ---

/** Stores a task's push config; one with the same id replaces it (CreateTaskPushNotificationConfig is a set). */
export async function savePushConfig(db: DbOrTx, row: A2aPushConfigRow): Promise<void> {
  const { a2aPushConfigs } = tablesOf(db);
  const { taskId: _taskId, id: _id, ...changes } = row;
  await db.insert(a2aPushConfigs).values(row).onConflictDoUpdate({ target: [a2aPushConfigs.taskId, a2aPushConfigs.id], set: changes });
}

/** The ids of the tasks in progress that have a push config (a finished task has its row in `a2a_tasks`). */
export async function pushConfigTasks(db: DbOrTx): Promise<string[]> {
  const { a2aPushConfigs, a2aTasks } = tablesOf(db);
  const rows = await db
    .selectDistinct({ taskId: a2aPushConfigs.taskId })
    .from(a2aPushConfigs)
    .where(notInArray(a2aPushConfigs.taskId, db.select({ id: a2aTasks.id }).from(a2aTasks)));
  return rows.map((r) => r.taskId);
}

export async function pushConfigs(db: DbOrTx, taskId: string): Promise<A2aPushConfigRow[]> {
  const { a2aPushConfigs } = tablesOf(db);
  return db.select().from(a2aPushConfigs).where(eq(a2aPushConfigs.taskId, taskId)).orderBy(a2aPushConfigs.createdAt);
}

export async function pushConfig(db: DbOrTx, taskId: string, id: string): Promise<A2aPushConfigRow | undefined> {
  const { a2aPushConfigs } = tablesOf(db);
  return (await db.select().from(a2aPushConfigs).where(and(eq(a2aPushConfigs.taskId, taskId), eq(a2aPushConfigs.id, id))))[0];
}

export async function deletePushConfig(db: DbOrTx, taskId: string, id: string): Promise<boolean> {
  const { a2aPushConfigs } = tablesOf(db);
  const rows = await db.delete(a2aPushConfigs).where(and(eq(a2aPushConfigs.taskId, taskId), eq(a2aPushConfigs.id, id))).returning({ id: a2aPushConfigs.id });
  return rows.length > 0;
}

/** Records an attempt; recording the same attempt again (a later transition of its delivery) changes nothing. */
export async function recordPushAttempt(db: DbOrTx, row: A2aPushAttemptRow): Promise<void> {
  const { a2aPushAttempts } = tablesOf(db);
  await db.insert(a2aPushAttempts).values(row).onConflictDoNothing();
}

/** A task's delivery attempts, oldest first. */
export async function pushAttempts(db: DbOrTx, taskId: string): Promise<A2aPushAttemptRow[]> {
  const { a2aPushAttempts } = tablesOf(db);
  return db.select().from(a2aPushAttempts).where(eq(a2aPushAttempts.taskId, taskId)).orderBy(a2aPushAttempts.at, a2aPushAttempts.attempt);
}
