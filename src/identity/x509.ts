/**
 * Making X.509 SVIDs: a trust-domain CA and leaf certificates whose one URI SAN is the SPIFFE id (ECDSA
 * P-256), made with WebCrypto so the compiled executable needs no external tool. Only the development CA and
 * `identity issue` make certificates, so only they load this module (and @peculiar/x509); reading
 * certificates is in certificates.ts, on node:crypto.
 */
import "./reflect.ts";
import { randomBytes } from "node:crypto";
import * as x509 from "@peculiar/x509";
import { parseSpiffeId } from "./spiffe.ts";

x509.cryptoProvider.set(crypto);

const algorithm = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;

export interface KeyedCertificate {
  certPem: string;
  /** Unencrypted PKCS#8 PEM: hold it in memory, encrypt it before it touches disk. */
  keyPem: string;
}

export interface Validity {
  notBefore?: Date;
  notAfter: Date;
}

export async function createCa(trustDomain: string, { notBefore = new Date(), notAfter }: Validity): Promise<KeyedCertificate> {
  const keys = await crypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${trustDomain} development CA`,
    notBefore,
    notAfter,
    keys,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      new x509.SubjectAlternativeNameExtension([{ type: "url", value: `spiffe://${trustDomain}` }]),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: await exportKey(keys.privateKey) };
}

export interface SvidRequest extends Validity {
  spiffeId: string;
  /** Extra DNS names and IP addresses for a server SVID, so clients that check host names accept it too. */
  dnsNames?: string[];
  ipAddresses?: string[];
}

export async function issueSvid(ca: KeyedCertificate, { spiffeId, dnsNames = [], ipAddresses = [], notBefore = new Date(), notAfter }: SvidRequest): Promise<KeyedCertificate> {
  parseSpiffeId(spiffeId);
  const caCert = new x509.X509Certificate(ca.certPem);
  const signingKey = await crypto.subtle.importKey("pkcs8", pemBody(ca.keyPem), algorithm, false, ["sign"]);
  const keys = await crypto.subtle.generateKey(algorithm, true, ["sign", "verify"]);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: "O=SPIFFE",
    issuer: caCert.subject,
    notBefore,
    notAfter: notAfter < caCert.notAfter ? notAfter : caCert.notAfter,
    publicKey: keys.publicKey,
    signingKey,
    signingAlgorithm: algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyAgreement, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth, x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: "url", value: spiffeId },
        ...dnsNames.map((value) => ({ type: "dns" as const, value })),
        ...ipAddresses.map((value) => ({ type: "ip" as const, value })),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { certPem: cert.toString("pem"), keyPem: await exportKey(keys.privateKey) };
}

async function exportKey(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await crypto.subtle.exportKey("pkcs8", key)).toString("base64");
  return `-----BEGIN PRIVATE KEY-----\n${der.match(/.{1,64}/g)!.join("\n")}\n-----END PRIVATE KEY-----\n`;
}

const pemBody = (pem: string) => Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ""), "base64");

// Positive, 16 bytes: RFC 5280 wants serials unique per CA and at most 20 octets.
const serial = () => "01" + randomBytes(15).toString("hex");
