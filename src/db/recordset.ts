/**
 * Many rows in one PostgreSQL statement whose text does not depend on how many: the rows go as one jsonb parameter
 * (Bun's SQL client sends it as JSON) and are read back as a relation, `jsonb_to_recordset($1::jsonb) AS v(...)`,
 * with a column of the table's own SQL type for each key. A batch of writes then costs one statement per table,
 * prepared once per connection, instead of one per row: fewer round trips through the driver and the server.
 */
import { getTableColumns, getTableName, sql, type SQL, type Table } from "drizzle-orm";
import type { DbOrTx } from "./client.ts";

/** A statement over `rows`, read as the relation `v`; its text is built once. */
export type RowsStatement = (rows: readonly object[]) => SQL;

/**
 * `before`, then `jsonb_to_recordset(rows) AS v(<keys with their columns' types>)`, then `after`. A row's keys are
 * its TypeScript property names (as in drizzle's row types), each typed as the table's column of that name.
 */
export function overRows(table: Table, keys: readonly string[], before: string, after = ""): RowsStatement {
  const columns = getTableColumns(table);
  const types = keys.map((key) => {
    const column = columns[key];
    if (!column) throw new Error(`no column ${key} in the table`);
    return `${quote(key)} ${column.getSQLType()}`;
  });
  const head = sql.raw(`${before} jsonb_to_recordset(`);
  const tail = sql.raw(`::jsonb) AS v(${types.join(", ")}) ${after}`);
  return (rows) => sql.join([head, sql.param(rows), tail]);
}

/**
 * `INSERT INTO table (<keys' columns>) SELECT ... FROM <rows>`. With `conflict`, a row whose `conflict` key exists
 * already is skipped, or with `update` has those keys' columns set from it instead (an upsert; one statement must
 * not name a row twice then).
 */
export function insertRows(table: Table, keys: readonly string[], upsert?: { conflict: string; update?: readonly string[] }): RowsStatement {
  const columns = getTableColumns(table);
  const column = (key: string) => quote(columns[key]!.name);
  const onConflict = !upsert
    ? ""
    : upsert.update
      ? `ON CONFLICT (${column(upsert.conflict)}) DO UPDATE SET ${upsert.update.map((k) => `${column(k)} = excluded.${column(k)}`).join(", ")}`
      : `ON CONFLICT (${column(upsert.conflict)}) DO NOTHING`;
  return overRows(table, keys, `INSERT INTO ${quote(getTableName(table))} (${keys.map(column).join(", ")}) SELECT ${keys.map((k) => `v.${quote(k)}`).join(", ")} FROM`, onConflict);
}

/** Runs a statement built here on PostgreSQL; resolves with its rows (those it returns). */
export async function runRows<T>(db: DbOrTx, statement: SQL): Promise<T[]> {
  return [...((await (db as unknown as { execute(query: SQL): Promise<Iterable<T>> }).execute(statement)) ?? [])];
}

const quote = (identifier: string) => `"${identifier.replaceAll('"', '""')}"`;
