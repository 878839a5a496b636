/** The infrastructure-as-code server joins the runtime: the `infra` MCP server and its part of /health. */
import type { Capability, CapabilityFactory, Runtime } from "../capability.ts";
import { findBinary } from "./binary.ts";
import { InfraService } from "./service.ts";
import { infraFailure, infraTools } from "./tools.ts";
import { tokenSource } from "./vcs-token.ts";
import type { Binary } from "./views.ts";

/** The capability, with its service for in-process callers. */
export type InfraCapability = Capability & { infra: InfraService };

export const infraCapability = (({ config, log, database, mcp, health }) => {
  const token = () => tokenSource(database.db, config);
  const infra = new InfraService(config, log.child({ component: "infra" }), async () => (await token()).token);
  mcp
    .server("infra", {
      title: "Infrastructure as code",
      instructions:
        "Plan, check and scan OpenTofu/Terraform configurations in the workspace root. Paths are relative to that root. " +
        "Nothing changes infrastructure unless the server allows apply, and then only a plan saved here, with its hash.",
      failure: infraFailure,
    })
    .tool(...infraTools({ infra, tokenSource: async () => (await token()).source }));
  // Finding the binary walks PATH (a dozen file checks); /health may be asked thousands of times a second, so it
  // looks again at most once a second.
  let found: { at: number; binary: Binary | undefined } | undefined;
  const binaryNow = () => {
    const now = Date.now();
    if (!found || now - found.at >= 1000) found = { at: now, binary: findBinary(config.infra) };
    return found.binary;
  };
  health.register("infra", () => {
    const binary = binaryNow();
    return {
      status: binary ? "ok" : "degraded",
      binary: binary?.name ?? null,
      workspaceRoot: infra.paths.root,
      languageServer: infra.lsp.state,
      running: infra.workspaces.busy(),
    };
  });
  return {
    name: "infra",
    infra,
    stop: () => infra.stop(),
  };
}) satisfies CapabilityFactory as ((runtime: Runtime) => InfraCapability) & Pick<CapabilityFactory, "mcpServers">;
infraCapability.mcpServers = ["infra"];
