import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { PermissionFlagsBits } from "discord-api-types/v10";
import { snowflake } from "../support/discord/world.ts";
import { errorText, startChat, structured, type ChatHarness } from "./harness.ts";

let chat: ChatHarness;
let client: Client;
let ids: ChatHarness["discord"]["ids"];
let guildId: string;

beforeAll(async () => {
  chat = await startChat();
  client = await chat.client();
  ids = chat.discord.ids;
  guildId = chat.discord.guild.id;
});
afterAll(() => chat.close());

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
async function refusedLocally(name: string, args: Record<string, unknown>) {
  const before = chat.discord.requests.length;
  const text = errorText(await call(name, args));
  expect(chat.discord.requests.length).toBe(before);
  return text;
}
const lastRequest = () => chat.discord.requests.at(-1)!;

test("list_channels lists a guild's channels in order, by type on request; an unknown guild is GuildNotFoundError", async () => {
  const { channels } = structured<{ channels: { name: string; type: string; position: number }[] }>(await call("list_channels", { guildId }));
  expect(channels.map((c) => c.name)).toEqual(expect.arrayContaining(["general", "announcements", "Lounge", "help", "Community"]));
  expect(channels.every((c, i) => i === 0 || channels[i - 1]!.position <= c.position)).toBe(true);
  const voice = structured<{ channels: { name: string }[] }>(await call("list_channels", { guildId, type: "voice" }));
  expect(voice.channels.map((c) => c.name)).toEqual(["Lounge"]);
  expect(await refusedLocally("list_channels", { guildId, type: "hologram" })).toMatch(/Invalid value for type: must be one of text, dm, voice, .*forum/);
  const missing = snowflake();
  expect(errorText(await call("list_channels", { guildId: missing }))).toBe(
    `Error: [GuildNotFoundError] - Guild ${missing} was not found, or the bot is not in it\n\nResolution: Read the chat://guilds resource (or get_server_info) for the guilds the bot is in.`,
  );
});

test("get_channel_details shows a forum's tags and overwrites by permission name", async () => {
  const { channel } = structured<{ channel: Record<string, any> }>(await call("get_channel_details", { channelId: ids.forum }));
  expect(channel).toMatchObject({ id: ids.forum, type: "forum", name: "help", tags: [{ name: "question", moderated: false, emoji: "❓" }, { name: "solved", moderated: true }] });
  const thread = structured<{ channel: Record<string, any> }>(await call("get_channel_details", { channelId: ids.thread })).channel;
  expect(thread).toMatchObject({ type: "public_thread", parentId: ids.general, archived: false, locked: false });
});

test("each kind of channel is created with its own fields, and the reason goes to the audit log header", async () => {
  const text = structured<{ channel: Record<string, any> }>(
    await call("create_text_channel", { guildId, name: "release-notes", topic: "What shipped", parentId: ids.category, slowmodeSeconds: 30, reason: "releases need a home" }),
  ).channel;
  expect(text).toMatchObject({ type: "text", name: "release-notes", topic: "What shipped", parentId: ids.category, slowmodeSeconds: 30 });
  expect(lastRequest()).toMatchObject({ body: { type: 0, rate_limit_per_user: 30, parent_id: ids.category }, reason: "releases need a home" });
  expect(structured<{ channel: any }>(await call("create_voice_channel", { guildId, name: "Standup", bitrate: 96000, userLimit: 10 })).channel).toMatchObject({ type: "voice", bitrate: 96000, userLimit: 10 });
  expect(structured<{ channel: any }>(await call("create_category", { guildId, name: "Projects" })).channel).toMatchObject({ type: "category" });
  const forum = structured<{ channel: any }>(await call("create_forum_channel", { guildId, name: "ideas", tags: [{ name: "feature", emoji: "✨" }, { name: "bug", moderated: true }] })).channel;
  expect(forum).toMatchObject({ type: "forum", tags: [{ name: "feature", emoji: "✨", moderated: false }, { name: "bug", moderated: true }] });
  expect(structured<{ channel: any }>(await call("create_stage_channel", { guildId, name: "Town hall" })).channel).toMatchObject({ type: "stage" });
  expect(errorText(await call("create_stage_channel", { guildId: chat.discord.other.id, name: "Town hall" }))).toContain("type: This guild is not a Community guild");
});

