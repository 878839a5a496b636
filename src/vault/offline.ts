/**
 * The vault opened without the server, for the CLI verbs and hooks: the same database and key files, the
 * same store and roles. Leases here are not restored: a revocation is stored and the server honours it.
 */
import { join } from "node:path";
import { ActorSystem } from "../../actors/system.ts";
import type { Config } from "../config.ts";
import { openDatabase } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { VaultService } from "./service.ts";

export function openVault(config: Config, log: Logger): { vault: VaultService; close(): void } {
  const database = openDatabase(join(config.data_dir, "platform.db"));
  const actors = new ActorSystem({ db: database.db, log, retentionMs: 0 });
  const vault = new VaultService(database.db, actors, log, config);
  return {
    vault,
    close() {
      actors.stop();
      database.close();
    },
  };
}
