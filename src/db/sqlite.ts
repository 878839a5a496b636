/**
 * SQLite through bun:sqlite. bun:sqlite is synchronous; drizzle reaches it through its async SQLite driver
 * (sqlite-proxy), so repositories await SQLite as they await PostgreSQL. Each SQL text is prepared once. A
 * transaction owns the one connection until it ends: statements from elsewhere wait for it (so its rollback never
 * undoes another request's write), while statements made inside it (its async context) go straight through.
 */
import { Database, type Statement } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash } from "node:crypto";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { basename, dirname } from "node:path";
import type { SQL } from "drizzle-orm";
import { drizzle as syncDrizzle } from "drizzle-orm/bun-sqlite";
import { drizzle } from "drizzle-orm/sqlite-proxy";
import { SQLiteAsyncDialect } from "drizzle-orm/sqlite-core";
import type { DatabaseHandle, Db } from "./client.ts";
import { migrations } from "./migrations.ts";
import * as schema from "./schema.ts";

/** Prepared statements kept at most; dynamic queries (lists of ids, search filters) make many texts. */
const keptStatements = 2000;

export function openSqlite(file: string): DatabaseHandle {
  if (file !== ":memory:") {
    mkdirSync(dirname(file), { recursive: true });
    // The database holds sealed secrets and every record: its owner's alone. SQLite gives its WAL and shared-memory
    // files the database file's mode.
    closeSync(openSync(file, "a", 0o600));
    for (const path of [file, `${file}-wal`, `${file}-shm`]) if (existsSync(path)) chmodSync(path, 0o600);
  }
  const sqlite = new Database(file, { create: true, strict: true });
  // WAL lets readers run beside the writer; a killed process loses no committed transaction.
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  // SQLite's default page cache (2 MiB) makes a busy server re-read its indexes through system calls; a larger
  // cache and memory-mapped reads keep them in memory. Both grow only as pages are read.
  sqlite.exec("PRAGMA cache_size = -65536");
  sqlite.exec("PRAGMA mmap_size = 268435456");
  migrate(sqlite);

  const gate = new ConnectionGate();
  const statements = new Map<string, Statement>();
  const prepared = (text: string): Statement => {
    let statement = statements.get(text);
    if (!statement) {
      if (statements.size >= keptStatements) {
        const [oldest, kept] = statements.entries().next().value!;
        statements.delete(oldest);
        kept.finalize();
      }
      statements.set(text, (statement = sqlite.prepare(text)));
    }
    return statement;
  };
  const db = drizzle(
    async (text, params, method) => {
      while (!gate.free()) await gate.released();
      const statement = prepared(text);
      if (method === "run") {
        statement.run(...(params as never[]));
        return { rows: [] };
      }
      const rows = statement.values(...(params as never[]));
      return { rows: method === "get" ? (rows[0] as never) : rows };
    },
    { schema },
  ) as unknown as Db;

  let savepoints = 0;
  // drizzle's own transaction for this driver would send BEGIN as one more statement, with nothing to keep other
  // requests' statements out of it; this one owns the connection while it runs.
  const transaction = async <T>(run: (tx: Db) => Promise<T>): Promise<T> => {
    if (gate.inside()) {
      const name = `sp${++savepoints}`;
      sqlite.run(`SAVEPOINT ${name}`);
      try {
        const result = await run(db);
        sqlite.run(`RELEASE ${name}`);
        return result;
      } catch (error) {
        sqlite.run(`ROLLBACK TO ${name}`);
        sqlite.run(`RELEASE ${name}`);
        throw error;
      }
    }
    const owner = await gate.acquire();
    try {
      sqlite.run("BEGIN IMMEDIATE");
      try {
        const result = await gate.context.run(owner, () => run(db));
        sqlite.run("COMMIT");
        return result;
      } catch (error) {
        if (sqlite.inTransaction) sqlite.run("ROLLBACK");
        throw error;
      }
    } finally {
      gate.release();
    }
  };
  // `$client` as drizzle's own drivers name it: the connection, for the few reads a repository makes on it directly.
  Object.assign(db, { transaction, $client: sqlite });

  const dialect = new SQLiteAsyncDialect();
  return {
    db,
    dialect: "sqlite",
    shared: false,
    location: file === ":memory:" ? file : basename(file),
    async rows<T>(query: SQL) {
      while (!gate.free()) await gate.released();
      const { sql: text, params } = dialect.sqlToQuery(query);
      return sqlite.query(text).all(...(params as never[])) as T[];
    },
    async ping() {
      sqlite.query("SELECT 1").get();
    },
    async close() {
      while (!gate.free()) await gate.released();
      for (const statement of statements.values()) statement.finalize();
      sqlite.close();
    },
  };
}

/** Who may use the connection: anyone, or only the transaction that holds it (and what runs in its async context). */
class ConnectionGate {
  readonly context = new AsyncLocalStorage<symbol>();
  #owner?: symbol;
  #waiting: (() => void)[] = [];

  /** True when a statement made here may run now. */
  free(): boolean {
    return this.#owner === undefined || this.context.getStore() === this.#owner;
  }

  /** True inside the transaction that holds the connection. */
  inside(): boolean {
    return this.#owner !== undefined && this.context.getStore() === this.#owner;
  }

  /** Resolves when the transaction holding the connection has ended. */
  released(): Promise<void> {
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  async acquire(): Promise<symbol> {
    while (this.#owner !== undefined) await this.released();
    return (this.#owner = Symbol("transaction"));
  }

  release(): void {
    this.#owner = undefined;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const wake of waiting) wake();
  }
}

/**
 * Applies the compiled-in migrations with drizzle's own bookkeeping, so a database migrated by drizzle-kit and one
 * migrated here agree on what has run. Runs before anything else uses the connection, on drizzle's synchronous
 * bun:sqlite driver.
 */
function migrate(sqlite: Database): void {
  const { journal, sql } = migrations.sqlite;
  const entries = journal.entries.map(({ tag, when, breakpoints }) => {
    const text = sql[tag];
    if (text === undefined) throw new Error(`migration ${tag} is in the journal but not in src/db/migrations.ts`);
    return { sql: text.split("--> statement-breakpoint"), bps: breakpoints, folderMillis: when, hash: createHash("sha256").update(text).digest("hex") };
  });
  // `dialect.migrate` is drizzle's migration engine; its public migrator only adds reading the files from disk.
  const { dialect, session } = syncDrizzle({ client: sqlite }) as unknown as { dialect: { migrate(m: unknown[], s: unknown, c: object): void }; session: unknown };
  dialect.migrate(entries, session, {});
}
