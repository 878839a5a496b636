/** Serves one MCP server over stdio: newline-delimited JSON-RPC on stdin/stdout; logs go to stderr only. */
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Logger } from "../log.ts";
import type { McpServerSpec } from "./registry.ts";
import { connectMcpServer } from "./server.ts";

/** Resolves when the client closes stdin (or the transport closes). */
export async function serveStdio(spec: McpServerSpec, log: Logger): Promise<void> {
  const transport = new StdioServerTransport();
  const closed = Promise.withResolvers<void>();
  const server = await connectMcpServer(spec, log, transport);
  const endSession = server.onclose;
  server.onclose = () => {
    endSession?.();
    closed.resolve();
  };
  process.stdin.once("end", () => void server.close());
  log.debug("MCP stdio server ready", { server: spec.info.name });
  await closed.promise;
}
