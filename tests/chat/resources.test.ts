import { afterEach, expect, test } from "bun:test";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { caller, startChat, type ChatHarness } from "./harness.ts";

let chat: ChatHarness | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

const text = (result: { contents: unknown[] }) => JSON.parse((result.contents[0] as { text: string }).text);

test("chat://guilds lists the bot's guilds with member counts; templates give channels, roles and recent messages", async () => {
  chat = await startChat();
  const client = await chat.client();
  const { guild, other, ids } = chat.discord;
  expect(text(await client.readResource({ uri: "chat://guilds" }))).toEqual({
    guilds: [
      { id: guild.id, name: "Platform Test Guild", memberCount: 3 },
      { id: other.id, name: "Other Guild", memberCount: 1 },
    ],
  });
  const { resources } = await client.listResources();
  expect(resources.map((r) => r.uri)).toEqual(["chat://guilds", `chat://guilds/${guild.id}/channels`, `chat://guilds/${other.id}/channels`, `chat://guilds/${guild.id}/roles`, `chat://guilds/${other.id}/roles`]);
  expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual([
    "chat://guilds/{guildId}/channels",
    "chat://guilds/{guildId}/roles",
    "chat://channels/{channelId}/messages",
  ]);
  const channels = text(await client.readResource({ uri: `chat://guilds/${guild.id}/channels` })).channels;
  expect(channels.map((c: { name: string }) => c.name)).toContain("general");
  expect(text(await client.readResource({ uri: `chat://guilds/${guild.id}/roles` })).roles.map((r: { name: string }) => r.name)).toEqual(["Moderator", "Member", "@everyone"]);
  const messages = text(await client.readResource({ uri: `chat://channels/${ids.general}/messages` })).messages;
  expect(messages[0].content).toBe("Yes, Friday works");
  expect(messages.find((m: { attachments: unknown[] }) => m.attachments.length)).toBeDefined();

  const bad = await client.readResource({ uri: "chat://guilds/123/channels" }).catch((e) => e);
  expect(bad).toBeInstanceOf(McpError);
  expect(bad.message).toContain("Invalid value for guildId: must be a snowflake");
  const completion = await client.complete({ ref: { type: "ref/resource", uri: "chat://guilds/{guildId}/roles" }, argument: { name: "guildId", value: guild.id.slice(0, 6) } });
  expect(completion.completion.values).toContain(guild.id);
});

test("with an allowlist, resources show and read only allowed guilds", async () => {
  chat = await startChat({ env: (discord) => ({ PLATFORM_CHAT__ALLOWED_GUILDS: discord.guild.id }) });
  const client = await chat.client();
  const { guild, other } = chat.discord;
  expect(text(await client.readResource({ uri: "chat://guilds" })).guilds.map((g: { id: string }) => g.id)).toEqual([guild.id]);
  const refused = await client.readResource({ uri: `chat://guilds/${other.id}/roles` }).catch((e) => e);
  expect(refused).toBeInstanceOf(McpError);
  expect(refused.message).toContain(`Guild ${other.id} is not on this server's allowlist`);
});

test("a webhook of a guild outside the allowlist is not posted through", async () => {
  chat = await startChat({ env: (discord) => ({ PLATFORM_CHAT__ALLOWED_GUILDS: discord.other.id }) });
  const tools = caller(chat, await chat.client());
  expect(await tools.failed("send_webhook_message", { webhookId: chat.discord.ids.webhook, content: "sneaky" })).toStartWith("Error: [PermissionDeniedError] - Guild");
  expect(chat.discord.requests.some((r) => r.route === "POST /webhooks/:webhook_id/:webhook_token")).toBe(false);
});

test("the prompts are listed, fill in their arguments, complete guild ids, and refuse a missing argument", async () => {
  chat = await startChat();
  const client = await chat.client();
  const { guild, ids } = chat.discord;
  const { prompts } = await client.listPrompts();
  expect(prompts.map((p) => p.name)).toEqual(["moderate-channel", "setup-server", "create-announcement", "plan-event", "audit-permissions"]);
  expect(prompts[0]!.arguments).toEqual([
    { name: "guildId", description: "The guild's (server's) id", required: true },
    { name: "channelId", description: "The channel's id", required: true },
    { name: "moderationLevel", description: "light, standard (default) or strict", required: false },
  ]);
  const moderate = await client.getPrompt({ name: "moderate-channel", arguments: { guildId: guild.id, channelId: ids.general, moderationLevel: "strict" } });
  const body = (moderate.messages[0]!.content as { text: string }).text;
  expect(body).toContain(`Moderate channel ${ids.general} in guild ${guild.id} at the strict level.`);
  expect(body).toContain("read_messages");
  const setup = await client.getPrompt({ name: "setup-server", arguments: { guildId: guild.id, serverPurpose: "a book club" } });
  expect((setup.messages[0]!.content as { text: string }).text).toContain("for this purpose: a book club");
  for (const [name, args] of [
    ["create-announcement", { channelId: ids.announcements, topic: "v2 release" }],
    ["plan-event", { guildId: guild.id, eventName: "Hackathon" }],
    ["audit-permissions", { guildId: guild.id }],
  ] as const)
    expect((await client.getPrompt({ name, arguments: args })).messages).toHaveLength(1);
  const missing = await client.getPrompt({ name: "setup-server", arguments: { guildId: guild.id } }).catch((e) => e);
  expect(missing).toBeInstanceOf(McpError);
  expect(missing.message).toContain("serverPurpose");
  const completion = await client.complete({ ref: { type: "ref/prompt", name: "plan-event" }, argument: { name: "guildId", value: "" } });
  expect(completion.completion.values.sort()).toEqual([guild.id, chat.discord.other.id].sort());
});
