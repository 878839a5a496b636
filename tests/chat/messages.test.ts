import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { snowflake } from "../support/discord/world.ts";
import { errorText, startChat, structured, type ChatHarness } from "./harness.ts";

let chat: ChatHarness;
let client: Client;
let ids: ChatHarness["discord"]["ids"];

beforeAll(async () => {
  chat = await startChat();
  client = await chat.client();
  ids = chat.discord.ids;
});
afterAll(() => chat.close());

const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
/** Calls a tool and checks that no request reached Discord for it. */
async function refusedLocally(name: string, args: Record<string, unknown>) {
  const before = chat.discord.requests.length;
  const text = errorText(await call(name, args));
  expect(chat.discord.requests.length).toBe(before);
  return text;
}
const errorShape = (type: string) => new RegExp(`^Error: \\[${type}\\] - [^\\n]+\\n\\nResolution: .+$`, "s");
const lastRequest = () => chat.discord.requests.at(-1)!;

test("the tools are listed with output schemas and hints; reading tools say they only read", async () => {
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const name of ["send_message", "send_rich_message", "send_message_with_file", "read_messages", "edit_message", "delete_message", "bulk_delete_messages", "add_reaction", "pin_message", "unpin_message"])
    expect(byName.get(name)?.outputSchema).toMatchObject({ type: "object" });
  expect(byName.get("read_messages")!.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: true });
  expect(byName.get("delete_message")!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
  expect(byName.get("send_message")!.inputSchema).toMatchObject({
    required: ["channelId", "content"],
    properties: { channelId: { pattern: "^\\d{17,19}$" }, content: { maxLength: 2000 } },
  });
});

test("send_message answers the message's id, channel and time; @everyone does not ping unless asked", async () => {
  const result = await call("send_message", { channelId: ids.general, content: "Release 1.2 is out @everyone" });
  expect(result.isError).toBeFalsy();
  const sent = structured<{ messageId: string; channelId: string; timestamp: string }>(result);
  expect(sent).toEqual({ messageId: expect.stringMatching(/^\d{17,19}$/), channelId: ids.general, timestamp: expect.any(String) });
  expect(lastRequest()).toMatchObject({ route: "POST /channels/:channel_id/messages", body: { content: "Release 1.2 is out @everyone", allowed_mentions: { parse: ["users", "roles"] } } });
  const stored = chat.discord.world.messages.get(ids.general)!.at(-1)!;
  expect(stored.id).toBe(sent.messageId);
  await call("send_message", { channelId: ids.general, content: "Now @everyone", mentionEveryone: true, silent: true, replyTo: sent.messageId });
  expect(lastRequest().body).toMatchObject({ allowed_mentions: { parse: ["users", "roles", "everyone"] }, flags: 4096, message_reference: { message_id: sent.messageId } });
});

test("bad input is InvalidInputError naming the field, and no request leaves", async () => {
  expect(await refusedLocally("send_message", { channelId: "12345", content: "hi" })).toMatch(/^Error: \[InvalidInputError\] - Invalid value for channelId: /);
  expect(await refusedLocally("send_message", { channelId: ids.general, content: "x".repeat(2001) })).toContain("Invalid value for content:");
  expect(await refusedLocally("send_message", { channelId: ids.general })).toContain("Invalid value for content:");
  const tooMany = Array.from({ length: 11 }, () => ({ title: "t" }));
  expect(await refusedLocally("send_message", { channelId: ids.general, content: "x", embeds: tooMany })).toContain("Invalid value for embeds:");
  expect(await refusedLocally("send_rich_message", { channelId: ids.general, embed: { title: "t".repeat(257) } })).toContain("Invalid value for embed.title:");
  expect(await refusedLocally("send_rich_message", { channelId: ids.general, embed: { color: 16777216, title: "x" } })).toContain("Invalid value for embed.color:");
  const fields = Array.from({ length: 25 }, (_, i) => ({ name: `field ${i}`, value: "v".repeat(1000) }));
  const text = await refusedLocally("send_rich_message", { channelId: ids.general, embed: { title: "Big", fields } });
  expect(text).toMatch(errorShape("InvalidInputError"));
  expect(text).toContain("Discord allows at most 6000");
  expect(await refusedLocally("send_rich_message", { channelId: ids.general, embed: { color: 5 } })).toContain("Invalid value for embed: an embed needs a title");
});

