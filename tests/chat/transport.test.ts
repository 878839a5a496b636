import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { repoRoot, sourceCommand } from "../support/cli.ts";
import { streamLines } from "../support/log-lines.ts";
import { startDiscord, type DiscordStandIn } from "../support/discord/server.ts";
import { tempDir } from "../support/temp.ts";
import { startChat, structured } from "./harness.ts";

let discord: DiscordStandIn;
const dir = tempDir();
beforeAll(async () => {
  discord = await startDiscord();
});
afterAll(async () => {
  await discord.stop();
  dir.remove();
});

/** `platform` over stdio from source, its stderr kept as JSON lines. */
async function stdio(args: string[], env: Record<string, string>) {
  const transport = new StdioClientTransport({
    command: sourceCommand[0]!,
    args: [...sourceCommand.slice(1), ...args],
    cwd: repoRoot,
    env: { ...(process.env as Record<string, string>), PLATFORM_DATA_DIR: join(dir.path, "data"), CHAT_TOKEN: discord.token, PLATFORM_CHAT__API_BASE: discord.api, ...env },
    stderr: "pipe",
  });
  const stderr = streamLines(transport.stderr as Readable);
  const client = new Client({ name: "stdio-test", version: "1.0.0" });
  await client.connect(transport);
  return { client, stderr };
}

test("`platform mcp chat` serves the chat tools over stdio; stdout carries only MCP and logs are JSON lines on stderr", async () => {
  const { client, stderr } = await stdio(["mcp", "chat"], {});
  try {
    expect(client.getServerVersion()?.name).toBe("chat");
    expect((await client.listTools()).tools).toHaveLength(77);
    const sent = structured<{ channelId: string }>(await client.callTool({ name: "send_message", arguments: { channelId: discord.ids.general, content: "over stdio" } }));
    expect(sent.channelId).toBe(discord.ids.general);
    const line = JSON.parse(await stderr.until((l) => l.includes('"message":"chat tool call"')));
    expect(line).toMatchObject({ level: "info", tool: "send_message", channelId: discord.ids.general, success: true, duration: expect.any(Number), timestamp: expect.any(String) });
  } finally {
    await client.close();
  }
});

test("with mcp.default_server: chat, TRANSPORT_MODE=stdio and no command serves chat", async () => {
  const { client } = await stdio([], { TRANSPORT_MODE: "stdio", PLATFORM_MCP__DEFAULT_SERVER: "chat" });
  try {
    expect(client.getServerVersion()?.name).toBe("chat");
    expect(structured<{ guilds?: unknown }>(await client.callTool({ name: "get_server_info", arguments: { guildId: discord.guild.id } }))).toMatchObject({ name: "Platform Test Guild" });
  } finally {
    await client.close();
  }
});

test("with mcp.default_server: chat, POST /mcp speaks chat, as the original's POST /mcp with Accept: application/json, text/event-stream", async () => {
  const chat = await startChat({ env: { PLATFORM_MCP__DEFAULT_SERVER: "chat" } });
  try {
    const initialize = await fetch(`${chat.app.base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } } }),
    });
    expect(initialize.status).toBe(200);
    const body = await initialize.text();
    expect(body).toContain('"name":"chat"');
    const session = initialize.headers.get("mcp-session-id")!;
    const headers = { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": session, "mcp-protocol-version": "2025-06-18" };
    await fetch(`${chat.app.base}/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
    const listed = await fetch(`${chat.app.base}/mcp`, { method: "POST", headers, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }) });
    expect(await listed.text()).toContain('"name":"send_message"');
  } finally {
    await chat.close();
  }
});
