/**
 * The runtime with the infra capability, its workspace root in a temp folder, reached over MCP by the SDK's own
 * client. tofu is the one the install script built (never a terraform that happens to be on PATH).
 */
import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { CapabilityFactory } from "../../src/capability.ts";
import { infraCapability, type InfraCapability } from "../../src/infra/capability.ts";
import type { Logger } from "../../src/log.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { tempDir } from "../support/temp.ts";
import { requireTool } from "../support/tools.ts";

export const fixtures = join(import.meta.dir, "fixtures");

export interface InfraHarness extends RunningApp {
  root: string;
  capability: InfraCapability;
  client: Client;
  /** Calls a tool; the result as the client got it. */
  call(name: string, args?: Record<string, unknown>, options?: { signal?: AbortSignal; onprogress?: (p: { message?: string }) => void }): Promise<CallToolResult>;
  /** Calls a tool that must succeed and answers its structured content. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  /** Calls a tool that must fail and answers its text. */
  fails(name: string, args?: Record<string, unknown>): Promise<string>;
  /** Writes files (path relative to the root: contents) into the workspace root. */
  write(files: Record<string, string>): void;
  /** Copies a fixture folder into the root under `as`. */
  fixture(name: string, as?: string): string;
}

export interface InfraOptions {
  env?: Record<string, string>;
  /** Other capabilities in the same runtime (the vault, for the repository host's token). */
  alongside?: CapabilityFactory[];
  log?: Logger;
}

export async function startInfra({ env = {}, alongside = [], log }: InfraOptions = {}): Promise<InfraHarness> {
  const root = tempDir();
  const running = await startApp([...alongside, infraCapability], {
    env: { PLATFORM_INFRA__WORKSPACE_ROOT: root.path, PLATFORM_INFRA__BINARY: requireTool("tofu"), ...env },
    ...(log ? { log } : {}),
  });
  const client = new Client({ name: "infra-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running.base}/mcp/infra`)));
  // Listing the tools makes the SDK client check every result against its tool's outputSchema (with Ajv), besides
  // the host's own check (TypeBox): a result the schema does not describe fails the test either way.
  await client.listTools();
  const call: InfraHarness["call"] = (name, args = {}, options = {}) =>
    client.callTool({ name, arguments: args }, undefined, { signal: options.signal, onprogress: options.onprogress, timeout: 120_000 }) as Promise<CallToolResult>;
  return {
    ...running,
    root: root.path,
    capability: running.runtime.capabilities.find((c) => c.name === "infra") as InfraCapability,
    client,
    call,
    async ok(name, args) {
      const result = await call(name, args);
      if (result.isError) throw new Error(`${name} failed: ${textOf(result)}`);
      return result.structuredContent as never;
    },
    async fails(name, args) {
      const result = await call(name, args);
      if (!result.isError) throw new Error(`${name} succeeded: ${textOf(result)}`);
      return textOf(result);
    },
    write(files) {
      for (const [path, text] of Object.entries(files)) {
        mkdirSync(dirname(join(root.path, path)), { recursive: true });
        writeFileSync(join(root.path, path), text);
      }
    },
    fixture(name, as = name) {
      cpSync(join(fixtures, name), join(root.path, as), { recursive: true });
      return as;
    },
    async close() {
      await client.close();
      await running.close();
      root.remove();
    },
  };
}

export const textOf = (result: CallToolResult) => result.content.map((c) => (c.type === "text" ? c.text : "")).join("\n");