test("send_rich_message sends one embed with Discord's field names", async () => {
  const embed = {
    title: "Weekly digest",
    description: "What happened",
    color: 0x5865f2,
    url: "https://example.com/digest",
    fields: [{ name: "Merged", value: "12", inline: true }],
    footer: { text: "platform" },
    author: { name: "Bot", iconUrl: "https://example.com/bot.png" },
    image: "https://example.com/chart.png",
  };
  structured(await call("send_rich_message", { channelId: ids.general, content: "Digest:", embed }));
  expect(lastRequest().body).toMatchObject({
    content: "Digest:",
    embeds: [{ title: "Weekly digest", color: 0x5865f2, fields: [{ name: "Merged", value: "12", inline: true }], footer: { text: "platform" }, author: { name: "Bot", icon_url: "https://example.com/bot.png" }, image: { url: "https://example.com/chart.png" } }],
  });
});

test("send_message_with_file uploads multipart and answers each attachment's URL and size", async () => {
  const data = Buffer.from("name,score\nalice,3\n").toString("base64");
  const sent = structured<{ attachments: unknown[] }>(
    await call("send_message_with_file", { channelId: ids.general, content: "Scores", files: [{ name: "scores.csv", data, contentType: "text/csv", description: "the scores" }] }),
  );
  expect(sent.attachments).toEqual([{ id: expect.any(String), filename: "scores.csv", size: 19, url: expect.stringContaining("/scores.csv"), contentType: "text/csv", description: "the scores" }]);
  expect(await refusedLocally("send_message_with_file", { channelId: ids.general, files: [{ name: "a.txt", data: "not base64!" }] })).toContain("Invalid value for files.0.data:");
  expect(await refusedLocally("send_message_with_file", { channelId: ids.general, files: [{ name: "../etc/passwd", data: "aGk=" }] })).toContain("Invalid value for files.0.name:");
});

test("read_messages returns attachments, embeds, reactions, replies and threads, newest first, with cursors", async () => {
  const page = structured<{ messages: any[]; before: string; after: string }>(await call("read_messages", { channelId: ids.general, limit: 100 }));
  const checklist = page.messages.find((m) => m.content === "Here is the release checklist")!;
  expect(checklist.attachments).toEqual([{ id: expect.any(String), filename: "checklist.pdf", url: "https://cdn.example/attachments/checklist.pdf", contentType: "application/pdf", size: 48213 }]);
  expect(checklist.reactions).toEqual([{ emoji: "👍", count: 2, me: false }]);
  const starter = page.messages.find((m) => m.content === "Shall we plan the launch?")!;
  expect(starter.thread).toEqual({ id: ids.thread, name: "launch planning" });
  const reply = page.messages.find((m) => m.content === "Yes, Friday works")!;
  expect(reply.replyTo).toBe(starter.id);
  expect(reply.embeds[0]).toMatchObject({ title: "Launch plan", fields: [{ name: "Owner", value: "bob", inline: true }] });
  const ids_ = page.messages.map((m) => BigInt(m.id));
  expect([...ids_].sort((a, b) => (a > b ? -1 : 1))).toEqual(ids_);
  expect(page.before).toBe(page.messages.at(-1).id);

  const older = structured<{ messages: any[] }>(await call("read_messages", { channelId: ids.general, limit: 2, before: reply.id }));
  expect(older.messages.map((m) => m.content)).toEqual(["Shall we plan the launch?", "Here is the release checklist"]);
  const newer = structured<{ messages: any[] }>(await call("read_messages", { channelId: ids.general, limit: 1, after: ids.firstMessage }));
  expect(newer.messages.map((m) => m.content)).toEqual(["Here is the release checklist"]);
  expect(structured<{ messages: any[] }>(await call("read_messages", { channelId: ids.general, limit: 3, around: checklist.id })).messages).toHaveLength(3);

  expect(await refusedLocally("read_messages", { channelId: ids.general, before: reply.id, after: reply.id })).toContain("Invalid value for after: give only one of before, after and around");
  expect(await refusedLocally("read_messages", { channelId: ids.general, limit: 101 })).toContain("Invalid value for limit:");
});

