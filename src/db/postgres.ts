/**
 * PostgreSQL through Bun's built-in SQL client (drizzle-orm/bun-sql): a pool of `poolSize` connections, one
 * more for LISTEN (shared by every channel, reconnected by the client when it drops). Migrations run under an
 * advisory lock, so nodes that start together migrate once.
 */
import { createHash } from "node:crypto";
import { SQL as Client } from "bun";
import type { SQL } from "drizzle-orm";
import { drizzle } from "drizzle-orm/bun-sql";
import { PgDialect } from "drizzle-orm/pg-core";
import type { DatabaseHandle, Db } from "./client.ts";
import { migrations } from "./migrations.ts";
import * as schema from "./schema.pg.ts";

/** Held while a node migrates; any other fixed number would do, as long as every node uses this one. */
const migrationLock = 7_201_021;

export async function openPostgres(url: string, { poolSize = 10, connectTimeoutMs = 3000, statementTimeoutMs = 30_000 } = {}): Promise<DatabaseHandle> {
  const location = withoutPassword(url);
  const lost = new Set<() => void>();
  let closing = false;
  const client = new Client(url, {
    max: poolSize,
    connectionTimeout: Math.max(1, Math.ceil(connectTimeoutMs / 1000)),
    // Idle connections are let go, so a database that restarted is met by fresh ones.
    idleTimeout: 30,
    connection: {
      application_name: "platform",
      // A statement the server cannot finish in time fails (57014, answered 503) instead of holding its request.
      statement_timeout: statementTimeoutMs,
      // A transaction left open (its node cut off mid-way) gives its row locks back instead of holding them.
      idle_in_transaction_session_timeout: Math.max(statementTimeoutMs, 10_000),
    },
    // A connection that dropped (not one let go for idling, nor at close) says the server may be gone.
    onclose: (error) => {
      if (closing || (error as { code?: string } | null)?.code === "ERR_POSTGRES_IDLE_TIMEOUT") return;
      for (const listener of lost) listener();
    },
  });
  try {
    await migrate(client);
  } catch (error) {
    await client.close().catch(() => {});
    throw new Error(`the PostgreSQL store at ${location} could not be opened: ${(error as Error).message}`, { cause: error });
  }
  const db = drizzle({ client, schema }) as unknown as Db;
  const dialect = new PgDialect();
  return {
    db,
    dialect: "postgresql",
    shared: true,
    location,
    async rows<T>(query: SQL) {
      const { sql: text, params } = dialect.sqlToQuery(query);
      return [...(await client.unsafe(text, params as never[]))] as T[];
    },
    async ping() {
      await client`SELECT 1`;
    },
    async listen(channel, listener, listening) {
      // The client reconnects a dropped listening connection by itself and calls this again each time.
      let first = true;
      const subscription = await client.listen(channel, listener, () => {
        if (!first) listening?.();
        first = false;
      });
      return () => subscription.unlisten();
    },
    onConnectionLost(listener) {
      lost.add(listener);
    },
    async close() {
      closing = true;
      await client.close({ timeout: 5 });
    },
  };
}

/** The compiled-in migrations, applied with drizzle's bookkeeping on one reserved connection under the lock. */
async function migrate(client: Client): Promise<void> {
  const { journal, sql } = migrations.postgresql;
  const entries = journal.entries.map(({ tag, when, breakpoints }) => {
    const text = sql[tag];
    if (text === undefined) throw new Error(`migration ${tag} is in the journal but not in src/db/migrations.ts`);
    return { sql: text.split("--> statement-breakpoint"), bps: breakpoints, folderMillis: when, hash: createHash("sha256").update(text).digest("hex") };
  });
  const connection = await client.reserve();
  try {
    // A migration may rightly take longer than any request's statement.
    await connection`SET statement_timeout = 0`;
    await connection`SELECT pg_advisory_lock(${migrationLock})`;
    try {
      const { dialect, session } = drizzle({ client: connection }) as unknown as { dialect: { migrate(m: unknown[], s: unknown, c: object): Promise<void> }; session: unknown };
      await dialect.migrate(entries, session, {});
    } finally {
      await connection`SELECT pg_advisory_unlock(${migrationLock})`;
    }
  } finally {
    connection.release();
  }
}

/** The URL with its password replaced, fit for a log line. */
export function withoutPassword(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = "***";
    return parsed.href;
  } catch {
    return "(an unparseable database URL)";
  }
}
