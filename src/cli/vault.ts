/**
 * `platform vault ...`: the vault's admin verbs. Most open the vault's database and key files themselves, so they
 * work whether or not a server runs. Three act through the process that owns the data dir: `setup-link` (the
 * link lives in the running server's memory), `admin-token` and `revoke-admin-token` (leases, whose live copy is
 * the owner's). They ask the running server over its admin socket; with none running, the token verbs take the
 * data dir's lock for a moment and act as its owner, and `setup-link` says there is nothing to renew.
 */
import { userInfo } from "node:os";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { serviceAction, serviceHelp, serviceOptions } from "./vault-service.ts";
import { settingHelp, settingOptions, settingsFrom } from "./settings.ts";
import { UsageError, type Verb } from "./verb.ts";

const actions =
  "seal, unseal, status, rotate, role <name> --services a,b, secret-id <role> [--uses n] [--ttl s], revoke-secret-id <accessor>, " +
  "service <add|change|list|remove|check> [name], setup-link, admin-token [--ttl s], revoke-admin-token <lease_id>";

export const vaultVerb: Verb = {
  name: "vault",
  summary: "the credential vault: seal, unseal, inspect, rotate; services; AppRole roles; the setup link and admin tokens",
  args: "<seal|unseal|status|rotate|role|secret-id|revoke-secret-id|service|setup-link|admin-token|revoke-admin-token> [args]",
  options: { "key-file": { type: "string" }, services: { type: "string" }, uses: { type: "string" }, ttl: { type: "string" }, ...serviceOptions, ...settingOptions },
  help: {
    "key-file": "--key-file <file>    unseal key to use (default: the auto-unseal file in the key dir)",
    services: "--services <a,b>     services a role may use (`*` for all)",
    uses: "--uses <n>           logins a secret_id allows (default unlimited)",
    ttl: "--ttl <seconds>      lifetime of a secret_id (default unlimited) or an admin token (default 3600)",
    ...serviceHelp,
    ...settingHelp,
  },
  async run(values, [action, ...args]) {
    if (!action) throw new UsageError(`say what to do: ${actions}`);
    const [arg, ...extra] = args;
    if (action !== "service" && extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    const { config, log } = settingsFrom(values);
    const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
    const operator = operatorName();
    if (action === "setup-link" || action === "admin-token" || action === "revoke-admin-token") {
      if (action !== "revoke-admin-token" && arg) throw new UsageError(`unexpected argument '${arg}'`);
      if (action === "revoke-admin-token" && !arg) throw new UsageError("usage: platform vault revoke-admin-token <lease_id>");
      const ttl = numberOf(values.ttl);
      print(await throughOwner(config, log, action, arg, { operator, ...(ttl ? { ttl_seconds: ttl } : {}) }));
      return 0;
    }
    const { openVault } = await import("../vault/offline.ts");
    const { vault, close } = await openVault(config, log);
    try {
      switch (action) {
        case "status": {
          const status = await vault.store.status();
          print(status);
          return status.sealed ? 3 : 0;
        }
        case "seal":
          await vault.store.seal();
          print({ sealed: true });
          return 0;
        case "unseal":
          await vault.store.unseal(values["key-file"] as string | undefined);
          print({ sealed: false });
          return 0;
        case "rotate":
          print(await vault.store.rotate());
          return 0;
        case "role": {
          if (!arg || typeof values.services !== "string") throw new UsageError("usage: platform vault role <name> --services a,b");
          print(await vault.roles.createRole({ name: arg, services: values.services.split(",").map((s) => s.trim()).filter(Boolean) }));
          return 0;
        }
        case "secret-id":
          if (!arg) throw new UsageError("usage: platform vault secret-id <role>");
          print(await vault.roles.createSecretId(arg, { uses: numberOf(values.uses), ttl_seconds: numberOf(values.ttl) }));
          return 0;
        case "revoke-secret-id":
          if (!arg) throw new UsageError("usage: platform vault revoke-secret-id <accessor>");
          await vault.roles.revokeSecretId(arg);
          print({ revoked: arg });
          return 0;
        case "service": {
          // A data dir no server has used yet gets its vault here, as the server would make it.
          await vault.store.initialize();
          const { output, code } = await serviceAction(vault, { name: `cli:${operator}`, services: ["*"] }, values, args);
          print(output);
          return code;
        }
        default:
          throw new UsageError(`unknown vault action '${action}'; one of: ${actions}`);
      }
    } finally {
      await close();
    }
  },
};

/**
 * Renews the setup link, or issues or revokes an admin token, in the process that owns the data dir: the running
 * server, asked over its admin socket; or, when none runs, this one, holding the data dir's lock meanwhile (so no
 * server starts in between; the next one restores what was issued here, and never what was revoked).
 */
async function throughOwner(config: Config, log: Logger, action: "setup-link" | "admin-token" | "revoke-admin-token", leaseId: string | undefined, body: { operator: string; ttl_seconds?: number }): Promise<unknown> {
  const [{ adminSocketPath }, { askServer }] = await Promise.all([import("../vault/admin-socket.ts"), import("../vault/admin-client.ts")]);
  const socket = adminSocketPath(config);
  const route = action === "setup-link" ? "/setup-link" : action === "admin-token" ? "/admin-tokens" : `/admin-tokens/${encodeURIComponent(leaseId!)}/revoke`;
  const answer = await askServer(socket, route, action === "admin-token" ? body : { operator: body.operator });
  if (answer.reached) return answer.body ?? { revoked: leaseId };

  // No server answered: none runs, or one runs without its socket, which taking the lock finds out.
  const [{ existsSync }, { lockDataDir, DataDirInUse }, { openVault }] = await Promise.all([import("node:fs"), import("../data-dir-lock.ts"), import("../vault/offline.ts")]);
  const noServer = `no server is running on data dir ${config.data_dir}`;
  const noLink = `${noServer}, so there is no setup link to renew: the link lives only in a running server's memory; 'platform serve' prints a new one when it starts`;
  const notSetUp = `${noServer}, and the vault there was never set up; start the server once first`;
  if (!existsSync(config.data_dir)) throw new Error(action === "setup-link" ? noLink : notSetUp);
  let lock: { release(): void };
  try {
    lock = lockDataDir(config.data_dir);
  } catch (error) {
    if (error instanceof DataDirInUse) throw new Error(`a server runs on data dir ${config.data_dir} but does not answer on its admin socket ${socket}; its log says why ("vault admin socket not started")`);
    throw error;
  }
  try {
    if (action === "setup-link") throw new Error(noLink);
    const { vault, close } = await openVault(config, log);
    try {
      if (!(await vault.store.status()).initialized) throw new Error(notSetUp);
      if (action === "admin-token") return await vault.admin.issueToken(body);
      await vault.leases.adopt(leaseId!);
      await vault.admin.revokeToken(leaseId!, `cli:${body.operator}`);
      return { revoked: leaseId };
    } finally {
      await close();
    }
  } finally {
    lock.release();
  }
}

/** Who runs the CLI, as the audit trail names them (cli:<name>): the user's name, else their uid. */
function operatorName(): string {
  let name = "";
  try {
    name = userInfo().username;
  } catch {
    // no passwd entry for this uid
  }
  // Bun answers "unknown" where it finds no name.
  if (!name || name === "unknown") name = `uid-${process.getuid?.() ?? "unknown"}`;
  return name.replace(/[^A-Za-z0-9_.@-]/g, "_").slice(0, 64);
}

function numberOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`expected a positive integer, got '${value}'`);
  return n;
}
