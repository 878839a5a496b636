/** Queries on the `a2a_tasks`, `a2a_push_configs` and `a2a_push_attempts` tables. Each takes the database or the transaction it should run in. */
import { and, count, desc, eq, gt, inArray, isNull, lte, notInArray, sql, type SQL } from "drizzle-orm";
import type { Db, DbOrTx } from "../db/client.ts";
import { a2aPushAttempts, a2aPushConfigs, a2aTasks, type A2aPushAttemptRow, type A2aPushConfigRow, type A2aTaskRow } from "../db/schema.ts";
import type { TaskState } from "./model.ts";

const columns = ["id", "type", "state", "contextId", "payload", "messages", "artifacts", "result", "error", "metadata", "owner", "revision", "createdAt", "updatedAt"] as const;

/**
 * The statements every transition (and /health) runs, prepared once: building and preparing a query each time costs more
 * than running it. They run on the connection of `db`, so inside a transaction opened on it they are part of it.
 */
export function taskStatements(db: Db) {
  const values = Object.fromEntries(columns.map((c) => [c, sql.placeholder(c)])) as unknown as A2aTaskRow;
  const { id: _id, createdAt: _createdAt, ...changes } = values;
  const upsert = db.insert(a2aTasks).values(values).onConflictDoUpdate({ target: a2aTasks.id, set: changes }).prepare();
  const find = db.select().from(a2aTasks).where(eq(a2aTasks.id, sql.placeholder("id"))).prepare();
  const inState = db.select({ n: count() }).from(a2aTasks).where(eq(a2aTasks.state, sql.placeholder("state"))).prepare();
  return {
    save: (row: A2aTaskRow): void => void upsert.run(row),
    find: (id: string): A2aTaskRow | undefined => find.get({ id }),
    count: (state: TaskState): number => inState.get({ state })?.n ?? 0,
  };
}

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
export function listTasks(db: DbOrTx, filter: TaskFilter = {}): A2aTaskRow[] {
  const conditions: SQL[] = [];
  if (filter.state) conditions.push(eq(a2aTasks.state, filter.state));
  if (filter.type) conditions.push(eq(a2aTasks.type, filter.type));
  if (filter.contextId) conditions.push(eq(a2aTasks.contextId, filter.contextId));
  if (filter.owner !== undefined) conditions.push(filter.owner === null ? isNull(a2aTasks.owner) : eq(a2aTasks.owner, filter.owner));
  if (filter.updatedAfter) conditions.push(gt(a2aTasks.updatedAt, filter.updatedAfter));
  const query = db.select().from(a2aTasks).where(and(...conditions)).orderBy(desc(a2aTasks.createdAt));
  return filter.limit ? query.limit(filter.limit).all() : query.all();
}

export const deleteTask = (db: DbOrTx, id: string): boolean =>
  db.delete(a2aTasks).where(eq(a2aTasks.id, id)).returning({ id: a2aTasks.id }).all().length > 0;

/** Deletes final tasks last updated at or before `before`; returns their ids. */
export const deleteFinishedBefore = (db: DbOrTx, before: Date): string[] =>
  db
    .delete(a2aTasks)
    .where(and(inArray(a2aTasks.state, ["completed", "failed", "cancelled"]), lte(a2aTasks.updatedAt, before)))
    .returning({ id: a2aTasks.id })
    .all()
    .map((r) => r.id);

// --- push notifications ---

/** Stores a task's push config; one with the same id replaces it (CreateTaskPushNotificationConfig is a set). */
export const savePushConfig = (db: DbOrTx, row: A2aPushConfigRow): void => {
  const { taskId: _taskId, id: _id, ...changes } = row;
  db.insert(a2aPushConfigs).values(row).onConflictDoUpdate({ target: [a2aPushConfigs.taskId, a2aPushConfigs.id], set: changes }).run();
};

/** The ids of the tasks in progress that have a push config (a finished task has its row in `a2a_tasks`). */
export const pushConfigTasks = (db: DbOrTx): string[] =>
  db
    .selectDistinct({ taskId: a2aPushConfigs.taskId })
    .from(a2aPushConfigs)
    .where(notInArray(a2aPushConfigs.taskId, db.select({ id: a2aTasks.id }).from(a2aTasks)))
    .all()
    .map((r) => r.taskId);

export const pushConfigs = (db: DbOrTx, taskId: string): A2aPushConfigRow[] =>
  db.select().from(a2aPushConfigs).where(eq(a2aPushConfigs.taskId, taskId)).orderBy(a2aPushConfigs.createdAt).all();

export const pushConfig = (db: DbOrTx, taskId: string, id: string): A2aPushConfigRow | undefined =>
  db.select().from(a2aPushConfigs).where(and(eq(a2aPushConfigs.taskId, taskId), eq(a2aPushConfigs.id, id))).get();

export const deletePushConfig = (db: DbOrTx, taskId: string, id: string): boolean =>
  db.delete(a2aPushConfigs).where(and(eq(a2aPushConfigs.taskId, taskId), eq(a2aPushConfigs.id, id))).returning({ id: a2aPushConfigs.id }).all().length > 0;

/** Records an attempt; recording the same attempt again (a later transition of its delivery) changes nothing. */
export const recordPushAttempt = (db: DbOrTx, row: A2aPushAttemptRow): void => void db.insert(a2aPushAttempts).values(row).onConflictDoNothing().run();

/** A task's delivery attempts, oldest first. */
export const pushAttempts = (db: DbOrTx, taskId: string): A2aPushAttemptRow[] =>
  db.select().from(a2aPushAttempts).where(eq(a2aPushAttempts.taskId, taskId)).orderBy(a2aPushAttempts.at, a2aPushAttempts.attempt).all();
