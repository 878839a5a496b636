/**
 * Reading SVIDs with node:crypto: the SPIFFE id a certificate carries, whether a key belongs to it, when it
 * expires, and keys encrypted at rest. Light enough for every process; making certificates is in x509.ts.
 */
import { createPrivateKey, X509Certificate as NodeCertificate } from "node:crypto";
import { SvidError } from "./errors.ts";
import { parseSpiffeId } from "./spiffe.ts";

/** The SPIFFE id an SVID carries: exactly one URI SAN, and it must be a valid SPIFFE id. */
export function spiffeIdOfCertificate(certPem: string): string {
  let cert: NodeCertificate;
  try {
    cert = new NodeCertificate(certPem);
  } catch (error) {
    throw new SvidError(`not a PEM certificate: ${(error as Error).message}`);
  }
  return spiffeIdFromAltNames(cert.subjectAltName);
}

/** Reads the URI SAN out of Node's `subjectaltname` string (`URI:spiffe://td/x, DNS:localhost`). */
export function spiffeIdFromAltNames(altNames: string | undefined): string {
  const uris = (altNames ?? "")
    .split(/,\s*/)
    .filter((entry) => entry.startsWith("URI:"))
    .map((entry) => entry.slice(4));
  if (uris.length !== 1) throw new SvidError(`an SVID carries exactly one URI SAN; this certificate has ${uris.length}`);
  return parseSpiffeId(uris[0]!).id;
}

/** Checks that the key belongs to the certificate, so a half-written rotation is never put into service. */
export function assertKeyMatches(certPem: string, keyPem: string, passphrase?: string): void {
  const key = createPrivateKey(passphrase === undefined ? keyPem : { key: keyPem, passphrase });
  if (!new NodeCertificate(certPem).checkPrivateKey(key)) throw new SvidError("the private key does not belong to the certificate");
}

export const notAfterOf = (certPem: string) => new Date(new NodeCertificate(certPem).validTo);

export function encryptKey(keyPem: string, passphrase: string): string {
  return createPrivateKey(keyPem).export({ type: "pkcs8", format: "pem", cipher: "aes-256-cbc", passphrase }) as string;
}

export function decryptKey(encryptedPem: string, passphrase: string): string {
  try {
    return createPrivateKey({ key: encryptedPem, passphrase }).export({ type: "pkcs8", format: "pem" }) as string;
  } catch {
    throw new SvidError("cannot decrypt the key: wrong passphrase or damaged file");
  }
}
