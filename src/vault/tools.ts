/**
 * The `vault` MCP server: the tools api_call, exec, check and services; the services as resources
 * (vault://services, vault://services/{name}, names completed); and a prompt that sets up a call through the
 * vault. Adapters only; the rules live in service.ts. Every one of them acts for the verified caller's role.
 */
import { Type } from "@sinclair/typebox";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { definePrompt, defineTool, jsonResult, ResourceNotFound, type Prompt, type RequestContext, type Resource, type ResourceTemplate } from "../mcp/define.ts";
import type { Caller } from "./approle.ts";
import { InvalidArguments } from "../mcp/call.ts";
import { toolErrorText, VaultError } from "./errors.ts";
import { ApiCallInput, ApiCallResult, CheckResult, ExecInput, ExecResult, ServiceView } from "./model.ts";
import * as repo from "./repo.ts";
import type { VaultService } from "./service.ts";

export const vaultMcp = (vault: VaultService, db: Parameters<typeof repo.findRole>[0]) => {
  /** A verified caller acts as the role of the same name; an unverified one only on a trusted local server. */
  const callerOf = async (context: RequestContext): Promise<Caller> => {
    if (context.caller) {
      const role = await repo.findRole(db, context.caller);
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

  const tools = [
    defineTool({
      name: "api_call",
      title: "Call a service's API",
      description:
        "Send an HTTP request to a configured service. Give the service name, a method and a path on the service (never a host); " +
        "the vault injects the credential and returns status, headers and body with every credential value redacted.",
      input: ApiCallInput,
      output: ApiCallResult,
      annotations: { openWorldHint: true },
      handler: (args, context) => guarded(async () => jsonResult({ ...(await vault.apiCall(args, await callerOf(context), context.signal)) })),
    }),
    defineTool({
      name: "exec",
      title: "Run a command with a service's credential",
      description:
        "Run an allowlisted command (e.g. git, gh, psql, aws) with the service's credential in its environment. No shell: args are passed as they are. " +
        "Output is sanitized; the run is stopped at the time limit.",
      input: ExecInput,
      output: ExecResult,
      annotations: { openWorldHint: true, destructiveHint: true },
      handler: (args, context) => guarded(async () => jsonResult({ ...(await vault.exec(args, await callerOf(context))) })),
    }),
    defineTool({
      name: "check",
      title: "Check a service's credential",
      description: "Run the service's probe request and say whether its credential works. The credential is never returned.",
      input: Type.Object({ service: Type.String({ minLength: 1, maxLength: 64 }) }),
      output: CheckResult,
      annotations: { readOnlyHint: true, openWorldHint: true },
      handler: ({ service }, context) => guarded(async () => jsonResult({ ...(await vault.check(service, await callerOf(context))) })),
    }),
    defineTool({
      name: "services",
      title: "List configured services",
      description: "List the configured services: name, template, status and allowlists. Never credentials.",
      input: Type.Object({}),
      output: Type.Object({ services: Type.Array(ServiceView) }),
      annotations: { readOnlyHint: true },
      handler: (_args, context) => guarded(async () => jsonResult({ services: await vault.services(await callerOf(context)) })),
    }),
  ];

  const json = (value: unknown) => JSON.stringify(value, null, 2);
  const services = async (context: RequestContext) => vault.services(await callerOf(context));
  const names = async (typed: string, context: RequestContext) => (await services(context)).map((s) => s.name).filter((name) => name.startsWith(typed));
  const resources: Resource[] = [
    {
      uri: "vault://services",
      name: "services",
      title: "Services",
      description: "The services this caller may use: template, status and allowlists. Never credentials.",
      mimeType: "application/json",
      read: async (context) => json(await services(context)),
    },
  ];
  const templates: ResourceTemplate[] = [
    {
      uriTemplate: "vault://services/{name}",
      name: "service",
      title: "One service",
      description: "One service this caller may use: what it allows and whether its credential works. Never the credential.",
      mimeType: "application/json",
      list: async (context) => (await services(context)).map((s) => ({ uri: `vault://services/${s.name}`, name: s.name, description: `${s.template} service at ${s.base_url}` })),
      read: async (uri, { name }, context) => {
        const found = (await services(context)).find((s) => s.name === name);
        if (!found) throw new ResourceNotFound(uri);
        return json(found);
      },
      complete: { name: names },
    },
  ];
  const prompts: Prompt[] = [
    definePrompt({
      name: "call-service",
      title: "Call a service through the vault",
      description: "Set up a task that calls one of the vault's services: its allowlists, and how to call it without ever holding the credential.",
      arguments: Type.Object({
        service: Type.String({ description: "the service to call" }),
        goal: Type.String({ description: "what the calls should achieve" }),
      }),
      complete: { service: names },
      get: async ({ service, goal }, context) => {
        const found = (await services(context)).find((s) => s.name === service);
        if (!found) throw new InvalidArguments("prompt call-service", "service", `no service named ${service} is available to this caller`);
        return {
          description: `Call ${service} through the vault`,
          messages: [
            {
              role: "user",
              content: {
                type: "text",
                text:
                  `Goal: ${goal}\n\nUse the vault's api_call tool with service "${service}" for every request to ${found.base_url}: give a method and a path, never a host. ` +
                  `Allowed methods: ${found.allow_methods.join(", ") || "none"}; allowed paths: ${found.allow_paths.join(", ") || "none"}. ` +
                  "The vault adds the credential and redacts it from answers; never ask for it or try to print it.",
              },
            },
            { role: "user", content: { type: "resource", resource: { uri: `vault://services/${service}`, mimeType: "application/json", text: json(found) } } },
          ],
        };
      },
    }),
  ];
  return { tools, resources, templates, prompts };
};
