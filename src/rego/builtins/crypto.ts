/**
 * Cryptography: digests and HMACs (hex), constant-time MAC comparison, and X.509 reading: certificates
 * (PEM, or base64 of PEM or DER, one or a chain), chain verification, certificate requests, key pairs and
 * private keys (as JWKs). Certificates come out with the fields of Go's x509.Certificate policies read
 * (Subject, Issuer, DNSNames, URIStrings, EmailAddresses, IPAddresses, NotBefore, NotAfter, SerialNumber,
 * IsCA, Raw); node:crypto reads certificates and keys, @peculiar/x509 certificate requests.
 */
import { createHash, createHmac, createPrivateKey, timingSafeEqual, X509Certificate } from "node:crypto";
import { BuiltinError } from "../values/errors.ts";
import { fromJS, RObject, type Value } from "../values/values.ts";
import { builtin, str } from "./builtin.ts";

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g;

/** PEM text as it is, or base64 of PEM or DER (then the DER as one block of `type`). */
function pemBlocks(input: string, type: string): { type: string; der: Buffer }[] {
  let text = input;
  if (!text.includes("-----BEGIN")) {
    const compact = text.replace(/\s+/g, "");
    const bad = Array.from(compact).findIndex((c) => !/[A-Za-z0-9+/=]/.test(c));
    if (bad >= 0 || compact.length % 4 !== 0) throw new BuiltinError(`illegal base64 data at input byte ${bad >= 0 ? bad : compact.length}`);
    const decoded = Buffer.from(compact, "base64");
    const asText = decoded.toString("utf8");
    if (!asText.includes("-----BEGIN")) return derSequences(decoded).map((der) => ({ type, der }));
    text = asText;
  }
  return [...text.matchAll(PEM_BLOCK)].map((m) => ({ type: m[1]!, der: Buffer.from(m[2]!.replace(/\s+/g, ""), "base64") }));
}

/** DER data holding one or more ASN.1 SEQUENCEs back to back (a certificate chain), split into each. */
function derSequences(der: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let at = 0; at < der.length; ) {
    if (der[at] !== 0x30) return [der]; // not DER: the reader of the whole says what is wrong
    let length = der[at + 1]!;
    let header = 2;
    if (length & 0x80) {
      const bytes = length & 0x7f;
      length = 0;
      for (let i = 0; i < bytes; i++) length = length * 256 + der[at + 2 + i]!;
      header += bytes;
    }
    out.push(der.subarray(at, at + header + length));
    at += header + length;
  }
  return out;
}

/** A distinguished name as Go's pkix.Name fields (node gives "CN=a\nO=b"). */
function name(dn: string): RObject {
  const fields: Record<string, string[]> = {};
  for (const line of dn.split("\n")) {
    const eq = line.indexOf("=");
    if (eq > 0) (fields[line.slice(0, eq)] ??= []).push(line.slice(eq + 1));
  }
  const list = (k: string) => fields[k] ?? [];
  return fromJS({
    CommonName: list("CN")[0] ?? "",
    Country: list("C"),
    Organization: list("O"),
    OrganizationalUnit: list("OU"),
    Locality: list("L"),
    Province: list("ST"),
    StreetAddress: list("street"),
    PostalCode: list("postalCode"),
    SerialNumber: list("serialNumber")[0] ?? "",
  }) as RObject;
}

/** Subject alternative names by kind, as node writes them ("DNS:a, URI:b, IP Address:c"). */
function altNames(text: string | undefined): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const part of (text ?? "").split(/,\s*/)) {
    const colon = part.indexOf(":");
    if (colon > 0) (out[part.slice(0, colon)] ??= []).push(part.slice(colon + 1));
  }
  return out;
}

function certificate(der: Buffer): { cert: X509Certificate; value: RObject } {
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(der);
  } catch (e) {
    throw new BuiltinError(`x509: malformed certificate: ${(e as Error).message}`);
  }
  const san = altNames(cert.subjectAltName);
  const value = fromJS({
    Raw: der.toString("base64"),
    Version: 3,
    SerialNumber: BigInt(`0x${cert.serialNumber}`),
    Subject: name(cert.subject),
    Issuer: name(cert.issuer),
    NotBefore: new Date(cert.validFrom).toISOString().replace(".000Z", "Z"),
    NotAfter: new Date(cert.validTo).toISOString().replace(".000Z", "Z"),
    IsCA: cert.ca,
    DNSNames: san.DNS ?? null,
    EmailAddresses: san.email ?? null,
    IPAddresses: san["IP Address"] ?? null,
    URIStrings: san.URI ?? null,
  }) as RObject;
  return { cert, value };
}

function certificates(input: string): { cert: X509Certificate; value: RObject }[] {
  return pemBlocks(input, "CERTIFICATE")
    .filter((b) => b.type === "CERTIFICATE")
    .map((b) => certificate(b.der));
}

/** Each certificate valid now and issued by the one after it; the last is trusted as given (a root). */
function issuedInTurn(chain: X509Certificate[]): boolean {
  const now = Date.now();
  return chain.every((c, i) => {
    if (now < Date.parse(c.validFrom) || now > Date.parse(c.validTo)) return false;
    const issuer = chain[Math.min(chain.length - 1, i + 1)]!;
    return c.checkIssued(issuer) && c.verify(issuer.publicKey);
  });
}

