/** Queries on the browser's tables. Each takes the database or the transaction it should run in. */
import { desc, eq } from "drizzle-orm";
import { tablesOf, type DbOrTx } from "../db/client.ts";
import type { BrowserResultRow, BrowserSessionRow } from "../db/schema.ts";

export async function findNamedSession(db: DbOrTx, name: string): Promise<BrowserSessionRow | undefined> {
  const { browserSessions } = tablesOf(db);
  return (await db.select().from(browserSessions).where(eq(browserSessions.name, name)))[0];
}

export async function listNamedSessions(db: DbOrTx): Promise<BrowserSessionRow[]> {
  const { browserSessions } = tablesOf(db);
  return db.select().from(browserSessions).orderBy(browserSessions.name);
}

export async function saveNamedSession(db: DbOrTx, row: BrowserSessionRow): Promise<void> {
  const { browserSessions } = tablesOf(db);
  const { name: _name, createdAt: _createdAt, ...changes } = row;
  await db.insert(browserSessions).values(row).onConflictDoUpdate({ target: browserSessions.name, set: changes });
}

export async function deleteNamedSession(db: DbOrTx, name: string): Promise<boolean> {
  const { browserSessions } = tablesOf(db);
  return (await db.delete(browserSessions).where(eq(browserSessions.name, name)).returning({ name: browserSessions.name })).length > 0;
}

export async function insertResult(db: DbOrTx, row: BrowserResultRow): Promise<void> {
  await db.insert(tablesOf(db).browserResults).values(row);
}

export async function findResult(db: DbOrTx, id: string): Promise<BrowserResultRow | undefined> {
  const { browserResults } = tablesOf(db);
  return (await db.select().from(browserResults).where(eq(browserResults.id, id)))[0];
}

export async function listResults(db: DbOrTx, limit: number) {
  const { browserResults: r } = tablesOf(db);
  return db.select({ id: r.id, test: r.test, url: r.url, status: r.status, createdAt: r.createdAt }).from(r).orderBy(desc(r.createdAt)).limit(limit);
}
