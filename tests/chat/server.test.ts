import { afterAll, beforeAll, expect, test } from "bun:test";
import { snowflake } from "../support/discord/world.ts";
import { type ChatHarness, type ChatTools, chatWithTools } from "./harness.ts";

let chat: ChatHarness, tools: ChatTools["tools"], ids: ChatTools["ids"], guildId: string;
beforeAll(async () => void ({ chat, tools, ids, guildId } = await chatWithTools()));
afterAll(() => chat.close());

test("get_server_info reads the guild with its counts", async () => {
  const info = await tools.ok("get_server_info", { guildId });
  expect(info).toMatchObject({ id: guildId, name: "Platform Test Guild", ownerId: ids.alice, memberCount: 3, verificationLevel: "low", features: ["COMMUNITY"], roleCount: 3, emojiCount: 1 });
  expect(tools.lastRequest().path).toBe(`/guilds/${guildId}`);
  expect(await tools.failed("get_server_info", { guildId: snowflake() })).toStartWith("Error: [GuildNotFoundError]");
});

test("modify_server changes what is given, by name, with the reason in the audit log", async () => {
  const info = await tools.ok("modify_server", { guildId, description: "Now with chat tools", verificationLevel: "medium", afkTimeoutSeconds: 900, reason: "refresh" });
  expect(info).toMatchObject({ description: "Now with chat tools", verificationLevel: "medium", afkTimeoutSeconds: 900 });
  expect(tools.lastRequest()).toMatchObject({ body: { description: "Now with chat tools", verification_level: 2, afk_timeout: 900 }, reason: "refresh" });
  expect(await tools.refused("modify_server", { guildId })).toContain("give at least one change");
  expect(await tools.refused("modify_server", { guildId, verificationLevel: "extreme" })).toContain("must be one of none, low, medium, high, very_high");
  expect(await tools.refused("modify_server", { guildId, afkTimeoutSeconds: 61 })).toContain("Invalid value for afkTimeoutSeconds: must be one of 60, 300, 900, 1800, 3600");
  expect(await tools.failed("modify_server", { guildId, systemChannelId: ids.otherChannel })).toContain("system_channel_id: Unknown channel");
});

test("get_audit_logs shows the bot's changes with their reasons, filtered by action type", async () => {
  await tools.ok("create_role", { guildId, name: "Audited", reason: "for the audit log test" });
  const { entries } = await tools.ok<{ entries: any[] }>("get_audit_logs", { guildId, actionType: 30, limit: 5 });
  expect(entries[0]).toMatchObject({ action: "role create", actionType: 30, userId: chat.discord.world.bot.id, reason: "for the audit log test" });
  expect(entries.every((e) => e.actionType === 30)).toBe(true);
  expect(tools.lastRequest().path).toBe(`/guilds/${guildId}/audit-logs`);
  expect(await tools.refused("get_audit_logs", { guildId, limit: 101 })).toContain("Invalid value for limit:");
});

test("webhooks are listed and created without their tokens, and posted through by the bot", async () => {
  const listed = await tools.ok<{ webhooks: any[] }>("list_webhooks", { guildId });
  expect(listed.webhooks).toEqual([{ id: ids.webhook, name: "Deploys", channelId: ids.general, type: 1, createdBy: "alice" }]);
  expect((await tools.ok<{ webhooks: any[] }>("list_webhooks", { channelId: ids.announcements })).webhooks).toEqual([]);
  expect(await tools.refused("list_webhooks", {})).toContain("give a guildId or a channelId");

  const created = await tools.ok<{ webhook: any }>("create_webhook", { channelId: ids.announcements, name: "Releases" });
  expect(created.webhook).toMatchObject({ name: "Releases", channelId: ids.announcements });
  expect(JSON.stringify(created)).not.toContain(chat.discord.world.webhooks.get(created.webhook.id)!.token);
  expect(await tools.refused("create_webhook", { channelId: ids.general, name: "Discord bot" })).toContain("'clyde' or 'discord'");

  const sent = await tools.ok<{ messageId: string; channelId: string }>("send_webhook_message", { webhookId: created.webhook.id, content: "v2.0 is out", username: "Release bot" });
  expect(sent.channelId).toBe(ids.announcements);
  const posted = chat.discord.world.messages.get(ids.announcements)!.at(-1)!;
  expect(posted).toMatchObject({ id: sent.messageId, content: "v2.0 is out", author: { username: "Release bot" } });
  const execution = tools.lastRequest();
  expect(execution).toMatchObject({ method: "POST", authorized: false, route: "POST /webhooks/:webhook_id/:webhook_token", body: { content: "v2.0 is out", username: "Release bot" } });
  expect(await tools.refused("send_webhook_message", { webhookId: created.webhook.id })).toContain("give content, embeds or both");
  expect(await tools.failed("send_webhook_message", { webhookId: snowflake(), content: "x" })).toContain("Find the webhook's id with list_webhooks");
});

test("invites are created with their limits and listed", async () => {
  const { invite } = await tools.ok<{ invite: any }>("create_invite", { channelId: ids.general, maxAgeSeconds: 3600, maxUses: 10, reason: "newsletter" });
  expect(invite).toMatchObject({ url: `https://discord.gg/${invite.code}`, channelId: ids.general, maxUses: 10, maxAgeSeconds: 3600, uses: 0 });
  expect(tools.lastRequest()).toMatchObject({ body: { max_age: 3600, max_uses: 10 }, reason: "newsletter" });
  const { invites } = await tools.ok<{ invites: any[] }>("get_invites", { guildId });
  expect(invites.map((i) => i.code)).toContain(invite.code);
  expect(await tools.refused("create_invite", { channelId: ids.general, maxAgeSeconds: 604_801 })).toContain("Invalid value for maxAgeSeconds:");
  expect(await tools.failed("create_invite", { channelId: ids.locked })).toStartWith("Error: [PermissionDeniedError] - Missing Permissions");
});
