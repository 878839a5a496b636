/**
 * Turns a server spec into the MCP SDK's low-level `Server` (one per connection or session). The low-level
 * server takes JSON Schema as it is, so our TypeBox values serve both listing and validation.
 */
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../log.ts";
import type { McpServerSpec } from "./registry.ts";
import { callTool, checked, InvalidArguments } from "./call.ts";
import type { ToolContext } from "./define.ts";

export function createMcpServer(spec: McpServerSpec, log: Logger): Server {
  const { name, title, version, instructions } = spec.info;
  const server = new Server(
    { name, title, version },
    {
      capabilities: {
        ...(spec.tools.size ? { tools: {} } : {}),
        ...(spec.resources.size ? { resources: {} } : {}),
        ...(spec.prompts.size ? { prompts: {} } : {}),
      },
      instructions,
    },
  );
  const toolLog = log.child({ component: "mcp", server: name });

  if (spec.tools.size) {
    server.setRequestHandler(ListToolsRequestSchema, () => ({
      tools: [...spec.tools.values()].map(({ name, title, description, input, annotations }) => ({
        name,
        title,
        description,
        inputSchema: input as { type: "object" },
        annotations,
      })),
    }));
    server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
      const tool = spec.tools.get(request.params.name);
      if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
      const progressToken = request.params._meta?.progressToken;
      const context: ToolContext = {
        signal: extra.signal,
        caller: extra.authInfo?.clientId,
        progress: async ({ progress, total, message }) => {
          if (progressToken === undefined || extra.signal.aborted) return;
          await extra.sendNotification({
            method: "notifications/progress",
            params: { progressToken, progress, total, message },
          });
        },
      };
      const result = await asProtocolError(() => callTool(tool, request.params.arguments ?? {}, context, toolLog));
      // No result before the tool's writes are stored (see McpRegistryOptions.settled).
      try {
        await spec.settled();
      } catch {
        return { isError: true, content: [{ type: "text", text: `tool ${tool.name}: its changes could not be stored` }] };
      }
      return result;
    });
  }

  if (spec.resources.size) {
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: [...spec.resources.values()].map(({ uri, name, title, description, mimeType }) => ({
        uri,
        name,
        title,
        description,
        mimeType,
      })),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async ({ params: { uri } }) => {
      const resource = spec.resources.get(uri);
      if (!resource) throw new McpError(ErrorCode.InvalidParams, `Unknown resource: ${uri}`);
      const body = await resource.read();
      const mimeType = resource.mimeType;
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
      if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Unknown prompt: ${params.name}`);
      return asProtocolError(() => prompt.get(checked(prompt.arguments, params.arguments ?? {}, `prompt ${prompt.name}`)));
    });
  }
  return server;
}

/** Invalid arguments are a protocol fault (invalid params), unlike a tool that fails, which is a result. */
async function asProtocolError<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof InvalidArguments) throw new McpError(ErrorCode.InvalidParams, error.message);
    throw error;
  }
}
