/**
 * The vault opened without the server, for the CLI verbs and hooks: the same store and key files, the same roles.
 * Leases here are not restored: a revocation is stored and the server honours it.
 */
import { ActorSystem } from "../../actors/system.ts";
import type { Config } from "../config.ts";
import { openDatabase, storeOptions } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { VaultService } from "./service.ts";

export async function openVault(config: Config, log: Logger): Promise<{ vault: VaultService; close(): Promise<void> }> {
  const database = await openDatabase(storeOptions(config));
  const actors = new ActorSystem({ db: database.db, log, retentionMs: 0 });
  const vault = new VaultService(database.db, actors, log, config);
  return {
    vault,
    async close() {
      await actors.stop();
      await database.close();
    },
  };
}
