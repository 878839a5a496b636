/** Test trust domains: a real CA and real SVIDs, written to files the way a SPIRE agent would. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createCa, issueSvid, type KeyedCertificate } from "../../src/identity/x509.ts";

const hour = 3600_000;

export interface TestDomain {
  ca: KeyedCertificate;
  issue(spiffeId: string, validity?: { notBefore?: Date; notAfter?: Date }): Promise<KeyedCertificate>;
  /** Writes an SVID and this domain's bundle under `dir` as svid.pem, svid.key, bundle.pem. */
  writeSvid(dir: string, svid: KeyedCertificate, bundlePem?: string): { certFile: string; keyFile: string; bundleFile: string };
}

export async function testDomain(trustDomain = "platform.local"): Promise<TestDomain> {
  const ca = await createCa(trustDomain, { notAfter: new Date(Date.now() + 24 * hour) });
  return {
    ca,
    issue: (spiffeId, { notBefore, notAfter = new Date(Date.now() + hour) } = {}) =>
      issueSvid(ca, { spiffeId, notBefore, notAfter, dnsNames: ["localhost"], ipAddresses: ["127.0.0.1"] }),
    writeSvid(dir, svid, bundlePem = ca.certPem) {
      const files = { certFile: join(dir, "svid.pem"), keyFile: join(dir, "svid.key"), bundleFile: join(dir, "bundle.pem") };
      writeFileSync(files.bundleFile, bundlePem);
      writeFileSync(files.keyFile, svid.keyPem);
      writeFileSync(files.certFile, svid.certPem);
      return files;
    },
  };
}
