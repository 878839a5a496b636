/**
 * The key files, kept apart from the database in their own directory (mode 0700, files 0600).
 *
 * - `unseal.key`: random material from which the auto-unseal key is derived with HKDF.
 * - `master.key`: each version of the master key, encrypted under the unseal key. Master keys wrap the data
 *   keys stored in the database; they exist in clear only in the memory of an unsealed process.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { decrypt, deriveKey, encrypt, randomKey } from "./crypto.ts";
import { VaultError } from "./errors.ts";

interface MasterFile {
  current: number;
  /** version -> master key encrypted under the unseal key */
  versions: Record<string, string>;
}

export type MasterKeys = Map<number, Buffer>;

export class Keyring {
  readonly unsealFile: string;
  readonly masterFile: string;

  constructor(readonly dir: string) {
    this.unsealFile = join(dir, "unseal.key");
    this.masterFile = join(dir, "master.key");
  }

  exists(): boolean {
    return existsSync(this.masterFile);
  }

  /** Creates fresh unseal material and master key version 1. Refuses to overwrite existing keys. */
  create(): void {
    if (this.exists()) throw new Error(`vault keys already exist in ${this.dir}`);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    chmodSync(this.dir, 0o700);
    const material = randomKey();
    writeSecretFile(this.unsealFile, material.toString("base64") + "\n");
    this.#write({ current: 1, versions: { "1": wrapMaster(material, randomKey(), 1) } });
  }

  /** The unseal material from `file` (default: the auto-unseal file beside the master key). */
  readUnsealMaterial(file = this.unsealFile): Buffer {
    if (!existsSync(file)) throw VaultError.sealed(`no unseal key at ${file}`);
    const material = Buffer.from(readFileSync(file, "utf8").trim(), "base64");
    if (material.length !== 32) throw VaultError.sealed(`the unseal key in ${file} is not 32 bytes of base64`);
    return material;
  }

  /** Every master key version, opened with the unseal material; throws when the material is wrong. */
  open(material: Buffer): { current: number; keys: MasterKeys } {
    const file = this.#read();
    const keys: MasterKeys = new Map();
    for (const [version, wrapped] of Object.entries(file.versions)) {
      try {
        keys.set(Number(version), decrypt(deriveKey(material, unsealInfo), wrapped, masterAad(Number(version))));
      } catch {
        throw VaultError.sealed("the unseal key does not open the master key");
      }
    }
    return { current: file.current, keys };
  }

  /** Adds master key version current+1 beside the others and makes it current; returns it. */
  addVersion(material: Buffer): { version: number; key: Buffer } {
    const file = this.#read();
    const version = Math.max(...Object.keys(file.versions).map(Number)) + 1;
    const key = randomKey();
    this.#write({ current: version, versions: { ...file.versions, [version]: wrapMaster(material, key, version) } });
    return { version, key };
  }

  /** Forgets every master key version but `keep`, once nothing in the database is wrapped by them. */
  retainOnly(keep: number): void {
    const file = this.#read();
    this.#write({ current: file.current, versions: { [keep]: file.versions[keep]! } });
  }

  #read(): MasterFile {
    if (!this.exists()) throw VaultError.sealed(`no master key at ${this.masterFile}; the vault is not initialised`);
    return JSON.parse(readFileSync(this.masterFile, "utf8")) as MasterFile;
  }

  #write(file: MasterFile): void {
    // Written beside and renamed, so a crash never leaves half a key file.
    const next = `${this.masterFile}.${process.pid}.${randomUUID()}.next`;
    writeSecretFile(next, JSON.stringify(file, null, 2) + "\n");
    renameSync(next, this.masterFile);
  }
}

const unsealInfo = "auto-unseal v1";
const masterAad = (version: number) => `master-key:${version}`;
const wrapMaster = (material: Buffer, key: Buffer, version: number) =>
  encrypt(deriveKey(material, unsealInfo), key, masterAad(version));

function writeSecretFile(path: string, text: string): void {
  writeFileSync(path, text, { mode: 0o600 });
  chmodSync(path, 0o600);
}
