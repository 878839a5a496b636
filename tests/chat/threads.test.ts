import { afterAll, beforeAll, expect, test } from "bun:test";
import { snowflake } from "../support/discord/world.ts";
import { type ChatHarness, type ChatTools, chatWithTools } from "./harness.ts";

let chat: ChatHarness, tools: ChatTools["tools"], ids: ChatTools["ids"], guildId: string;
beforeAll(async () => void ({ chat, tools, ids, guildId } = await chatWithTools()));
afterAll(() => chat.close());

test("find_threads lists active threads, by parent and by name; archived ones need the channel", async () => {
  const all = await tools.ok<{ threads: { id: string; name: string }[] }>("find_threads", { guildId });
  expect(all.threads.map((t) => t.name).sort()).toEqual(["How do I configure the allowlist?", "launch planning"]);
  const inGeneral = await tools.ok<{ threads: { id: string }[] }>("find_threads", { guildId, channelId: ids.general, name: "LAUNCH" });
  expect(inGeneral.threads.map((t) => t.id)).toEqual([ids.thread]);
  expect(await tools.refused("find_threads", { guildId, includeArchived: true })).toContain("Invalid value for channelId: archived threads are listed per channel");
});

test("create_thread from a message and on its own; archive_thread archives and locks", async () => {
  const { messageId } = await tools.ok<{ messageId: string }>("send_message", { channelId: ids.general, content: "Discuss here" });
  const fromMessage = await tools.ok<{ thread: any }>("create_thread", { channelId: ids.general, messageId, name: "discussion", autoArchiveMinutes: 1440 });
  expect(fromMessage.thread).toMatchObject({ id: messageId, type: "public_thread", parentId: ids.general, name: "discussion" });
  expect(tools.lastRequest()).toMatchObject({ route: "POST /channels/:channel_id/messages/:message_id/threads", body: { name: "discussion", auto_archive_duration: 1440 } });
  const standalone = await tools.ok<{ thread: any }>("create_thread", { channelId: ids.general, name: "staff notes", private: true });
  expect(standalone.thread.type).toBe("private_thread");
  expect(await tools.refused("create_thread", { channelId: ids.general, name: "x", autoArchiveMinutes: 30 })).toContain("Invalid value for autoArchiveMinutes: must be one of 60, 1440, 4320, 10080");
  expect(await tools.refused("create_thread", { channelId: ids.general, messageId, name: "x", private: true })).toContain("a thread started from a message is always public");
  expect(await tools.failed("create_thread", { channelId: ids.general, messageId, name: "again" })).toContain("A thread has already been created for this message");

  const archived = await tools.ok<{ thread: any }>("archive_thread", { threadId: messageId, locked: true, reason: "done" });
  expect(archived.thread).toMatchObject({ archived: true, locked: true });
  expect(tools.lastRequest()).toMatchObject({ body: { archived: true, locked: true }, reason: "done" });
  const active = await tools.ok<{ threads: any[] }>("find_threads", { guildId, channelId: ids.general });
  expect(active.threads.map((t) => t.id)).not.toContain(messageId);
  const found = await tools.ok<{ threads: any[] }>("find_threads", { guildId, channelId: ids.general, includeArchived: true });
  expect(found.threads.map((t) => t.id)).toContain(messageId);
  expect(await tools.failed("archive_thread", { threadId: ids.general })).toStartWith("Error: [InvalidInputError] - Discord refused the request: archived: Only threads can be archived");
});

test("forum posts are listed and read with their tags by name, and created with tags by name", async () => {
  const listed = await tools.ok<{ forum: any; posts: any[] }>("list_forum_posts", { forumId: ids.forum });
  expect(listed.forum).toEqual({ id: ids.forum, name: "help", tags: ["question", "solved"] });
  expect(listed.posts).toEqual([{ id: ids.forumPost, title: "How do I configure the allowlist?", forumId: ids.forum, tags: ["question"], ownerId: ids.bob, messageCount: 1, archived: false, locked: false }]);

  const read = await tools.ok<{ post: any; messages: any[] }>("read_forum_post", { postId: ids.forumPost });
  expect(read.post.tags).toEqual(["question"]);
  expect(read.messages.map((m) => m.content)).toEqual(["I set allowed_guilds but nothing changes."]);

  const created = await tools.ok<any>("create_forum_post", { forumId: ids.forum, title: "Rate limits?", content: "How does max_wait_ms work?", tags: ["Question"] });
  expect(created).toMatchObject({ title: "Rate limits?", forumId: ids.forum, tags: ["question"], archived: false });
  expect(tools.lastRequest().body).toMatchObject({ name: "Rate limits?", applied_tags: [ids.forumTag], message: { content: "How does max_wait_ms work?" } });
  const again = await tools.ok<{ posts: any[] }>("list_forum_posts", { forumId: ids.forum });
  expect(again.posts.map((p) => p.title)).toContain("Rate limits?");

  expect(await tools.failed("create_forum_post", { forumId: ids.forum, title: "x", content: "y", tags: ["nope"] })).toBe(
    "Error: [InvalidInputError] - Invalid value for tags.0: the forum has no tag nope; its tags: question, solved\n\nResolution: Correct tags.0 and call again; the tool's input schema gives each field's limits.",
  );
  expect(await tools.refused("create_forum_post", { forumId: ids.forum, title: "x", content: "y", tags: ["a", "b", "c", "d", "e", "f"] })).toContain("Invalid value for tags:");
  expect(await tools.failed("list_forum_posts", { forumId: ids.general })).toContain(`channel ${ids.general} is a text channel, not a forum`);
  expect(await tools.failed("read_forum_post", { postId: ids.general })).toContain("is not a forum post");
  expect(await tools.failed("read_forum_post", { postId: snowflake() })).toStartWith("Error: [ChannelNotFoundError]");
});
