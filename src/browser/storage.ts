/**
 * Named sessions' storage state (cookies and local storage) between their lives. The state is a vault secret,
 * encrypted by the vault's own store (AES-256-GCM under a data key wrapped by the master key, the record id
 * bound as associated data); the row beside it, which lists the session, holds nothing secret.
 */
import type { Db } from "../db/client.ts";
import type { SecretStore } from "../vault/store.ts";
import type { StorageState } from "./driver/protocol.ts";
import { BrowserServiceError } from "./errors.ts";
import type { NamedSessionView } from "./model.ts";
import type { StateStore } from "./pool.ts";
import * as repo from "./repo.ts";

const secretId = (name: string) => `browser-session:${name}`;

export class NamedSessions implements StateStore {
  #initialized = false;

  constructor(
    private readonly db: Db,
    /** Made on first use: a server whose sessions are never named never touches the vault's keys. */
    private readonly secrets: () => SecretStore,
  ) {}

  async load(name: string): Promise<StorageState | undefined> {
    if (!(await repo.findNamedSession(this.db, name))) return undefined;
    const value = await (await this.#store()).get(secretId(name));
    return value ? (JSON.parse(value.state!) as StorageState) : undefined;
  }

  async save(name: string, state: StorageState): Promise<void> {
    const store = await this.#store();
    const now = new Date();
    const existing = await repo.findNamedSession(this.db, name);
    await this.db.transaction(async (tx) => {
      await repo.saveNamedSession(tx, { name, cookies: state.cookies.length, origins: state.origins.length, createdAt: existing?.createdAt ?? now, updatedAt: now });
      await store.put(tx, secretId(name), { state: JSON.stringify(state) });
    });
  }

  async list(liveNames: Set<string>): Promise<NamedSessionView[]> {
    return (await repo.listNamedSessions(this.db)).map((row) => ({
      name: row.name,
      live: liveNames.has(row.name),
      cookies: row.cookies,
      origins: row.origins,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    }));
  }

  async delete(name: string): Promise<boolean> {
    const store = await this.#store();
    return this.db.transaction(async (tx) => {
      const deleted = await repo.deleteNamedSession(tx, name);
      if (deleted) await store.remove(tx, secretId(name));
      return deleted;
    });
  }

  async #store(): Promise<SecretStore> {
    const store = this.secrets();
    if (!this.#initialized) {
      await store.initialize();
      this.#initialized = true;
    }
    if (await store.isSealed()) throw BrowserServiceError.browser("Named sessions are stored in the vault, which is sealed; run 'platform vault unseal'");
    return store;
  }
}
