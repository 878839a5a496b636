/**
 * This workload's identity as configured: an SVID from files (production, kept fresh by SPIRE), or from the
 * development CA in the data dir (created on first start in development), or none at all.
 */
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { SvidError } from "./errors.ts";
import { spiffeIdOf } from "./spiffe.ts";
import { DevSvidSource, FileSvidSource, type SvidSource } from "./svid.ts";

/** `identity.spiffe_id`, or `spiffe://<trust_domain>/platform` when it is not set. */
export const configuredSpiffeId = ({ identity }: Config) => identity.spiffe_id || spiffeIdOf(identity.trust_domain, "/platform");

export async function openSvidSource(config: Config, log: Logger): Promise<SvidSource | undefined> {
  const { svid, trust_domain, key_passphrase } = config.identity;
  const files = [svid.cert_file, svid.key_file, svid.bundle_file];
  if (files.some(Boolean)) {
    if (!files.every(Boolean)) throw new SvidError("identity.svid needs cert_file, key_file and bundle_file together");
    const source = new FileSvidSource({ certFile: svid.cert_file, keyFile: svid.key_file, bundleFile: svid.bundle_file }, log);
    if (config.identity.spiffe_id && source.current().spiffeId !== config.identity.spiffe_id) {
      source.close();
      throw new SvidError(`the SVID in ${svid.cert_file} is ${source.current().spiffeId}, but identity.spiffe_id is ${config.identity.spiffe_id}`);
    }
    return source;
  }
  if (config.environment !== "development") return undefined;
  // Only development makes certificates, so only development loads the certificate maker.
  const { DevCa, identityPassphrase } = await import("./dev-ca.ts");
  const passphrase = identityPassphrase({ dataDir: config.data_dir, configured: key_passphrase, development: true });
  const ca = await DevCa.open({ dataDir: config.data_dir, trustDomain: trust_domain, passphrase, create: true });
  return DevSvidSource.start(ca, configuredSpiffeId(config), { log });
}
