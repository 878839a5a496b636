/** The store on both dialects: one repository-style query runs on either, with the same row types and errors. */
import { afterAll, describe, expect, test } from "bun:test";
import { eq, getTableColumns, getTableName, sql } from "drizzle-orm";
import { isUniqueViolation, openDatabase, tablesOf, type DatabaseHandle } from "../../src/db/client.ts";
import * as sqliteSchema from "../../src/db/schema.ts";
import * as pgSchema from "../../src/db/schema.pg.ts";
import { postgresForFile } from "../support/postgres.ts";
import { tempDir } from "../support/temp.ts";

const postgres = postgresForFile();
const dir = tempDir();
afterAll(() => dir.remove());

const open: Record<string, () => Promise<DatabaseHandle>> = {
  sqlite: () => openDatabase({ file: `${dir.path}/${crypto.randomUUID()}.db` }),
  postgresql: async () => openDatabase({ file: "", url: await (await postgres()).database() }),
};

test("both schemas declare the same tables, with the same columns under the same names", () => {
  const tables = (schema: Record<string, unknown>) =>
    Object.fromEntries(
      Object.entries(schema)
        .filter(([, value]) => typeof value === "object" && value !== null && Symbol.for("drizzle:IsDrizzleTable") in value)
        .map(([key, table]) => [key, { name: getTableName(table as never), columns: Object.fromEntries(Object.entries(getTableColumns(table as never) as Record<string, { name: string; notNull: boolean }>).map(([k, c]) => [k, [c.name, c.notNull]])) }]),
    );
  expect(tables(pgSchema)).toEqual(tables(sqliteSchema));
});

describe.each(Object.keys(open))("on %s", (dialect) => {
  test("a row written and read through the handle's tables keeps its JSON, times and numbers", async () => {
    const store = await open[dialect]!();
    try {
      const { actors } = tablesOf(store.db);
      const at = new Date(1_795_306_900_401);
      const row = { id: "a1", kind: "k", status: "active" as const, state: { nested: ["x", 1] }, snapshot: 42, deadline: 1_795_306_900_401, createdAt: at, updatedAt: at, finishedAt: null, owner: "n1", fence: 3, revision: 1 };
      await store.db.insert(actors).values(row);
      const [read] = await store.db.select().from(actors).where(eq(actors.id, "a1"));
      expect(read).toEqual(row);
      expect(await store.rows<{ n: number }>(sql`SELECT count(*) AS n FROM actors`)).toEqual([{ n: dialect === "sqlite" ? 1 : ("1" as never) }]);
      const again = await store.db.insert(actors).values(row).catch((error) => error);
      expect(isUniqueViolation(again)).toBe(true);
    } finally {
      await store.close();
    }
  });

  test("a transaction's rollback undoes its own writes and no one else's", async () => {
    const store = await open[dialect]!();
    try {
      const { clusterNodes } = tablesOf(store.db);
      const now = new Date();
      const node = (id: string) => ({ id, url: null, startedAt: now, heartbeatAt: now, expiresAt: now });
      const inside = Promise.withResolvers<void>();
      const written = Promise.withResolvers<void>();
      const failing = store.db
        .transaction(async (tx) => {
          await tx.insert(clusterNodes).values(node("mine"));
          inside.resolve();
          // Another request writes while this transaction is open (on SQLite it waits for the transaction to end).
          await written.promise;
          throw new Error("refused");
        })
        .catch((error: Error) => error.message);
      await inside.promise;
      const outside = store.db.insert(clusterNodes).values(node("theirs")).execute();
      written.resolve();
      expect(await failing).toBe("refused");
      await outside;
      const ids = (await store.db.select({ id: clusterNodes.id }).from(clusterNodes)).map((r) => r.id);
      expect(ids).toEqual(["theirs"]);
    } finally {
      await store.close();
    }
  });

  test("a transaction inside a transaction is a savepoint", async () => {
    const store = await open[dialect]!();
    try {
      const { clusterNodes } = tablesOf(store.db);
      const now = new Date();
      const node = (id: string) => ({ id, url: null, startedAt: now, heartbeatAt: now, expiresAt: now });
      await store.db.transaction(async (tx) => {
        await tx.insert(clusterNodes).values(node("kept"));
        await tx.transaction(async (inner) => {
          await inner.insert(clusterNodes).values(node("undone"));
          throw new Error("inner refused");
        }).catch(() => {});
      });
      expect((await store.db.select({ id: clusterNodes.id }).from(clusterNodes)).map((r) => r.id)).toEqual(["kept"]);
    } finally {
      await store.close();
    }
  });
});
