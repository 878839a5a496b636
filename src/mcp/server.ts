/**
 * Turns a server spec into the MCP SDK's low-level `Server` (one per connection or session). The low-level
 * server takes JSON Schema as it is, so our TypeBox values serve both listing and validation.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  type LoggingLevel,
  LoggingLevelSchema,
  ReadResourceRequestSchema,
  SetLevelRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../log.ts";
import type { McpServerSpec } from "./registry.ts";
import { ProtocolError } from "./rpc-error.ts";
import { callTool, checked, InvalidArguments } from "./call.ts";
import type { Completer, ResourceTemplate, ToolContext } from "./define.ts";

/** At most this many completion values are sent, as the spec allows. */
const maxCompletions = 100;

export function createMcpServer(spec: McpServerSpec, log: Logger): Server {
  const { name, title, version, instructions } = spec.info;
  const hasResources = spec.resources.size > 0 || spec.templates.size > 0;
  const completes = [...spec.prompts.values(), ...spec.templates.values()].some((entry) => entry.complete);
  const server = new Server(
    { name, title, version },
    {
      capabilities: {
        logging: {},
        ...(spec.tools.size ? { tools: {} } : {}),
        ...(hasResources ? { resources: {} } : {}),
        ...(spec.prompts.size ? { prompts: {} } : {}),
        ...(completes ? { completions: {} } : {}),
      },
      instructions,
    },
  );
  const toolLog = log.child({ component: "mcp", server: name });
  // One id per connection: an HTTP session has its own Server, a stdio process one. Per-session state (a browser
  // context, say) is keyed on it and let go when the connection closes.
  const session = randomUUID();
  server.onclose = () => spec.endSession(session, (error) => toolLog.error("session cleanup failed", { error }));
  // Log notifications go out only once the client has asked for them, at its level or above.
  let logLevel: number | undefined;
  const severity = (level: LoggingLevel) => LoggingLevelSchema.options.indexOf(level);
  server.setRequestHandler(SetLevelRequestSchema, ({ params }) => {
    logLevel = severity(params.level);
    return {};
  });

  if (spec.tools.size) {
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [...spec.tools.values()].map(({ name, title, description, input, output, annotations }) => ({
        name,
        title,
        description,
        inputSchema: input as { type: "object" },
        ...(output ? { outputSchema: output as { type: "object" } } : {}),
        annotations,
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = spec.tools.get(request.params.name);
      if (!tool) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      const progressToken = request.params._meta?.progressToken;
      const context: ToolContext = {
        signal: extra.signal,
        caller: extra.authInfo?.clientId,
        session,
        progress: async ({ progress, total, message }) => {
          if (progressToken === undefined || extra.signal.aborted) return;
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress, total, message },
          });
        },
        // On the call's own stream, so a client reads them in order with its progress and result.
        log: async (level, data) => {
          if (logLevel === undefined || severity(level) < logLevel || extra.signal.aborted) return;
          await extra.sendNotification({ method: "notifications/message", params: { level, logger: tool.name, data } });
        },
      };
      const result = await callTool(tool, request.params.arguments ?? {}, context, toolLog, spec.failure);
      // No result before the tool's writes are stored (see McpRegistryOptions.settled).
      try {
        await spec.settled();
      } catch {
        return { isError: true, content: [{ type: "text", text: `tool ${tool.name}: its changes could not be stored` }] };
      }
      return result;
    });
  }

  if (hasResources) {
    const templates = [...spec.templates.values()].map((template) => ({ template, pattern: new UriTemplate(template.uriTemplate) }));
    server.setRequestHandler(ListResourcesRequestSchema, async () => {
      const listed = await Promise.all(
        templates.map(async ({ template }) => (await template.list?.())?.map((entry) => ({ mimeType: template.mimeType, ...entry })) ?? []),
      );
      return {
        resources: [
          ...[...spec.resources.values()].map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
          ...listed.flat(),
        ],
      };
    });
    server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: templates.map(({ template: { uriTemplate, name, title, description, mimeType } }) => ({
        uriTemplate,
        name,
        title,
        description,
        mimeType,
      })),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }) => {
      const read = async (): Promise<{ body: string | Uint8Array; mimeType?: string }> => {
        const resource = spec.resources.get(uri);
        if (resource) return { body: await resource.read(), mimeType: resource.mimeType };
        for (const { template, pattern } of templates) {
          const variables = pattern.match(uri);
          if (variables) return { body: await template.read(uri, single(variables)), mimeType: template.mimeType };
        }
        // -32002 is the spec's "resource not found".
        throw new ProtocolError(-32002, `Resource not found: ${uri}`);
      };
      const { body, mimeType } = await read();
      return {
        contents: [
          typeof body === "string" ? { uri, mimeType, text: body } : { uri, mimeType, blob: Buffer.from(body).toString("base64") },
        ],
      };
    });
  }

  if (spec.prompts.size) {
    server.setRequestHandler(ListPromptsRequestSchema, () => ({
      prompts: [...spec.prompts.values()].map(({ name, title, description, arguments: args }) => ({
        name,
        title,
        description,
        arguments: Object.entries(args.properties).map(([argName, schema]) => ({
          name: argName,
          description: schema.description,
          required: args.required?.includes(argName) ?? false,
        })),
      })),
    }));
    server.setRequestHandler(GetPromptRequestSchema, async ({ params }) => {
      const prompt = spec.prompts.get(params.name);
      if (!prompt) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt: ${params.name}`);
      let args;
      try {
        args = checked(prompt.arguments, params.arguments ?? {}, `prompt ${prompt.name}`);
      } catch (error) {
        // A prompt has no result to carry an error in: bad arguments are invalid params.
        if (error instanceof InvalidArguments) throw new ProtocolError(ErrorCode.InvalidParams, error.message);
        throw error;
      }
      return prompt.get(args);
    });
  }

  if (completes) {
    server.setRequestHandler(CompleteRequestSchema, async ({ params: { ref, argument } }) => {
      let completer: Completer | undefined;
      if (ref.type === "ref/prompt") completer = (spec.prompts.get(ref.name)?.complete as Record<string, Completer> | undefined)?.[argument.name];
      else completer = (spec.templates.get(ref.uri) as ResourceTemplate | undefined)?.complete?.[argument.name];
      const values = completer ? await completer(argument.value) : [];
      return { completion: { values: values.slice(0, maxCompletions), total: values.length, hasMore: values.length > maxCompletions } };
    });
  }
  return server;
}

/** A template variable that matched a list keeps its first value: our templates have no list operators. */
const single = (variables: Record<string, string | string[]>): Record<string, string> =>
  Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, Array.isArray(value) ? (value[0] ?? "") : value]));
