/** MCP over Streamable HTTP: `/mcp` for the default server and `/mcp/<server>` for each named one. */
import { Elysia } from "elysia";
import type { Logger } from "../log.ts";
import type { McpRegistry } from "./registry.ts";
import { McpSessions } from "./sessions.ts";

export interface McpHttp {
  plugin: Elysia;
  /** How many open sessions each server has, for /health. */
  sessionCounts(): Record<string, number>;
  close(): Promise<void>;
}

export function mcpHttp(registry: McpRegistry, defaultServer: string, log: Logger): McpHttp {
  const byName = new Map(registry.names().map((name) => [name, new McpSessions(registry.get(name)!, log)]));
  const route = (name: string | undefined, request: Request) => {
    const sessions = byName.get(name ?? defaultServer);
    if (!sessions)
      return Response.json(
        { jsonrpc: "2.0", error: { code: -32601, message: `No MCP server named ${name}; have: ${[...byName.keys()].join(", ")}` }, id: null },
        { status: 404 },
      );
    return sessions.handle(request);
  };
  const plugin = new Elysia({ name: "mcp.http" })
    // The SDK transport reads the body itself, so Elysia must not parse it.
    .post("/mcp", ({ request }) => route(undefined, request), { parse: "none" })
    .get("/mcp", ({ request }) => route(undefined, request))
    .delete("/mcp", ({ request }) => route(undefined, request))
    .post("/mcp/:server", ({ params, request }) => route(params.server, request), { parse: "none" })
    .get("/mcp/:server", ({ params, request }) => route(params.server, request))
    .delete("/mcp/:server", ({ params, request }) => route(params.server, request));
  return {
    plugin: plugin as unknown as Elysia,
    sessionCounts: () => Object.fromEntries([...byName].map(([name, s]) => [name, s.size])),
    close: async () => void (await Promise.all([...byName.values()].map((s) => s.close()))),
  };
}
