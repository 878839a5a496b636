/**
 * The development trust domain: a CA kept in `<data_dir>/identity/`, its key encrypted with the identity
 * passphrase. It issues the server's own SVID (in memory only) and, on request, client SVIDs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { SvidError } from "./errors.ts";
import { parseSpiffeId, parseTrustDomain } from "./spiffe.ts";
import { decryptKey, encryptKey, spiffeIdOfCertificate } from "./certificates.ts";
import { createCa, issueSvid, type KeyedCertificate } from "./x509.ts";

const caYears = 5;

export interface DevCaOptions {
  dataDir: string;
  trustDomain: string;
  /** Encrypts the CA key at rest; see `identityPassphrase`. */
  passphrase: string;
  /** Create the CA when there is none (only `serve` in development does). */
  create: boolean;
}

export class DevCa {
  private constructor(
    private readonly ca: KeyedCertificate,
    readonly trustDomain: string,
  ) {}

  static async open({ dataDir, trustDomain, passphrase, create }: DevCaOptions): Promise<DevCa> {
    parseTrustDomain(trustDomain);
    const dir = identityDir(dataDir);
    const certFile = join(dir, "ca.crt");
    const keyFile = join(dir, "ca.key.enc");
    if (!existsSync(certFile) || !existsSync(keyFile)) {
      if (!create) throw new SvidError(`no development CA in ${dir}; run 'platform serve --env development' once to create it`);
      const notAfter = new Date();
      notAfter.setUTCFullYear(notAfter.getUTCFullYear() + caYears);
      const ca = await createCa(trustDomain, { notAfter });
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      writeFileSync(keyFile, encryptKey(ca.keyPem, passphrase), { mode: 0o600 });
      writeFileSync(certFile, ca.certPem);
      return new DevCa(ca, trustDomain);
    }
    const certPem = readFileSync(certFile, "utf8");
    const caDomain = parseSpiffeId(spiffeIdOfCertificate(certPem)).trustDomain;
    if (caDomain !== trustDomain)
      throw new SvidError(`the development CA in ${dir} is for trust domain ${caDomain}, not ${trustDomain}; use a fresh data dir or that trust domain`);
    return new DevCa({ certPem, keyPem: decryptKey(readFileSync(keyFile, "utf8"), passphrase) }, trustDomain);
  }

  /** The trust bundle (PEM) that verifies every SVID this CA issues. */
  get bundlePem(): string {
    return this.ca.certPem;
  }

  issue(spiffeId: string, { validitySeconds, dnsNames, ipAddresses }: { validitySeconds: number; dnsNames?: string[]; ipAddresses?: string[] }): Promise<KeyedCertificate> {
    const { trustDomain } = parseSpiffeId(spiffeId);
    if (trustDomain !== this.trustDomain)
      throw new SvidError(`${spiffeId} is not in this CA's trust domain ${this.trustDomain}`);
    return issueSvid(this.ca, { spiffeId, dnsNames, ipAddresses, notAfter: new Date(Date.now() + validitySeconds * 1000) });
  }
}

export const identityDir = (dataDir: string) => join(dataDir, "identity");

/**
 * The passphrase that encrypts identity keys in the data dir: the configured one, or in development a random
 * one kept beside them (mode 0600), so a first `serve` needs no setup. Outside development it must be set.
 */
export function identityPassphrase({ dataDir, configured, development }: { dataDir: string; configured: string; development: boolean }): string {
  if (configured) return configured;
  if (!development) throw new SvidError("identity.key_passphrase must be set (PLATFORM_IDENTITY__KEY_PASSPHRASE) to use the CA outside development");
  const dir = identityDir(dataDir);
  const file = join(dir, "passphrase");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const generated = randomBytes(32).toString("base64url");
  writeFileSync(file, generated, { mode: 0o600 });
  return generated;
}
