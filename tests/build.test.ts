import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { repoRoot, serve } from "./support/cli.ts";
import { startDiscord } from "./support/discord/server.ts";
import { tempDir } from "./support/temp.ts";

// The executable runs from an empty folder: no node_modules beside or above it, no source tree.
const dir = tempDir();
const executable = join(dir.path, "platform");

beforeAll(async () => {
  const build = Bun.spawn(["bun", join(repoRoot, "scripts/build.ts"), "--outfile", executable], { stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`build failed: ${stderr}`);
}, 120_000);
afterAll(() => dir.remove());

test("the compiled executable serves /health from an empty folder", async () => {
  const server = await serve(join(dir.path, "data"), { command: [executable] });
  try {
    const res = await fetch(`${server.url}/health`);
    expect(await res.json()).toMatchObject({ status: "ok", subsystems: { database: { status: "ok" } } });
    // The A2A card of each version, with both bindings and push notifications.
    const v1 = (await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } }).then((r) => r.json())) as any;
    expect(v1.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding)).toEqual(["JSONRPC", "HTTP+JSON", "JSONRPC"]);
    expect(v1.capabilities.pushNotifications).toBe(true);
    expect(await fetch(`${server.url}/.well-known/agent-card.json`).then((r) => r.json())).toMatchObject({ protocolVersion: "0.3.0" });
  } finally {
    expect(await server.stop()).toBe(0);
  }
});

test("the compiled executable runs an MCP server over stdio", async () => {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: executable, args: ["mcp", "platform", "--data-dir", join(dir.path, "mcp")], cwd: dir.path, stderr: "pipe" }),
  );
  try {
    expect(client.getServerVersion()).toMatchObject({ name: "platform" });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("health");
    // The health resources and the diagnose prompt work from the executable too.
    const part = (await client.readResource({ uri: "platform://health/database" })).contents[0] as { text: string };
    expect(JSON.parse(part.text)).toEqual({ status: "ok" });
    const { messages } = await client.getPrompt({ name: "diagnose", arguments: { subsystem: "database" } });
    expect(messages[1]!.content).toMatchObject({ type: "resource", resource: { uri: "platform://health/database" } });
  } finally {
    await client.close();
  }
});

test("the compiled executable serves the chat MCP server over stdio from an empty folder", async () => {
  const discord = await startDiscord();
  const client = new Client({ name: "test", version: "1.0.0" });
  const env = { ...(process.env as Record<string, string>), CHAT_TOKEN: discord.token, PLATFORM_CHAT__API_BASE: discord.api };
  await client.connect(
    new StdioClientTransport({ command: executable, args: ["mcp", "chat", "--data-dir", join(dir.path, "chat")], cwd: dir.path, env, stderr: "pipe" }),
  );
  try {
    expect(client.getServerVersion()).toMatchObject({ name: "chat" });
    const sent = await client.callTool({ name: "send_message", arguments: { channelId: discord.ids.general, content: "from the executable" } });
    expect(sent.structuredContent).toMatchObject({ channelId: discord.ids.general });
    // The bot session came up too: the gateway took an IDENTIFY from the executable.
    await discord.gateway.until(() => discord.gateway.log.identifies === 1);
  } finally {
    await client.close();
    await discord.stop();
  }
});
