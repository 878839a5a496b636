/** The browser capability running in process on a free port, a fixture site beside it, and MCP clients for it. */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { browserCapability, type BrowserCapability } from "../../src/browser/capability.ts";
import type { CapabilityFactory } from "../../src/capability.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { requireTool } from "../support/tools.ts";

export interface BrowserApp extends RunningApp {
  capability: BrowserCapability;
  /** An MCP client on /mcp/browser, closed with the app. */
  mcp(headers?: Record<string, string>): Promise<Client>;
}

export async function startBrowserApp(
  env: Record<string, string> = {},
  { capabilities = [], dataDir }: { capabilities?: CapabilityFactory[]; dataDir?: string } = {},
): Promise<BrowserApp> {
  requireTool("chromium");
  const running = await startApp([...capabilities, browserCapability], {
    env: { PLATFORM_BROWSER__WARM_SESSIONS: "0", PLATFORM_VAULT__SETUP_ENABLED: "false", ...env },
    dataDir,
  });
  const clients: Client[] = [];
  return {
    ...running,
    capability: running.runtime.capabilities.find((c) => c.name === "browser") as BrowserCapability,
    async mcp(headers = {}) {
      const client = new Client({ name: "browser-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${running.base}/mcp/browser`), { requestInit: { headers } }));
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close().catch(() => {})));
      await running.close();
    },
  };
}

/** Calls a tool and returns its structured result; a failed call throws with the tool's error text. */
export async function call<T = Record<string, unknown>>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error((result.content[0] as { text: string }).text);
  return result.structuredContent as T;
}

/** The text of a failed call (and fails the test if the call succeeded). */
export async function failure(client: Client, name: string, args: Record<string, unknown> = {}): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (!result.isError) throw new Error(`${name} succeeded: ${JSON.stringify(result.structuredContent)}`);
  return (result.content[0] as { text: string }).text;
}
