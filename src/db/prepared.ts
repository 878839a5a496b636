/**
 * Statements prepared once per connection. Building and preparing a drizzle query costs more than running it,
 * so the queries on hot paths (each actor transition, each lookup by id) are prepared on first use. They are
 * cached per session: a transaction shares its database's session (one SQLite connection), so a statement
 * prepared on the database runs inside a transaction opened on it.
 */
import type { DbOrTx } from "./client.ts";

export function preparedOn<T>(build: (db: DbOrTx) => T): (db: DbOrTx) => T {
  const cache = new WeakMap<object, T>();
  return (db) => {
    const session = (db as unknown as { session: object }).session;
    let statements = cache.get(session);
    if (!statements) cache.set(session, (statements = build(db)));
    return statements;
  };
}
