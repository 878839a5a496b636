/**
 * Turns a server spec into the MCP SDK's low-level `Server` (one per connection or session). The low-level
 * server takes JSON Schema as it is, so our TypeBox values serve both listing and validation.
 */
import { randomUUID } from "node:crypto";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { UriTemplate } from "@modelcontextprotocol/sdk/shared/uriTemplate.js";
import { getMethodLiteral } from "@modelcontextprotocol/sdk/server/zod-json-schema-compat.js";
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
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../log.ts";
import type { McpServerSpec } from "./registry.ts";
import { ProtocolError } from "./rpc-error.ts";
import { callTool, checked, InvalidArguments } from "./call.ts";
import { type Completer, type RequestContext, type ResourceTemplate, ResourceNotFound, type ToolContext } from "./define.ts";

/** At most this many completion values are sent, as the spec allows. */
const maxCompletions = 100;
/** MCP's code for "resource not found". */
const resourceNotFound = -32002;

type RequestSchema = Parameters<Server["setRequestHandler"]>[0];
interface ParamsIssue {
  path: PropertyKey[];
  message: string;
}

/**
 * Serves `spec` on `transport`. A request whose params do not fit its method's schema is answered -32602 naming
 * the first offending field, before the SDK sees it: the SDK would answer it -32603 with the schema library's
 * whole report.
 */
export async function connectMcpServer(spec: McpServerSpec, log: Logger, transport: Transport): Promise<Server> {
  const { server, schemas } = createMcpServer(spec, log);
  await server.connect(transport);
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    const schema = "method" in message && "id" in message ? schemas.get(message.method) : undefined;
    const checked = schema && (schema as unknown as { safeParse(value: unknown): { success: boolean; error?: { issues: ParamsIssue[] } } }).safeParse(message);
    if (!checked || checked.success) return deliver(message, extra);
    const issue = checked.error!.issues[0];
    const where = issue?.path.map(String).join(".") || "params";
    const error = { code: ErrorCode.InvalidParams, message: `Invalid params for ${(message as { method: string }).method}: ${where}: ${issue?.message ?? "invalid"}` };
    const id = (message as { id: string | number }).id;
    transport.send({ jsonrpc: "2.0", id, error }, { relatedRequestId: id }).catch((sendError) => log.warn("MCP error answer not sent", { error: sendError }));
  };
  return server;
}