test("search_messages finds by text, author and attachments, and says how far it read", async () => {
  const byText = structured<{ matches: any[]; scanned: number; exhausted: boolean }>(await call("search_messages", { channelId: ids.general, query: "CHECKLIST" }));
  expect(byText.matches.map((m) => m.content)).toEqual(["Here is the release checklist"]);
  expect(byText.exhausted).toBe(true);
  expect(byText.scanned).toBe(chat.discord.world.messages.get(ids.general)!.length);
  const inEmbed = structured<{ matches: any[] }>(await call("search_messages", { channelId: ids.general, query: "friday, 10:00" }));
  expect(inEmbed.matches.map((m) => m.content)).toEqual(["Yes, Friday works"]);
  const byAuthor = structured<{ matches: any[] }>(await call("search_messages", { channelId: ids.general, authorId: ids.alice, limit: 1 }));
  expect(byAuthor.matches).toHaveLength(1);
  expect(byAuthor.matches[0].author.id).toBe(ids.alice);
  const files = structured<{ matches: any[] }>(await call("search_messages", { channelId: ids.general, hasAttachment: true, scanLimit: 2 }));
  expect(files).toMatchObject({ scanned: 2, exhausted: false, before: expect.any(String) });
  expect(await refusedLocally("search_messages", { channelId: ids.general })).toContain("give at least one of query");
});

test("edit_message changes the bot's own message; another's is PermissionDeniedError", async () => {
  const { messageId } = structured<{ messageId: string }>(await call("send_message", { channelId: ids.general, content: "draft" }));
  const edited = structured<{ editedTimestamp: string }>(await call("edit_message", { channelId: ids.general, messageId, content: "final" }));
  expect(edited.editedTimestamp).toEqual(expect.any(String));
  expect(chat.discord.world.messages.get(ids.general)!.find((m) => m.id === messageId)!.content).toBe("final");
  expect(errorText(await call("edit_message", { channelId: ids.general, messageId: ids.firstMessage, content: "hijack" }))).toMatch(errorShape("PermissionDeniedError"));
  expect(await refusedLocally("edit_message", { channelId: ids.general, messageId })).toContain("give content, embeds or both");
});

test("delete_message needs confirm: true; a missing message is MessageNotFoundError", async () => {
  const { messageId } = structured<{ messageId: string }>(await call("send_message", { channelId: ids.general, content: "oops" }));
  const refused = await refusedLocally("delete_message", { channelId: ids.general, messageId });
  expect(refused).toMatch(errorShape("InvalidInputError"));
  expect(refused).toContain("confirm: true");
  expect(structured(await call("delete_message", { channelId: ids.general, messageId, confirm: true, reason: "posted by mistake" }))).toEqual({ deleted: true, messageId });
  expect(lastRequest()).toMatchObject({ method: "DELETE", reason: "posted by mistake" });
  const again = errorText(await call("delete_message", { channelId: ids.general, messageId, confirm: true }));
  expect(again).toMatch(errorShape("MessageNotFoundError"));
  expect(again).toContain(messageId);
});

