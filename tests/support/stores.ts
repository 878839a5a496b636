/**
 * The store fixture: a suite written once runs on both stores, `describe.each(stores)`. Each test gets a fresh
 * store of the kind it asks for: a SQLite file in the suite's temp folder, or a new database on the suite's
 * PostgreSQL server (one per test file, started on first use and removed after).
 */
import { afterAll } from "bun:test";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { openDatabase, storeOptions, type DatabaseHandle } from "../../src/db/client.ts";
import { postgresForFile, type PostgresServer } from "./postgres.ts";
import { tempDir } from "./temp.ts";

export const stores = ["sqlite", "postgresql"] as const;
export type StoreKind = (typeof stores)[number];

export interface FreshStore {
  kind: StoreKind;
  /** Opens it (again: a restart opens the same store). */
  open(): Promise<DatabaseHandle>;
  /** The environment that points a runtime at it (nothing for SQLite: the runtime's data dir holds the file). */
  env: Record<string, string>;
}

export function storesForFile() {
  const dir = tempDir();
  afterAll(() => dir.remove());
  const postgres = postgresForFile();
  let files = 0;
  return {
    /** The suite's PostgreSQL server (started on first use). */
    postgres: (): Promise<PostgresServer> => postgres(),
    async fresh(kind: StoreKind): Promise<FreshStore> {
      if (kind === "sqlite") {
        const file = join(dir.path, `store-${files++}.db`);
        return { kind, open: () => openDatabase({ file }), env: {} };
      }
      const url = await (await postgres()).database();
      return { kind, open: () => openDatabase({ file: "", url }), env: { DATABASE_URL: url } };
    },
  };
}

/** Opens the store a runtime on `dataDir` with settings `env` uses, afresh: to read what it left once it stopped. */
export const openStoreOf = (dataDir: string, env: Record<string, string> = {}): Promise<DatabaseHandle> =>
  openDatabase(storeOptions(loadConfig({ env: { PLATFORM_DATA_DIR: dataDir, ...env } })));