function createMcpServer(spec: McpServerSpec, log: Logger): { server: Server; schemas: Map<string, RequestSchema> } {
  const { name, title, version, instructions } = spec.info;
  const resources = [...spec.resources.values()];
  const hasResources = resources.length > 0 || spec.templates.size > 0;
  const watchable = resources.some((r) => r.watch) || [...spec.templates.values()].some((t) => t.watch);
  const completes = [...spec.prompts.values(), ...spec.templates.values()].some((entry) => entry.complete);
  const server = new Server(
    { name, title, version },
    {
      capabilities: {
        logging: {},
        ...(spec.tools.size ? { tools: {} } : {}),
        ...(hasResources ? { resources: watchable ? { subscribe: true } : {} } : {}),
        ...(spec.prompts.size ? { prompts: {} } : {}),
        ...(completes ? { completions: {} } : {}),
      },
      instructions,
    },
  );
  const schemas = new Map<string, RequestSchema>();
  const handle: Server["setRequestHandler"] = (schema, handler) => {
    schemas.set(getMethodLiteral(schema), schema);
    server.setRequestHandler(schema, handler);
  };
  const toolLog = log.child({ component: "mcp", server: name });
  // One id per connection: an HTTP session has its own Server, a stdio process one. Per-session state (a browser
  // context, say) is keyed on it and let go when the connection closes.
  const session = randomUUID();
  const contextOf = (extra: { authInfo?: { clientId: string } }): RequestContext => ({ caller: extra.authInfo?.clientId, session });
  const subscriptions = new Map<string, () => void>();
  server.onclose = () => {
    for (const stop of subscriptions.values()) stop();
    subscriptions.clear();
    spec.endSession(session, (error) => toolLog.error("session cleanup failed", { error }));
  };
  // Log notifications go out at the level the client set, or above; until it sets one, at info and above (the
  // spec leaves that choice to the server: debug chatter is for a client that asks for it).
  const severity = (level: LoggingLevel) => LoggingLevelSchema.options.indexOf(level);
  let logLevel = severity("info");
  handle(SetLevelRequestSchema, ({ params }) => {
    logLevel = severity(params.level);
    return {};
  });

  if (spec.tools.size) {
    handle(ListToolsRequestSchema, () => ({
      tools: [...spec.tools.values()].map(({ name, title, description, input, output, annotations }) => ({
        name,
        title,
        description,
        inputSchema: input as { type: "object" },
        ...(output ? { outputSchema: output as { type: "object" } } : {}),
        annotations,
      })),
    }));
    handle(CallToolRequestSchema, async (request, extra) => {
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
          if (severity(level) < logLevel || extra.signal.aborted) return;
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
    /** The static resource or the template match a URI names; throws "resource not found" for neither. */
    const locate = (uri: string) => {
      const resource = spec.resources.get(uri);
      if (resource) return { resource };
      for (const { template, pattern } of templates) {
        const variables = pattern.match(uri);
        if (variables) return { template, variables: single(variables) };
      }
      throw new ProtocolError(resourceNotFound, `Resource not found: ${uri}`);
    };
    const notFound = (error: unknown, uri: string) =>
      error instanceof ResourceNotFound ? new ProtocolError(resourceNotFound, `Resource not found: ${uri}`) : error;

    handle(ListResourcesRequestSchema, async (_request, extra) => {
      const listed = await Promise.all(
        templates.map(async ({ template }) => (await template.list?.(contextOf(extra)))?.map((entry) => ({ mimeType: template.mimeType, ...entry })) ?? []),
      );
      return {
        resources: [...resources.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })), ...listed.flat()],
      };
    });
    handle(ListResourceTemplatesRequestSchema, () => ({
      resourceTemplates: templates.map(({ template: { uriTemplate, name, title, description, mimeType } }) => ({
        uriTemplate,
        name,
        title,
        description,
        mimeType,
      })),
    }));
    handle(ReadResourceRequestSchema, async ({ params: { uri } }, extra) => {
      const found = locate(uri);
      let body: string | Uint8Array;
      try {
        body = found.resource ? await found.resource.read(contextOf(extra)) : await found.template.read(uri, found.variables, contextOf(extra));
      } catch (error) {
        throw notFound(error, uri);
      }
      const mimeType = (found.resource ?? found.template).mimeType;
      return {
        contents: [typeof body === "string" ? { uri, mimeType, text: body } : { uri, mimeType, blob: Buffer.from(body).toString("base64") }],
      };
    });
    if (watchable) {
      // A subscription lasts until unsubscribed or the session ends; a resource that never changes is accepted
      // and simply never reported.
      handle(SubscribeRequestSchema, async ({ params: { uri } }) => {
        const found = locate(uri);
        if (subscriptions.has(uri)) return {};
        const changed = () => void server.sendResourceUpdated({ uri }).catch((error) => toolLog.debug("resource update not sent", { uri, error }));
        const stop = found.resource ? found.resource.watch?.(changed) : found.template.watch?.(uri, found.variables, changed);
        subscriptions.set(uri, stop ?? (() => {}));
        return {};
      });
      handle(UnsubscribeRequestSchema, async ({ params: { uri } }) => {
        subscriptions.get(uri)?.();
        subscriptions.delete(uri);
        return {};
      });
    }
  }

  if (spec.prompts.size) {
    handle(ListPromptsRequestSchema, () => ({
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
    handle(GetPromptRequestSchema, async ({ params }, extra) => {
      const prompt = spec.prompts.get(params.name);
      if (!prompt) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt: ${params.name}`);
      try {
        return await prompt.get(checked(prompt.arguments, params.arguments ?? {}, `prompt ${prompt.name}`), contextOf(extra));
      } catch (error) {
        // A prompt has no result to carry an error in: arguments refused by its schema or by the prompt itself
        // (a name that does not exist) are invalid params.
        if (error instanceof InvalidArguments) throw new ProtocolError(ErrorCode.InvalidParams, error.message);
        throw error;
      }
    });
  }

  if (completes) {
    handle(CompleteRequestSchema, async ({ params: { ref, argument } }, extra) => {
      let completers: Record<string, Completer> | undefined;
      if (ref.type === "ref/prompt") {
        const prompt = spec.prompts.get(ref.name);
        if (!prompt) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown prompt: ${ref.name}`);
        completers = prompt.complete as Record<string, Completer> | undefined;
      } else {
        const template: ResourceTemplate | undefined = spec.templates.get(ref.uri);
        if (!template) throw new ProtocolError(ErrorCode.InvalidParams, `Unknown resource template: ${ref.uri}`);
        completers = template.complete;
      }
      // An argument without a completer has no suggestions; that is an answer, not an error.
      const values = (await completers?.[argument.name]?.(argument.value, contextOf(extra))) ?? [];
      return { completion: { values: values.slice(0, maxCompletions), total: values.length, hasMore: values.length > maxCompletions } };
    });
  }
  return { server, schemas };
}

/** A template variable that matched a list keeps its first value: our templates have no list operators. */
const single = (variables: Record<string, string | string[]>): Record<string, string> =>
  Object.fromEntries(Object.entries(variables).map(([key, value]) => [key, Array.isArray(value) ? (value[0] ?? "") : value]));
