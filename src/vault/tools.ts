/** The `vault` MCP server: api_call, exec, check and services. Adapters only; the rules live in service.ts. */
import { Type } from "@sinclair/typebox";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { defineTool, jsonResult, type ToolContext } from "../mcp/define.ts";
import type { Caller } from "./approle.ts";
import { toolErrorText, VaultError } from "./errors.ts";
import { ApiCallInput, ExecInput } from "./model.ts";
import * as repo from "./repo.ts";
import type { VaultService } from "./service.ts";

export const vaultTools = (vault: VaultService, db: Parameters<typeof repo.findRole>[0]) => {
  /** A verified caller acts as the role of the same name; an unverified one only on a trusted local server. */
  const callerOf = (context: ToolContext): Caller => {
    if (context.caller) {
      const role = repo.findRole(db, context.caller);
      if (!role) throw new VaultError("PERMISSION_DENIED", `${context.caller} has no vault role`);
      return { name: role.name, services: role.services };
    }
    if (vault.config.trust_local_mcp) return { name: "local", services: ["*"] };
    throw new VaultError("UNAUTHENTICATED", "vault tools need a verified caller here (or a local stdio server with trust_local_mcp)");
  };
  const guarded = async (run: () => Promise<CallToolResult>): Promise<CallToolResult> => {
    try {
      return await run();
    } catch (error) {
      if (error instanceof VaultError) return { isError: true, content: [{ type: "text", text: toolErrorText(error) }] };
      throw error;
    }
  };

  return [
    defineTool({
      name: "api_call",
      title: "Call a service's API",
      description:
        "Send an HTTP request to a configured service. Give the service name, a method and a path on the service (never a host); " +
        "the vault injects the credential and returns status, headers and body with every credential value redacted.",
      input: ApiCallInput,
      annotations: { openWorldHint: true },
      handler: (args, context) => guarded(async () => jsonResult({ ...(await vault.apiCall(args, callerOf(context), context.signal)) })),
    }),
    defineTool({
      name: "exec",
      title: "Run a command with a service's credential",
      description:
        "Run an allowlisted command (e.g. git, gh, psql, aws) with the service's credential in its environment. No shell: args are passed as they are. " +
        "Output is sanitized; the run is stopped at the time limit.",
      input: ExecInput,
      annotations: { openWorldHint: true, destructiveHint: true },
      handler: (args, context) => guarded(async () => jsonResult({ ...(await vault.exec(args, callerOf(context))) })),
    }),
    defineTool({
      name: "check",
      title: "Check a service's credential",
      description: "Run the service's probe request and say whether its credential works. The credential is never returned.",
      input: Type.Object({ service: Type.String({ minLength: 1, maxLength: 64 }) }),
      annotations: { readOnlyHint: true, openWorldHint: true },
      handler: ({ service }, context) => guarded(async () => jsonResult({ ...(await vault.check(service, callerOf(context))) })),
    }),
    defineTool({
      name: "services",
      title: "List configured services",
      description: "List the configured services: name, template, status and allowlists. Never credentials.",
      input: Type.Object({}),
      annotations: { readOnlyHint: true },
      handler: (_args, context) => guarded(async () => jsonResult({ services: await vault.services(callerOf(context)) })),
    }),
  ];
};
