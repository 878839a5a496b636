/**
 * The store: SQLite in the data dir by default, PostgreSQL when `database.url` names one. Both are handed out as
 * one drizzle database whose queries repositories `await`; each capability's repo.ts takes its tables from the
 * handle (`tablesOf`) and its queries run on either dialect (docs/deploy.md). Code above the repositories never
 * knows which store it runs on.
 */
import { join } from "node:path";
import { sql, type SQL } from "drizzle-orm";
import type { SqliteRemoteDatabase } from "drizzle-orm/sqlite-proxy";
import type { Config } from "../config.ts";
import type * as schema from "./schema.ts";

export type Dialect = "sqlite" | "postgresql";

/**
 * What a repository queries. Typed as drizzle's async SQLite database: the PostgreSQL database drizzle hands out
 * for `database.url` offers the same query builders for everything repositories use (select, insert, update,
 * delete, where, orderBy, limit, returning, onConflictDoUpdate/DoNothing, transaction), each awaited. Terminal
 * calls only SQLite has (`.get()`, `.all()`, `.run()`) are not used; tests run every repository on both.
 */
export type Db = SqliteRemoteDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** What a repository function accepts: the database or a transaction on it. */
export type DbOrTx = Db | Tx;

export interface DatabaseHandle {
  db: Db;
  dialect: Dialect;
  /** True when other nodes may share the store (PostgreSQL): state that must hold across nodes lives there, not in memory. */
  shared: boolean;
  /** Where the store is, without any password: for logs, /health and errors. */
  location: string;
  /** A raw query's rows as objects (tests and admin tools; repositories use the query builders). */
  rows<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  /** Resolves when the store answers a trivial query; rejects when it cannot be reached. */
  ping(): Promise<void>;
  /**
   * Calls `listener` with each payload sent to `channel` by any node (PostgreSQL LISTEN/NOTIFY), and `listening`
   * each time the subscription stands again after its connection dropped (notifications sent meanwhile are lost);
   * resolves with the function that stops listening. Absent where there are no other nodes to hear from (SQLite).
   */
  listen?(channel: string, listener: (payload: string) => void, listening?: () => void): Promise<() => Promise<void>>;
  /** Calls `listener` whenever a connection to the store drops (PostgreSQL): the server may be gone. */
  onConnectionLost?(listener: () => void): void;
  close(): Promise<void>;
}

export interface StoreOptions {
  /** The SQLite file when `url` is empty. */
  file: string;
  url?: string;
  poolSize?: number;
  connectTimeoutMs?: number;
  statementTimeoutMs?: number;
}

/** The store the configuration names: `database.url`, else the SQLite file in the data dir. */
export const storeOptions = (config: Config): StoreOptions => ({
  file: join(config.data_dir, "platform.db"),
  url: config.database.url,
  poolSize: config.database.pool_size,
  connectTimeoutMs: config.database.connect_timeout_ms,
  statementTimeoutMs: config.database.statement_timeout_ms,
});

/** Opens the store `options` name and brings its schema up to date. */
export async function openDatabase(options: StoreOptions | string): Promise<DatabaseHandle> {
  const { file, url, ...rest } = typeof options === "string" ? { file: options } : options;
  if (url) {
    const { openPostgres } = await import("./postgres.ts");
    return openPostgres(url, rest);
  }
  const { openSqlite } = await import("./sqlite.ts");
  return openSqlite(file);
}

/**
 * The tables of the handle's dialect: the same names and row types on both, so a repository written once runs on
 * either. (A drizzle database carries the schema it was made with.)
 */
export const tablesOf = (db: DbOrTx): typeof schema => (db as unknown as { _: { fullSchema: typeof schema } })._.fullSchema;

/** The driver's own error behind drizzle's query error. */
const driverError = (error: unknown): { code?: unknown; errno?: unknown; message?: unknown } => {
  const cause = (error as { cause?: unknown })?.cause;
  return (cause ?? error ?? {}) as { code?: unknown; errno?: unknown };
};

