/** `platform identity issue <spiffe-id> --out <dir>`: a client SVID from the development CA, written on purpose. */
import { settingHelp, settingOptions, settingsFrom } from "./settings.ts";
import { UsageError, type Verb } from "./verb.ts";

export const identityVerb: Verb = {
  name: "identity",
  summary: "issue a client SVID from the development CA (identity issue <spiffe-id> --out <dir>)",
  args: "issue <spiffe-id>",
  options: { out: { type: "string" }, ttl: { type: "string" }, ...settingOptions },
  help: {
    out: "--out <dir>          folder for svid.pem, svid.key (mode 0600, unencrypted) and bundle.pem",
    ttl: "--ttl <seconds>      how long the SVID is valid (default 86400)",
    ...settingHelp,
  },
  async run(values, positionals) {
    const [action, spiffeId, extra] = positionals;
    if (action !== "issue") throw new UsageError(action ? `unknown identity action '${action}'` : "name an action: issue");
    if (!spiffeId) throw new UsageError("name the SPIFFE id to issue, e.g. spiffe://platform.local/agent/planner");
    if (extra !== undefined) throw new UsageError(`unexpected argument '${extra}'`);
    const out = values.out as string | undefined;
    if (!out) throw new UsageError("--out <dir> is required");
    const ttl = Number(values.ttl ?? 86_400);
    if (!Number.isInteger(ttl) || ttl < 60 || ttl > 31_536_000) throw new UsageError("--ttl must be whole seconds from 60 to 31536000");
    const { config } = settingsFrom(values);
    const { issueToFolder } = await import("../identity/issue.ts");
    const files = await issueToFolder(config, spiffeId, out, ttl);
    process.stdout.write(`${files.join("\n")}\n`);
    return 0;
  },
};