/** The chain, given root first or leaf first, verified and ordered leaf first (as Go's Verify gives it); or none. */
function verifiedChain<C extends { cert: X509Certificate }>(chain: C[]): C[] | undefined {
  if (chain.length < 2) return undefined;
  const reversed = [...chain].reverse();
  return [chain, reversed].find((c) => issuedInTurn(c.map((x) => x.cert)));
}

function privateKeys(input: string): Value[] {
  const blocks = pemBlocks(input, "PRIVATE KEY");
  const out: Value[] = [];
  for (const b of blocks) {
    try {
      const type = b.type === "RSA PRIVATE KEY" ? "pkcs1" : b.type === "EC PRIVATE KEY" ? "sec1" : "pkcs8";
      out.push(fromJS(createPrivateKey({ key: b.der, format: "der", type }).export({ format: "jwk" })));
    } catch {
      // not a key: skipped, as OPA skips it
    }
  }
  return out;
}

function certificateRequest(input: string): RObject {
  const blocks = pemBlocks(input, "CERTIFICATE REQUEST");
  const der = blocks[0]?.der;
  if (!der || der[0] !== 0x30) throw new BuiltinError("asn1: structure error: not a certificate request");
  // Loaded with its first use: most policies never read a certificate request.
  require("reflect-metadata");
  const x509 = require("@peculiar/x509") as typeof import("@peculiar/x509");
  let csr: InstanceType<typeof x509.Pkcs10CertificateRequest>;
  try {
    csr = new x509.Pkcs10CertificateRequest(der);
  } catch (e) {
    throw new BuiltinError(`asn1: structure error: ${(e as Error).message}`);
  }
  const dn = csr.subjectName
    .toJSON()
    .flatMap((rdn) => Object.entries(rdn).flatMap(([k, vs]) => vs.map((v) => `${k}=${v}`)))
    .join("\n");
  const san = csr.extensions.find((e) => e instanceof x509.SubjectAlternativeNameExtension) as InstanceType<typeof x509.SubjectAlternativeNameExtension> | undefined;
  const names = san?.names.toJSON() ?? [];
  const of = (type: string) => {
    const found = names.filter((n) => n.type === type).map((n) => n.value);
    return found.length ? found : null;
  };
  return fromJS({
    Raw: der.toString("base64"),
    Version: 0,
    Subject: name(dn),
    DNSNames: of("dns"),
    EmailAddresses: of("email"),
    IPAddresses: of("ip"),
    URIStrings: of("url"),
  }) as RObject;
}

const hex = (algorithm: string) => (args: Value[]) => createHash(algorithm).update(str(args, 0)).digest("hex");
const hmac = (algorithm: string) => (args: Value[]) => createHmac(algorithm, str(args, 1)).update(str(args, 0)).digest("hex");

export const cryptoBuiltins = [
  builtin("crypto.md5", 1, hex("md5")),
  builtin("crypto.sha1", 1, hex("sha1")),
  builtin("crypto.sha256", 1, hex("sha256")),
  builtin("crypto.hmac.md5", 2, hmac("md5")),
  builtin("crypto.hmac.sha1", 2, hmac("sha1")),
  builtin("crypto.hmac.sha256", 2, hmac("sha256")),
  builtin("crypto.hmac.sha512", 2, hmac("sha512")),
  builtin("crypto.hmac.equal", 2, (args) => {
    const a = Buffer.from(str(args, 0));
    const b = Buffer.from(str(args, 1));
    return a.length === b.length && timingSafeEqual(a, b);
  }),
  builtin("crypto.x509.parse_certificates", 1, (args) => certificates(str(args, 0)).map((c) => c.value)),
  builtin("crypto.x509.parse_and_verify_certificates", 1, (args) => {
    const chain = verifiedChain(certificates(str(args, 0)));
    return chain ? [true, chain.map((c) => c.value)] : [false, []];
  }),
  builtin("crypto.x509.parse_certificate_request", 1, (args) => certificateRequest(str(args, 0))),
  builtin("crypto.x509.parse_rsa_private_key", 1, (args) => {
    const keys = privateKeys(str(args, 0));
    if (!keys.length) throw new BuiltinError("failed to parse a PEM private key");
    return keys[0]!;
  }),
  builtin("crypto.parse_private_keys", 1, (args) => {
    const text = str(args, 0);
    if (text === "") return null; // OPA answers null for no input at all, [] for input with no key
    try {
      return privateKeys(text);
    } catch {
      return [];
    }
  }),
  builtin("crypto.x509.parse_keypair", 2, (args) => {
    const certs = pemBlocks(str(args, 0), "CERTIFICATE").filter((b) => b.type === "CERTIFICATE");
    const keys = privateKeys(str(args, 1));
    if (!certs.length) throw new BuiltinError("tls: failed to find any PEM data in certificate input");
    if (!keys.length) throw new BuiltinError("tls: failed to find any PEM data in key input");
    const leaf = certificate(certs[0]!.der);
    const key = keys[0] as RObject;
    if (!leaf.cert.checkPrivateKey(createPrivateKey({ key: Object.fromEntries(key.entries().map(([k, v]) => [String(k), v])) as never, format: "jwk" })))
      throw new BuiltinError("tls: private key does not match public key");
    return fromJS({ Certificate: certs.map((c) => c.der.toString("base64")), Leaf: null, PrivateKey: keys[0] });
  }),
];
