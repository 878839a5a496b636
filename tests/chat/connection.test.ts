import { afterEach, expect, test } from "bun:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { chatTools } from "../../src/chat/tools/all.ts";
import { everyTool } from "./args.ts";
import { errorText, startChat, structured, type ChatHarness } from "./harness.ts";

let chat: ChatHarness | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

test("without a token every tool answers ChatNotConnectedError saying how to set one, and nothing is sent", async () => {
  chat = await startChat({ token: null });
  const client = await chat.client();
  for (const { spec, args } of everyTool()) {
    const text = errorText(await client.callTool({ name: spec.name, arguments: args }));
    expect({ tool: spec.name, text }).toEqual({ tool: spec.name, text: expect.stringMatching(/^Error: \[ChatNotConnectedError\] - No bot token is configured .*\n\nResolution: Set CHAT_TOKEN to the bot's token/s) });
  }
  expect(chat.discord.requests).toEqual([]);
});

test("with a refused token the state is invalid_token and every tool says so, without another request", async () => {
  chat = await startChat({ token: "MTIz.refused.token" });
  await chat.untilState("invalid_token");
  const sent = chat.discord.requests.length;
  const client = await chat.client();
  for (const { spec, args } of everyTool()) {
    const text = errorText(await client.callTool({ name: spec.name, arguments: args }));
    expect({ tool: spec.name, text }).toEqual({ tool: spec.name, text: expect.stringMatching(/^Error: \[ChatNotConnectedError\] - The bot token was refused by Discord \(invalid_token\)\n\nResolution: Create a new token/) });
  }
  expect(chat.discord.requests.length).toBe(sent);
});

test("a token revoked while running (401 on a call) moves the session to invalid_token", async () => {
  chat = await startChat();
  await chat.untilState("ready");
  const client = await chat.client();
  chat.discord.revokeToken();
  const text = errorText(await client.callTool({ name: "read_messages", arguments: { channelId: chat.discord.ids.general } }));
  expect(text).toStartWith("Error: [ChatNotConnectedError] - The bot token was refused by Discord (invalid_token)");
  await chat.untilState("invalid_token");
  expect(((await (await fetch(`${chat.app.base}/health`)).json()) as { chat: string }).chat).toBe("invalid_token");
});

test("chat.allowed_guilds: every tool aimed at another guild is PermissionDeniedError; the allowed guild works", async () => {
  chat = await startChat({ env: (discord) => ({ PLATFORM_CHAT__ALLOWED_GUILDS: discord.guild.id }) });
  await chat.untilState("ready");
  const { other, ids } = chat.discord;
  const client = await chat.client();
  const elsewhere = ids.otherChannel;
  const aimed = everyTool({ guildId: other.id, channelId: elsewhere, threadId: elsewhere, forumId: elsewhere, postId: elsewhere }).filter(({ spec, args }) => {
    const scope = spec.scope(args as never);
    return scope.guildId !== undefined || scope.channelId !== undefined;
  });
  expect(aimed.length).toBeGreaterThan(20);
  for (const { spec, args } of aimed) {
    const text = errorText(await client.callTool({ name: spec.name, arguments: args }));
    expect({ tool: spec.name, text }).toEqual({ tool: spec.name, text: expect.stringMatching(/^Error: \[PermissionDeniedError\] - Guild \d+ is not on this server's allowlist\n\nResolution: Use a guild listed in chat.allowed_guilds/) });
  }
  // Nothing reached the other guild; its channel's guild was known from the gateway, so no lookup was needed either.
  expect(chat.discord.requests.filter((r) => r.path.includes(other.id) || r.path.includes(ids.otherChannel))).toEqual([]);
  structured(await client.callTool({ name: "send_message", arguments: { channelId: ids.general, content: "allowed" } }));
});

test("chat.read_only lists only the reading tools; a writing one is an unknown tool", async () => {
  chat = await startChat({ env: { PLATFORM_CHAT__READ_ONLY: "true" } });
  const client = await chat.client();
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(chatTools.filter((t) => t.kind === "read").map((t) => t.name).sort());
  expect(tools.every((t) => t.annotations?.readOnlyHint === true)).toBe(true);
  const refused = await client.callTool({ name: "send_message", arguments: { channelId: chat.discord.ids.general, content: "hi" } }).catch((e) => e);
  expect(refused).toBeInstanceOf(McpError);
  expect(chat.discord.requests.some((r) => r.method === "POST")).toBe(false);
});

test("chat.confirm_destructive: false lets destructive tools run without confirm", async () => {
  chat = await startChat({ env: { PLATFORM_CHAT__CONFIRM_DESTRUCTIVE: "false" } });
  const client = await chat.client();
  const { messageId } = structured<{ messageId: string }>(await client.callTool({ name: "send_message", arguments: { channelId: chat.discord.ids.general, content: "bye" } }));
  expect(structured(await client.callTool({ name: "delete_message", arguments: { channelId: chat.discord.ids.general, messageId } }))).toEqual({ deleted: true, messageId });
});

test("the token never reaches a log line (at debug level), a tool result or /health", async () => {
  const token = "MTIz.secret-shaped.token-never-to-be-seen-9f8e7d";
  chat = await startChat({ token, discord: { token } });
  await chat.untilState("ready");
  const client = await chat.client();
  const { ids } = chat.discord;
  const results = [
    await client.callTool({ name: "send_message", arguments: { channelId: ids.general, content: "hello" } }),
    await client.callTool({ name: "read_messages", arguments: { channelId: ids.locked } }),
    await client.callTool({ name: "read_messages", arguments: { channelId: "1".repeat(18) } }),
    await client.callTool({ name: "send_message", arguments: { channelId: "bad", content: "x" } }),
  ];
  chat.discord.gateway.drop();
  await chat.untilState("reconnecting");
  await chat.untilState("ready");
  chat.discord.revokeToken();
  results.push(await client.callTool({ name: "read_messages", arguments: { channelId: ids.general } }));
  await chat.untilState("invalid_token");
  const health = await (await fetch(`${chat.app.base}/health`)).text();
  expect(chat.lines.length).toBeGreaterThan(10);
  // One JSON line per call, with the fields the log format promises.
  const calls = chat.lines.map((line) => JSON.parse(line)).filter((line) => line.message === "chat tool call");
  expect(calls[0]).toEqual({ level: "info", message: "chat tool call", timestamp: expect.any(String), component: "chat", tool: "send_message", channelId: ids.general, duration: expect.any(Number), success: true });
  expect(calls[1]).toMatchObject({ level: "info", tool: "read_messages", channelId: ids.locked, success: false, errorType: "PermissionDeniedError", error: { message: expect.stringContaining("Missing Access") } });
  for (const text of [...chat.lines, JSON.stringify(results), health]) expect(text).not.toContain(token);
});
