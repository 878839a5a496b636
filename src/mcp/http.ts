/**
 * MCP over Streamable HTTP: `/mcp` for the default server and `/mcp/<server>` for each named one. The MCP SDK
 * is loaded on the first MCP request, not at start-up: a server that is never asked for MCP never pays for it.
 * Requests from a web page whose origin is not allowed are refused before anything else (see origin.ts).
 */
import { Elysia } from "elysia";
import type { Config } from "../config.ts";
import type { ErrorSurface } from "../errors.ts";
import type { Logger } from "../log.ts";
import { originAllowed } from "./origin.ts";
import { rpcError } from "./rpc-error.ts";
import type { McpRegistry } from "./registry.ts";
import type { McpSessions } from "./sessions.ts";

export interface McpHttp {
  plugin: Elysia;
  /** Failures the runtime catches before the MCP transport runs (an oversized or too deeply nested body), in JSON-RPC. */
  errors: ErrorSurface;
  /** How many open sessions each server has, for /health. */
  sessionCounts(): Record<string, number>;
  close(): Promise<void>;
}

/**
 * `identify` names the verified caller behind a request (the mTLS front's SPIFFE id); tools see it as
 * `context.caller`, and a session stays bound to whoever opened it.
 */
export function mcpHttp(
  registry: McpRegistry,
  { default_server: defaultServer, allowed_origins: allowedOrigins }: Config["mcp"],
  log: Logger,
  identify: (request: Request) => string | undefined = () => undefined,
): McpHttp {
  const open = new Map<string, McpSessions>();
  const allowed = originAllowed(allowedOrigins);
  let sdk: Promise<typeof import("./sessions.ts")> | undefined;
  const sessionsOf = async (name: string) => {
    const { McpSessions } = await (sdk ??= import("./sessions.ts"));
    let sessions = open.get(name);
    if (!sessions) open.set(name, (sessions = new McpSessions(registry.get(name)!, log)));
    return sessions;
  };
  const route = async (name: string | undefined, request: Request) => {
    const origin = request.headers.get("origin");
    if (origin !== null && !allowed(origin))
      return rpcError(403, -32000, `Forbidden: pages from origin ${origin} may not use MCP here; an operator can list it in mcp.allowed_origins`);
    const server = name ?? defaultServer;
    if (!registry.get(server)) return rpcError(404, -32601, `No MCP server named ${name}; have: ${registry.names().join(", ")}`);
    return (await sessionsOf(server)).handle(request, identify(request));
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
    errors: { prefix: "/mcp", render: ({ kind, message, status }) => rpcError(status, kind === "MALFORMED_JSON" ? -32700 : kind === "INTERNAL" ? -32603 : -32600, message) },
    sessionCounts: () => Object.fromEntries(registry.names().map((name) => [name, open.get(name)?.size ?? 0])),
    close: async () => void (await Promise.all([...open.values()].map((s) => s.close()))),
  };
}