test("channel limits are checked before sending; Discord's own refusals name the field", async () => {
  expect(await refusedLocally("create_text_channel", { guildId, name: "x".repeat(101) })).toContain("Invalid value for name:");
  expect(await refusedLocally("create_text_channel", { guildId, name: "" })).toContain("Invalid value for name:");
  expect(await refusedLocally("create_text_channel", { guildId, name: "ok", topic: "t".repeat(1025) })).toContain("Invalid value for topic:");
  expect(await refusedLocally("create_voice_channel", { guildId, name: "ok", userLimit: 100 })).toContain("Invalid value for userLimit:");
  expect(await refusedLocally("create_forum_channel", { guildId, name: "ok", tags: Array.from({ length: 21 }, (_, i) => ({ name: `t${i}` })) })).toContain("Invalid value for tags:");
  expect(errorText(await call("create_text_channel", { guildId, name: "nested", parentId: ids.general }))).toBe(
    "Error: [InvalidInputError] - Discord refused the request: parent_id: Not a category\n\nResolution: Correct the named field and call again.",
  );
});

test("modify_channel changes what is given, takes a channel out of its category with null, and refuses an empty change", async () => {
  const { channel } = structured<{ channel: { id: string } }>(await call("create_text_channel", { guildId, name: "to-change", parentId: ids.category }));
  const changed = structured<{ channel: any }>(await call("modify_channel", { channelId: channel.id, name: "changed", topic: "new topic", parentId: null, nsfw: true }));
  expect(changed.channel).toMatchObject({ name: "changed", topic: "new topic", parentId: null, nsfw: true });
  expect(await refusedLocally("modify_channel", { channelId: channel.id })).toContain("give at least one change");
});

test("delete_channel needs confirm; then the channel is gone", async () => {
  const { channel } = structured<{ channel: { id: string } }>(await call("create_text_channel", { guildId, name: "temporary" }));
  expect(await refusedLocally("delete_channel", { channelId: channel.id })).toContain("needs confirm: true");
  expect(structured(await call("delete_channel", { channelId: channel.id, confirm: true }))).toEqual({ deleted: true, channelId: channel.id, name: "temporary" });
  expect(chat.discord.world.channels.has(channel.id)).toBe(false);
  expect(errorText(await call("delete_channel", { channelId: channel.id, confirm: true }))).toStartWith("Error: [ChannelNotFoundError]");
});

test("set_channel_permissions maps permission names to Discord's bits; an unknown name lists the valid ones", async () => {
  const result = structured(
    await call("set_channel_permissions", { channelId: ids.announcements, targetId: ids.memberRole, targetType: "role", allow: ["ViewChannel", "ReadMessageHistory"], deny: ["SendMessages"] }),
  );
  expect(result).toEqual({ channelId: ids.announcements, targetId: ids.memberRole, allow: ["ViewChannel", "ReadMessageHistory"], deny: ["SendMessages"] });
  const expected = (PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ReadMessageHistory).toString();
  expect(lastRequest().body).toEqual({ type: 0, allow: expected, deny: PermissionFlagsBits.SendMessages.toString() });
  const { channel } = structured<{ channel: any }>(await call("get_channel_details", { channelId: ids.announcements }));
  expect(channel.permissionOverwrites).toEqual([{ id: ids.memberRole, type: "role", allow: ["ViewChannel", "ReadMessageHistory"], deny: ["SendMessages"] }]);

  const unknown = await refusedLocally("set_channel_permissions", { channelId: ids.announcements, targetId: ids.bob, targetType: "member", allow: ["ViewChannel", "ReadMessages"] });
  expect(unknown).toMatch(/^Error: \[InvalidInputError\] - Invalid value for allow\.1: must be one of CreateInstantInvite, KickMembers, .*ViewChannel.*ManageRoles/);
  expect(await refusedLocally("set_channel_permissions", { channelId: ids.announcements, targetId: ids.bob, targetType: "member", allow: ["SendMessages"], deny: ["SendMessages"] })).toContain(
    "allow.0: SendMessages is both allowed and denied",
  );
});