test("bulk_delete_messages checks count and age before sending, then deletes", async () => {
  const sent = await Promise.all(["a", "b", "c"].map(async (content) => structured<{ messageId: string }>(await call("send_message", { channelId: ids.general, content })).messageId));
  expect(await refusedLocally("bulk_delete_messages", { channelId: ids.general, messageIds: [sent[0]], confirm: true })).toContain("Invalid value for messageIds:");
  const old = snowflake(Date.now() - 15 * 86_400_000);
  const tooOld = await refusedLocally("bulk_delete_messages", { channelId: ids.general, messageIds: [sent[0], old], confirm: true });
  expect(tooOld).toContain("Invalid value for messageIds.1: is older than 14 days");
  expect(structured(await call("bulk_delete_messages", { channelId: ids.general, messageIds: sent, confirm: true, reason: "cleanup" }))).toEqual({ deleted: 3, channelId: ids.general });
  expect(chat.discord.world.messages.get(ids.general)!.some((m) => sent.includes(m.id))).toBe(false);
});

test("reactions are added and removed; an unknown custom emoji is refused by Discord and explained", async () => {
  expect(structured(await call("add_reaction", { channelId: ids.general, messageId: ids.firstMessage, emoji: "🎉" }))).toEqual({ added: true, emoji: "🎉" });
  expect(lastRequest().path).toBe(`/channels/${ids.general}/messages/${ids.firstMessage}/reactions/${encodeURIComponent("🎉")}/@me`);
  const first = () => chat.discord.world.messages.get(ids.general)!.find((m) => m.id === ids.firstMessage)!;
  expect(first().reactions).toEqual([expect.objectContaining({ emoji: { id: null, name: "🎉" }, count: 1, me: true })]);
  await call("add_reaction", { channelId: ids.general, messageId: ids.firstMessage, emoji: `platform:${ids.emoji}` });
  expect(structured(await call("remove_reaction", { channelId: ids.general, messageId: ids.firstMessage, emoji: "🎉" }))).toEqual({ removed: true, emoji: "🎉" });
  expect(first().reactions.map((r: { emoji: { name: string } }) => r.emoji.name)).toEqual(["platform"]);
  const unknown = errorText(await call("add_reaction", { channelId: ids.general, messageId: ids.firstMessage, emoji: "nope:123456789012345678" }));
  expect(unknown).toMatch(errorShape("InvalidInputError"));
  expect(unknown).toContain("list_guild_emojis");
});

test("pin_message and unpin_message", async () => {
  expect(structured(await call("pin_message", { channelId: ids.general, messageId: ids.firstMessage, reason: "welcome" }))).toEqual({ pinned: true, messageId: ids.firstMessage });
  expect(lastRequest()).toMatchObject({ method: "PUT", path: `/channels/${ids.general}/messages/pins/${ids.firstMessage}`, reason: "welcome" });
  expect(structured(await call("unpin_message", { channelId: ids.general, messageId: ids.firstMessage }))).toEqual({ pinned: false, messageId: ids.firstMessage });
});

test("Discord's errors map to their types: unknown channel, missing access, missing permissions, invalid form body", async () => {
  const missing = snowflake();
  const notFound = errorText(await call("read_messages", { channelId: missing }));
  expect(notFound).toMatch(errorShape("ChannelNotFoundError"));
  expect(notFound).toContain(`Channel ${missing} was not found`);
  expect(notFound).toContain("Resolution: List the guild's channels with list_channels");
  const access = errorText(await call("read_messages", { channelId: ids.locked }));
  expect(access).toMatch(errorShape("PermissionDeniedError"));
  expect(access).toContain("Missing Access");
  const permissions = errorText(await call("send_message", { channelId: ids.locked, content: "hi" }));
  expect(permissions).toContain("Error: [PermissionDeniedError] - Missing Permissions");
  const form = errorText(await call("send_message", { channelId: ids.general, content: "re", replyTo: snowflake() }));
  expect(form).toBe("Error: [InvalidInputError] - Discord refused the request: message_reference: Unknown message\n\nResolution: Correct the named field and call again.");
  const voice = errorText(await call("send_message", { channelId: ids.voice, content: "hello?" }));
  expect(voice).toContain("Cannot send messages in a non-text channel");
});
