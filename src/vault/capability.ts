/**
 * The credential vault joins the runtime: lease actors, the `vault` MCP server, /vault/v1 routes, and in the
 * process that owns the data dir the setup page and the admin socket.
 */
import type { Capability, CapabilityFactory, Runtime } from "../capability.ts";
import { adminSocketPath, startAdminSocket, type AdminSocket } from "./admin-socket.ts";
import { vaultHttp } from "./http.ts";
import { VaultService } from "./service.ts";
import { startSetupServer, type SetupServer } from "./setup/server.ts";
import { vaultMcp } from "./tools.ts";

/** The capability, with its service for in-process callers (the CLI verbs and hooks open their own). */
export type VaultCapability = Capability & { vault: VaultService; setupLink(): string | undefined };

export const vaultCapability = (async ({ config, log, database, actors, mcp, health, metrics }) => {
  const vault = new VaultService(database.db, actors, log, config);
  await vault.store.initialize();
  await vault.store.isSealed();
  const { tools, resources, templates, prompts } = vaultMcp(vault, database.db);
  mcp
    .server("vault", {
      title: "Credential vault",
      instructions: "Call services through the vault: it injects credentials and redacts them from answers. You never hold a credential.",
    })
    .tool(...tools)
    .resource(...resources)
    .template(...templates)
    .prompt(...prompts);
  metrics.countFrom({ name: "platform_vault_calls_total", help: "Vault calls and lease events, by operation and outcome", labelNames: ["operation", "outcome"] }, () =>
    [...vault.calls].map(([key, value]) => {
      const [operation, outcome] = key.split("\0");
      return { labels: { operation: operation!, outcome: outcome! }, value };
    }),
  );
  health.register("vault", () => {
    // The seal state as last read (each vault call reads it; `vault seal` on any node changes it); read afresh for
    // the next report.
    void vault.store.isSealed().catch(() => {});
    const { sealed, masterVersion } = vault.store.health();
    return { status: sealed ? "degraded" : "ok", sealed, masterVersion };
  });

  let setup: SetupServer | undefined;
  let admin: AdminSocket | undefined;
  return {
    name: "vault",
    vault,
    setupLink: () => setup?.link,
    // The one-time link opens a session once; it is for the operator who reads this.
    endpoints: (): Record<string, string> => (setup ? { "vault setup page (link works once)": setup.link } : {}),
    http: vaultHttp(vault),
    async start() {
      if (config.vault.setup_enabled) {
        try {
          setup = startSetupServer(vault, log, config.vault.setup_port);
          // `setupLink` is not a secret-looking key, so the redactor lets the operator see it; it works once.
          log.info("vault setup page", { url: setup.url, setupLink: setup.link });
        } catch (error) {
          // Another process (a second server, an MCP stdio server) may hold the port: the rest keeps serving.
          log.warn("vault setup page not started", { port: config.vault.setup_port, error });
        }
      }
      admin = await startAdminSocket(adminSocketPath(config), vault, () => setup, log);
    },
    async stop() {
      await admin?.stop();
      await setup?.stop();
    },
  };
}) satisfies CapabilityFactory as ((runtime: Runtime) => Promise<VaultCapability>) & Pick<CapabilityFactory, "mcpServers">;
vaultCapability.mcpServers = ["vault"];
