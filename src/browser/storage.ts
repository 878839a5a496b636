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

  load(name: string): StorageState | undefined {
    if (!repo.findNamedSession(this.db, name)) return undefined;
    const value = this.#store().get(secretId(name));
    return value ? (JSON.parse(value.state!) as StorageState) : undefined;
  }

  save(name: string, state: StorageState): void {
    const store = this.#store();
    const now = new Date();
    const existing = repo.findNamedSession(this.db, name);
    this.db.transaction((tx) => {
      repo.saveNamedSession(tx, { name, cookies: state.cookies.length, origins: state.origins.length, createdAt: existing?.createdAt ?? now, updatedAt: now });
      store.put(tx, secretId(name), { state: JSON.stringify(state) });
    });
  }

  list(liveNames: Set<string>): NamedSessionView[] {
    return repo.listNamedSessions(this.db).map((row) => ({
      name: row.name,
      live: liveNames.has(row.name),
      cookies: row.cookies,
      origins: row.origins,
      created_at: row.createdAt.toISOString(),
      updated_at: row.updatedAt.toISOString(),
    }));
  }

  delete(name: string): boolean {
    return this.db.transaction((tx) => {
      const deleted = repo.deleteNamedSession(tx, name);
      if (deleted) this.#store().remove(tx, secretId(name));
      return deleted;
    });
  }

  #store(): SecretStore {
    const store = this.secrets();
    if (!this.#initialized) {
      store.initialize();
      this.#initialized = true;
    }
    if (store.isSealed()) throw BrowserServiceError.browser("Named sessions are stored in the vault, which is sealed; run 'platform vault unseal'");
    return store;
  }
}
