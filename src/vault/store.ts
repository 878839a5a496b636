/**
 * The encrypted store: seal state, data keys and secrets. A secret is JSON encrypted with the active data key
 * (AES-256-GCM, record id as associated data); data keys are wrapped by the master key, which lives in the key
 * files and, in clear, only in the memory of an unsealed process.
 *
 * The seal flag is in the database so that `platform vault seal` reaches every process using this data dir:
 * each operation reads it first, and a sealed process drops its keys from memory.
 */
import { randomUUID } from "node:crypto";
import type { Db, DbOrTx } from "../db/client.ts";
import { decrypt, encrypt, randomKey } from "./crypto.ts";
import { VaultError } from "./errors.ts";
import type { Keyring, MasterKeys } from "./keys.ts";
import * as repo from "./repo.ts";

export type SecretValue = Record<string, string>;

export interface StoreStatus {
  initialized: boolean;
  sealed: boolean;
  masterVersion: number | null;
  dataKeys: number;
}

export class SecretStore {
  #master?: MasterKeys;
  readonly #dataKeys = new Map<string, Buffer>();

  constructor(
    private readonly db: Db,
    private readonly keyring: Keyring,
    private readonly options: { autoUnseal: boolean; unsealKeyFile?: string },
  ) {}

  /**
   * On first start: creates the key files and the first data key, unsealed. Later starts change nothing; on a
   * store shared by several nodes, the first node to start does it, and the others unseal from the same key files.
   */
  async initialize(): Promise<void> {
    if (await repo.readState(this.db)) return;
    const created = await this.db.transaction(async (tx) => {
      // Nodes starting together take turns here: the first writes the key files and the state, the others find
      // the state written and unseal from those files.
      await repo.lockInitialization(tx);
      if (await repo.readState(tx)) return undefined;
      if (!this.keyring.exists()) this.keyring.create();
      const { current, keys } = this.keyring.open(this.#material());
      const id = `dk_${randomUUID()}`;
      await repo.insertDataKey(tx, { id, masterVersion: current, wrapped: wrapDataKey(keys.get(current)!, randomKey(), id), active: true, createdAt: new Date() });
      await repo.writeState(tx, { sealed: false, masterVersion: current });
      return keys;
    });
    if (created) this.#master = created;
  }

  /** What /health shows: the seal state as last read (every operation reads it; `isSealed` reads it anew). */
  health(): { sealed: boolean; masterVersion: number | null } {
    return this.#health;
  }
  #health: { sealed: boolean; masterVersion: number | null } = { sealed: true, masterVersion: null };

  async status(): Promise<StoreStatus> {
    const state = await repo.readState(this.db);
    return {
      initialized: state !== undefined,
      sealed: this.isSealedBy(state),
      masterVersion: state?.masterVersion ?? null,
      dataKeys: await repo.countDataKeys(this.db),
    };
  }

  /** True when the flag says sealed or this process cannot open the keys; a sealed process forgets its keys. */
  async isSealed(): Promise<boolean> {
    return this.isSealedBy(await repo.readState(this.db));
  }

  /** isSealed, given the state row as read. */
  isSealedBy(state: Awaited<ReturnType<typeof repo.readState>>): boolean {
    const sealed = this.#judge(state);
    this.#health = { sealed, masterVersion: state?.masterVersion ?? null };
    return sealed;
  }

  #judge(state: Awaited<ReturnType<typeof repo.readState>>): boolean {
    if (!state || state.sealed) {
      this.#forget();
      return true;
    }
    if (this.#master) return false;
    if (!this.options.autoUnseal) return true;
    try {
      this.#master = this.keyring.open(this.#material()).keys;
      return false;
    } catch {
      return true;
    }
  }

  async seal(): Promise<void> {
    const state = await repo.readState(this.db);
    if (!state) throw new VaultError("NOT_FOUND", "The vault is not initialised; start the server once first");
    await repo.writeState(this.db, { sealed: true, masterVersion: state.masterVersion });
    this.#forget();
  }

  /** Opens the master key with the unseal key (checked before anything changes), then clears the flag. */
  async unseal(keyFile?: string): Promise<void> {
    const state = await repo.readState(this.db);
    if (!state) throw new VaultError("NOT_FOUND", "The vault is not initialised; start the server once first");
    const { keys } = this.keyring.open(this.#material(keyFile));
    this.#master = keys;
    await repo.writeState(this.db, { sealed: false, masterVersion: state.masterVersion });
  }

  /** Throws the sealed error unless the vault can serve secrets now. */
  async assertUnsealed(): Promise<void> {
    if (await this.isSealed()) throw VaultError.sealed();
  }

  async put(tx: DbOrTx, id: string, value: SecretValue): Promise<void> {
    if (this.isSealedBy(await repo.readState(tx))) throw VaultError.sealed();
    const key = await repo.activeDataKey(tx);
    if (!key) throw new Error("the vault has no active data key");
    const sealed = encrypt(await this.#dataKey(tx, key.id), Buffer.from(JSON.stringify(value)), secretAad(id));
    await repo.saveSecret(tx, { id, dataKeyId: key.id, sealed, updatedAt: new Date() });
  }

  async get(id: string): Promise<SecretValue | undefined> {
    await this.assertUnsealed();
    const row = await repo.findSecret(this.db, id);
    if (!row) return undefined;
    return JSON.parse(decrypt(await this.#dataKey(this.db, row.dataKeyId), row.sealed, secretAad(id)).toString("utf8")) as SecretValue;
  }

  async remove(tx: DbOrTx, id: string): Promise<void> {
    await repo.deleteSecret(tx, id);
  }

  /**
   * Makes a new master key version and re-wraps every data key under it in one transaction; secrets are not
   * touched, and a process already holding data keys keeps serving throughout.
   */
  async rotate(): Promise<{ masterVersion: number; dataKeys: number }> {
    await this.assertUnsealed();
    const material = this.#material();
    const { version, key } = this.keyring.addVersion(material);
    const { keys } = this.keyring.open(material);
    const rows = await repo.dataKeys(this.db);
    await this.db.transaction(async (tx) => {
      for (const row of rows) {
        const dataKey = decrypt(keys.get(row.masterVersion)!, row.wrapped, dataKeyAad(row.id));
        await repo.rewrapDataKey(tx, row.id, version, wrapDataKey(key, dataKey, row.id));
      }
      await repo.writeState(tx, { sealed: false, masterVersion: version });
    });
    this.keyring.retainOnly(version);
    this.#master = new Map([[version, key]]);
    return { masterVersion: version, dataKeys: rows.length };
  }

  async #dataKey(db: DbOrTx, id: string): Promise<Buffer> {
    const cached = this.#dataKeys.get(id);
    if (cached) return cached;
    const row = await repo.findDataKey(db, id);
    if (!row) throw new Error(`data key ${id} is missing`);
    // Another process may have rotated the master key since this one unsealed: read the key file again.
    if (!this.#master?.has(row.masterVersion)) this.#master = this.keyring.open(this.#material()).keys;
    const key = decrypt(this.#master.get(row.masterVersion)!, row.wrapped, dataKeyAad(id));
    this.#dataKeys.set(id, key);
    return key;
  }

  #material(keyFile = this.options.unsealKeyFile) {
    return this.keyring.readUnsealMaterial(keyFile);
  }

  #forget(): void {
    for (const key of this.#dataKeys.values()) key.fill(0);
    this.#dataKeys.clear();
    for (const key of this.#master?.values() ?? []) key.fill(0);
    this.#master = undefined;
  }
}

const secretAad = (id: string) => `secret:${id}`;
const dataKeyAad = (id: string) => `data-key:${id}`;
const wrapDataKey = (master: Buffer, dataKey: Buffer, id: string) => encrypt(master, dataKey, dataKeyAad(id));
