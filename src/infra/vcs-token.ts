/**
 * The repository host token: the vault's credential for `vcs.vault_service` when the vault has one, else the
 * VCS_TOKEN environment variable. It is handed to octokit and git in memory only, and never logged.
 */
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { TokenSource } from "./model.ts";
import { storedCredential } from "../vault/service.ts";

export async function tokenSource(db: Db, config: Config, env: Record<string, string | undefined> = process.env): Promise<{ source: TokenSource; token?: string }> {
  let stored: Record<string, string> | undefined;
  try {
    stored = await storedCredential(db, config, config.vcs.vault_service);
  } catch {
    stored = undefined; // a vault that cannot be opened here has no token for us
  }
  if (stored?.token) return { source: "vault", token: stored.token };
  if (env.VCS_TOKEN) return { source: "VCS_TOKEN", token: env.VCS_TOKEN };
  return { source: "none" };
}
