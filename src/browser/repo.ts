/** Queries on the browser's tables. Each takes the database or the transaction it should run in. */
import { desc, eq } from "drizzle-orm";
import type { DbOrTx } from "../db/client.ts";
import { browserResults, browserSessions, type BrowserResultRow, type BrowserSessionRow } from "../db/schema.ts";

export const findNamedSession = (db: DbOrTx, name: string) => db.select().from(browserSessions).where(eq(browserSessions.name, name)).get();
export const listNamedSessions = (db: DbOrTx) => db.select().from(browserSessions).orderBy(browserSessions.name).all();

export function saveNamedSession(db: DbOrTx, row: BrowserSessionRow): void {
  const { name: _name, createdAt: _createdAt, ...changes } = row;
  db.insert(browserSessions).values(row).onConflictDoUpdate({ target: browserSessions.name, set: changes }).run();
}

export const deleteNamedSession = (db: DbOrTx, name: string): boolean =>
  db.delete(browserSessions).where(eq(browserSessions.name, name)).returning({ name: browserSessions.name }).all().length > 0;

export const insertResult = (db: DbOrTx, row: BrowserResultRow) => void db.insert(browserResults).values(row).run();
export const findResult = (db: DbOrTx, id: string) => db.select().from(browserResults).where(eq(browserResults.id, id)).get();

export const listResults = (db: DbOrTx, limit: number) =>
  db
    .select({ id: browserResults.id, test: browserResults.test, url: browserResults.url, status: browserResults.status, createdAt: browserResults.createdAt })
    .from(browserResults)
    .orderBy(desc(browserResults.createdAt))
    .limit(limit)
    .all();
