/** `platform vault seal|unseal|status|rotate|role|secret-id|revoke-secret-id`: the vault's admin verbs. */
import { settingHelp, settingOptions, settingsFrom } from "./settings.ts";
import { UsageError, type Verb } from "./verb.ts";

const actions = "seal, unseal, status, rotate, role <name> --services a,b, secret-id <role> [--uses n] [--ttl s], revoke-secret-id <accessor>";

export const vaultVerb: Verb = {
  name: "vault",
  summary: "seal, unseal, inspect or rotate the credential vault; manage AppRole roles",
  args: "<seal|unseal|status|rotate|role|secret-id|revoke-secret-id> [arg]",
  options: { "key-file": { type: "string" }, services: { type: "string" }, uses: { type: "string" }, ttl: { type: "string" }, ...settingOptions },
  help: {
    "key-file": "--key-file <file>    unseal key to use (default: the auto-unseal file in the key dir)",
    services: "--services <a,b>     services a role may use (`*` for all)",
    uses: "--uses <n>           logins a secret_id allows (default unlimited)",
    ttl: "--ttl <seconds>      lifetime of a secret_id (default unlimited)",
    ...settingHelp,
  },
  async run(values, [action, arg, ...extra]) {
    if (!action) throw new UsageError(`say what to do: ${actions}`);
    if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
    const { config, log } = settingsFrom(values);
    const { openVault } = await import("../vault/offline.ts");
    const { vault, close } = await openVault(config, log);
    const print = (value: unknown) => process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
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
        default:
          throw new UsageError(`unknown vault action '${action}'; one of: ${actions}`);
      }
    } finally {
      await close();
    }
  },
};

function numberOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`expected a positive integer, got '${value}'`);
  return n;
}
