/**
 * Opens the platform's SQLite database (bun:sqlite) and brings its schema up to date. Queries live in each
 * capability's repo.ts and take a `Db`, so a PostgreSQL dialect can later be passed in without touching services.
 */
import { Database } from "bun:sqlite";
import { createHash } from "node:crypto";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { dirname } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema.ts";
import { journal, migrationSql } from "./migrations.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };
/** What a repository function accepts: the database or a transaction on it. */
export type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];

export interface DatabaseHandle {
  db: Db;
  sqlite: Database;
  close(): void;
}

export function openDatabase(file: string): DatabaseHandle {
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
  const db = drizzle({ client: sqlite, schema });
  migrate(db);
  return { db, sqlite, close: () => sqlite.close() };
}

/**
 * Applies the migrations compiled into the program (see scripts/db-generate.ts) with drizzle's own bookkeeping,
 * so a database migrated by drizzle-kit and one migrated here agree on what has run.
 */
function migrate(db: Db): void {
  const migrations = journal.entries.map(({ tag, when, breakpoints }) => {
    const sql = migrationSql[tag];
    if (sql === undefined) throw new Error(`migration ${tag} is in the journal but not in src/db/migrations.ts`);
    return {
      sql: sql.split("--> statement-breakpoint"),
      bps: breakpoints,
      folderMillis: when,
      hash: createHash("sha256").update(sql).digest("hex"),
    };
  });
  // `dialect.migrate` is drizzle's migration engine; its public migrator only adds reading the files from disk.
  const { dialect, session } = db as unknown as DrizzleInternals;
  dialect.migrate(migrations, session, {});
}

interface DrizzleInternals {
  dialect: { migrate(migrations: unknown[], session: unknown, config: object): void };
  session: unknown;
}
