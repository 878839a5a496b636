/**
 * `platform cluster status [--json]`: the nodes sharing the configured store (database.url or DATABASE_URL, else
 * the data dir's SQLite file), their leases, and the actors each holds. It reads the store directly, so it works
 * from any machine that reaches the database, whether or not a node runs there.
 */
import { settingHelp, settingOptions, settingsFrom } from "./settings.ts";
import { UsageError, type Verb } from "./verb.ts";

export const clusterVerb: Verb = {
  name: "cluster",
  summary: "the nodes sharing the store: their heartbeats, leases and the actors each holds",
  args: "<status>",
  options: { json: { type: "boolean" }, ...settingOptions },
  help: {
    json: "--json               print the status as JSON",
    ...settingHelp,
  },
  async run(values, [action, ...extra]) {
    if (action !== "status") throw new UsageError(action ? `unknown cluster action '${action}'` : "say 'status'");
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    const { config } = settingsFrom(values);
    const [{ openDatabase, storeOptions }, { clusterStatus, formatStatus }] = await Promise.all([import("../db/client.ts"), import("../cluster/status.ts")]);
    const database = await openDatabase(storeOptions(config));
    try {
      const status = await clusterStatus(database);
      process.stdout.write(values.json ? `${JSON.stringify(status, null, 2)}\n` : formatStatus(status));
    } finally {
      await database.close();
    }
    return 0;
  },
};
