/**
 * The vault's primitives: AES-256-GCM with a fresh 96-bit nonce per write and the record id bound as associated
 * data (so a ciphertext moved to another row fails to open), HKDF-SHA256 for derived keys, SHA-256 for lookups.
 */
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes, timingSafeEqual } from "node:crypto";

const nonceBytes = 12;
const tagBytes = 16;
export const keyBytes = 32;

export const randomKey = (): Buffer => randomBytes(keyBytes);

/** Encrypts `plaintext` under `key`, binding `aad`; returns base64 of nonce | ciphertext | tag. */
export function encrypt(key: Uint8Array, plaintext: Uint8Array, aad: string): string {
  const nonce = randomBytes(nonceBytes);
  const cipher = createCipheriv("aes-256-gcm", key, nonce);
  cipher.setAAD(Buffer.from(aad));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString("base64");
}

export class DecryptError extends Error {
  override name = "DecryptError";
}

/** Opens what `encrypt` wrote; throws DecryptError when the key, the associated data or the bytes differ. */
export function decrypt(key: Uint8Array, sealed: string, aad: string): Buffer {
  const raw = Buffer.from(sealed, "base64");
  if (raw.length < nonceBytes + tagBytes) throw new DecryptError("ciphertext is truncated");
  const decipher = createDecipheriv("aes-256-gcm", key, raw.subarray(0, nonceBytes));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(raw.subarray(raw.length - tagBytes));
  try {
    return Buffer.concat([decipher.update(raw.subarray(nonceBytes, raw.length - tagBytes)), decipher.final()]);
  } catch {
    throw new DecryptError("ciphertext does not authenticate under this key");
  }
}

/** A key derived for one purpose; the same input material yields unrelated keys for different `info`. */
export const deriveKey = (material: Uint8Array, info: string): Buffer =>
  Buffer.from(hkdfSync("sha256", material, "platform-vault", info, keyBytes));

export const sha256 = (value: string): string => createHash("sha256").update(value).digest("hex");

/** A random bearer value with a recognisable prefix, e.g. `pvt_...` for tokens. */
export const randomToken = (prefix: string): string => `${prefix}${randomBytes(32).toString("base64url")}`;

export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