/** A primary key or unique index refused the write (SQLite's constraint codes, PostgreSQL's SQLSTATE 23505). */
export function isUniqueViolation(error: unknown): boolean {
  const { code, errno } = driverError(error);
  return code === "SQLITE_CONSTRAINT_PRIMARYKEY" || code === "SQLITE_CONSTRAINT_UNIQUE" || errno === "23505";
}

/** Bun's codes for a connection to PostgreSQL that could not be made or was lost. */
const connectionLost = new Set([
  "ERR_POSTGRES_CONNECTION_CLOSED",
  "ERR_POSTGRES_CONNECTION_FAILED",
  "ERR_POSTGRES_CONNECTION_REFUSED",
  "ERR_POSTGRES_CONNECTION_TIMEOUT",
  "ERR_POSTGRES_LIFETIME_TIMEOUT",
]);

/**
 * Whether `error` (or an error it was caused by: drizzle's query error, an actor's refused write) says the store
 * could not be reached or did not answer in time, rather than refusing what was asked: no connection, the
 * server shutting down or starting (SQLSTATE 57P01-57P03), a connection exception (class 08), too many
 * connections (53300), or the statement timeout (57014). What was asked may be asked again once it is back.
 */
export function storeUnreachable(error: unknown): boolean {
  for (let at = error, depth = 0; at && depth < 8; at = (at as { cause?: unknown }).cause, depth++) {
    if (at instanceof StoreUnavailable) return true;
    const { code, errno } = at as { code?: unknown; errno?: unknown };
    if (typeof code === "string" && connectionLost.has(code)) return true;
    if (typeof errno === "string" && (errno.startsWith("08") || /^57P0[123]$/.test(errno) || errno === "57014" || errno === "53300")) return true;
  }
  return false;
}

export const storeUnavailableMessage = "The store (the database) cannot be reached right now; try again shortly.";

/** The store cannot be reached: a request that needs it is answered 503 (its surface's own shape) and may be retried. */
export class StoreUnavailable extends Error {
  override name = "StoreUnavailable";
  readonly status = 503;
  readonly code = "STORE_UNAVAILABLE";
  constructor(cause?: unknown) {
    super(storeUnavailableMessage, { cause });
  }
}

/** `error` as StoreUnavailable when it says the store is out of reach; otherwise `error` itself. */
export const asStoreUnavailable = (error: unknown): unknown => (error instanceof StoreUnavailable || !storeUnreachable(error) ? error : new StoreUnavailable(error));

/** Which dialect a database or transaction speaks, for the few queries a repository must write per dialect. */
export const dialectOf = (db: DbOrTx): Dialect =>
  (db as unknown as { dialect: { constructor: { name: string } } }).dialect.constructor.name === "PgDialect" ? "postgresql" : "sqlite";

/**
 * A nullable time for a prepared statement's placeholder written as raw SQL (drizzle's own time encoders cannot
 * take null there): epoch milliseconds on SQLite, the Date itself on PostgreSQL.
 */
export const timeParam = (db: DbOrTx, value: Date | null): number | Date | null =>
  value === null ? null : dialectOf(db) === "sqlite" ? value.getTime() : value;

/** Runs a raw statement on a database or transaction of either dialect (drizzle names the call differently on each). */
export async function execute(db: DbOrTx, query: SQL): Promise<void> {
  const raw = db as unknown as { run?(query: SQL): Promise<unknown>; execute(query: SQL): Promise<unknown> };
  await (dialectOf(db) === "sqlite" ? raw.run!(query) : raw.execute(query));
}

/**
 * The store's clock, for leases: PostgreSQL's now() (one clock for every node, whatever theirs say); SQLite's
 * single node reads its own.
 */
export const storeNow = (db: DbOrTx, plusMs = 0): SQL =>
  dialectOf(db) === "postgresql" ? sql`(now() + ${plusMs} * interval '1 millisecond')` : sql`${Date.now() + plusMs}`;
