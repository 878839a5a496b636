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

  /** On first start: creates the key files and the first data key, unsealed. Later starts change nothing. */
  initialize(): void {
    if (repo.readState(this.db)) return;
    if (!this.keyring.exists()) this.keyring.create();
    const { current, keys } = this.keyring.open(this.#material());
    const id = `dk_${randomUUID()}`;
    this.db.transaction((tx) => {
      repo.insertDataKey(tx, { id, masterVersion: current, wrapped: wrapDataKey(keys.get(current)!, randomKey(), id), active: true, createdAt: new Date() });
      repo.writeState(tx, { sealed: false, masterVersion: current });
    });
    this.#master = keys;
  }

  /** What /health shows: one read of the state row. */
  health(): { sealed: boolean; masterVersion: number | null } {
    const state = repo.readState(this.db);
    return { sealed: this.isSealed(state), masterVersion: state?.masterVersion ?? null };
  }

  status(): StoreStatus {
    const state = repo.readState(this.db);
    return {
      initialized: state !== undefined,
      sealed: this.isSealed(state),
      masterVersion: state?.masterVersion ?? null,
      dataKeys: repo.countDataKeys(this.db),
    };
  }

  /** True when the flag says sealed or this process cannot open the keys; a sealed process forgets its keys. */
  isSealed(state = repo.readState(this.db)): boolean {
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

  seal(): void {
    const state = repo.readState(this.db);
    if (!state) throw new VaultError("NOT_FOUND", "The vault is not initialised; start the server once first");
    repo.writeState(this.db, { sealed: true, masterVersion: state.masterVersion });
    this.#forget();
  }

  /** Opens the master key with the unseal key (checked before anything changes), then clears the flag. */
  unseal(keyFile?: string): void {
    const state = repo.readState(this.db);
    if (!state) throw new VaultError("NOT_FOUND", "The vault is not initialised; start the server once first");
    const { keys } = this.keyring.open(this.#material(keyFile));
    this.#master = keys;
    repo.writeState(this.db, { sealed: false, masterVersion: state.masterVersion });
  }

  /** Throws the sealed error unless the vault can serve secrets now. */
  assertUnsealed(): void {
    if (this.isSealed()) throw VaultError.sealed();
  }

  put(tx: DbOrTx, id: string, value: SecretValue): void {
    this.assertUnsealed();
    const key = repo.activeDataKey(tx);
    if (!key) throw new Error("the vault has no active data key");
    const sealed = encrypt(this.#dataKey(tx, key.id), Buffer.from(JSON.stringify(value)), secretAad(id));
    repo.saveSecret(tx, { id, dataKeyId: key.id, sealed, updatedAt: new Date() });
  }

  get(id: string): SecretValue | undefined {
    this.assertUnsealed();
    const row = repo.findSecret(this.db, id);
    if (!row) return undefined;
    return JSON.parse(decrypt(this.#dataKey(this.db, row.dataKeyId), row.sealed, secretAad(id)).toString("utf8")) as SecretValue;
  }

  remove(tx: DbOrTx, id: string): void {
    repo.deleteSecret(tx, id);
  }

  /**
   * Makes a new master key version and re-wraps every data key under it in one transaction; secrets are not
   * touched, and a process already holding data keys keeps serving throughout.
   */
  rotate(): { masterVersion: number; dataKeys: number } {
    this.assertUnsealed();
    const material = this.#material();
    const { version, key } = this.keyring.addVersion(material);
    const { keys } = this.keyring.open(material);
    const rows = repo.dataKeys(this.db);
    this.db.transaction((tx) => {
      for (const row of rows) {
        const dataKey = decrypt(keys.get(row.masterVersion)!, row.wrapped, dataKeyAad(row.id));
        repo.rewrapDataKey(tx, row.id, version, wrapDataKey(key, dataKey, row.id));
      }
      repo.writeState(tx, { sealed: false, masterVersion: version });
    });
    this.keyring.retainOnly(version);
    this.#master = new Map([[version, key]]);
    return { masterVersion: version, dataKeys: rows.length };
  }

  #dataKey(db: DbOrTx, id: string): Buffer {
    const cached = this.#dataKeys.get(id);
    if (cached) return cached;
    const row = repo.findDataKey(db, id);
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
