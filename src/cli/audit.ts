/**
 * `platform audit [--since <duration>] [--decision allowed|denied] [--limit N] [--json]`: the authorization
 * decisions in the configured store (database.url or DATABASE_URL, else the data dir's SQLite file), newest first,
 * whichever node made them. Like `platform cluster status` it reads the store directly, so it works from any
 * machine that reaches the database.
 */
import { settingHelp, settingOptions, settingsFrom } from "./settings.ts";
import { UsageError, type Verb } from "./verb.ts";

const units = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const maxLimit = 10_000;

export const auditVerb: Verb = {
  name: "audit",
  summary: "the authorization decisions every node stored, newest first",
  options: { since: { type: "string" }, decision: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" }, ...settingOptions },
  help: {
    since: "--since <duration>   only decisions of the last 30s, 15m, 2h, 7d, ...",
    decision: "--decision <d>       only allowed or only denied ones",
    limit: `--limit <n>          at most n records (default 100, at most ${maxLimit})`,
    json: "--json               one JSON record a line, as the file destination writes them, with the node",
    ...settingHelp,
  },
  async run(values, positionals) {
    if (positionals.length) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const filter = {
      since: values.since === undefined ? undefined : new Date(Date.now() - duration(values.since as string)),
      decision: decision(values.decision as string | undefined),
      limit: limit(values.limit as string | undefined),
    };
    const { config } = settingsFrom(values);
    const [{ openDatabase, storeOptions }, { listAuditRecords }, { auditsToStore }, { table }] = await Promise.all([
      import("../db/client.ts"),
      import("../authz/audit/repo.ts"),
      import("../authz/audit/destination.ts"),
      import("../cluster/status.ts"),
    ]);
    const database = await openDatabase(storeOptions(config));
    try {
      const { enabled, destination } = config.authorization.audit;
      if (!enabled || !auditsToStore(destination, database))
        process.stderr.write(
          `note: with these settings nodes ${enabled ? `audit to ${destination || "the data dir's audit.jsonl"}` : "keep no audit trail"}, not to the store; ` +
            "authorization.audit.destination: store:// puts decisions there\n",
        );
      const records = await listAuditRecords(database.db, filter);
      const rows = records.map((r) => [r.timestamp, r.node, r.decision, r.action, r.caller_spiffe_id ?? "-", r.callee_spiffe_id ?? "-", r.reason]);
      process.stdout.write(
        values.json
          ? records.map((record) => `${JSON.stringify(record)}\n`).join("")
          : `${(rows.length ? table(["TIME", "NODE", "DECISION", "ACTION", "CALLER", "CALLEE", "REASON"], rows) : ["no decisions stored match"]).join("\n")}\n`,
      );
    } finally {
      await database.close();
    }
    return 0;
  },
};

function duration(text: string): number {
  const [, amount, unit] = /^(\d+)([smhd])$/.exec(text) ?? [];
  if (!amount) throw new UsageError(`--since takes a duration such as 30s, 15m, 2h or 7d, not '${text}'`);
  return Number(amount) * units[unit as keyof typeof units];
}

function decision(text: string | undefined): "allowed" | "denied" | undefined {
  if (text === undefined || text === "allowed" || text === "denied") return text;
  throw new UsageError(`--decision is allowed or denied, not '${text}'`);
}

function limit(text: string | undefined): number {
  if (text === undefined) return 100;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > maxLimit) throw new UsageError(`--limit takes a whole number from 1 to ${maxLimit}, not '${text}'`);
  return n;
}
