/** Issues a client SVID from the development CA into a folder: the one place a key leaves the data dir. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import { DevCa, identityPassphrase } from "./dev-ca.ts";
import { parseSpiffeId } from "./spiffe.ts";

export async function issueToFolder(config: Config, spiffeId: string, out: string, validitySeconds: number): Promise<string[]> {
  parseSpiffeId(spiffeId);
  const passphrase = identityPassphrase({
    dataDir: config.data_dir,
    configured: config.identity.key_passphrase,
    development: config.environment === "development",
  });
  const ca = await DevCa.open({ dataDir: config.data_dir, trustDomain: config.identity.trust_domain, passphrase, create: false });
  const svid = await ca.issue(spiffeId, { validitySeconds });
  mkdirSync(out, { recursive: true });
  const files = { cert: join(out, "svid.pem"), key: join(out, "svid.key"), bundle: join(out, "bundle.pem") };
  writeFileSync(files.key, svid.keyPem, { mode: 0o600 });
  writeFileSync(files.cert, svid.certPem);
  writeFileSync(files.bundle, ca.bundlePem);
  return [files.cert, files.key, files.bundle];
}
