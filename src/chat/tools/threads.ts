/** Threads and forum posts: find, create and archive threads; list, read and create forum posts with their tags. */
import type { REST } from "@discordjs/rest";
import { Type } from "@sinclair/typebox";
import { ChannelType } from "discord-api-types/payloads/v10";
import { Routes } from "discord-api-types/rest/v10";
import type { ThreadAutoArchiveDuration, APIChannel, APIThreadChannel, APIThreadList, APIGuildForumChannel } from "discord-api-types/v10";
import { invalidInput } from "../errors.ts";
import { ChannelId, Content, Embeds, GuildId, MessageId, Reason, Snowflake } from "../model.ts";
import type { ChatService } from "../service.ts";
import { ChannelView, channelView, MessageView } from "../views.ts";
import { apiEmbed, checkEmbeds } from "./messages.ts";
import { chatTool } from "./tool.ts";

const ThreadName = Type.String({ minLength: 1, maxLength: 100 });
const AutoArchive = Type.Optional(
  Type.Union(
    [60, 1440, 4320, 10080].map((minutes) => Type.Literal(minutes)),
    { description: "Minutes of inactivity before the thread archives itself: 60, 1440 (a day), 4320 or 10080 (a week)" },
  ),
);
const ForumId = Snowflake("The forum channel's id");
const PostId = Snowflake("The forum post's id (a post is a thread)");

const ForumPost = Type.Object({
  id: Type.String(),
  title: Type.String(),
  forumId: Type.String(),
  tags: Type.Array(Type.String()),
  ownerId: Type.Optional(Type.String()),
  messageCount: Type.Optional(Type.Integer()),
  archived: Type.Boolean(),
  locked: Type.Boolean(),
});

const threadsOf = async (rest: REST, guildId: string) => ((await rest.get(Routes.guildActiveThreads(guildId))) as APIThreadList).threads as APIThreadChannel[];
const archivedThreadsOf = async (rest: REST, channelId: string) => ((await rest.get(Routes.channelThreads(channelId, "public"))) as APIThreadList).threads as APIThreadChannel[];

async function forumOf(rest: REST, forumId: string): Promise<APIGuildForumChannel> {
  const forum = (await rest.get(Routes.channel(forumId))) as APIChannel;
  if (forum.type !== ChannelType.GuildForum && forum.type !== ChannelType.GuildMedia)
    throw invalidInput("forumId", `channel ${forumId} is a ${channelView(forum).type} channel, not a forum`);
  return forum as APIGuildForumChannel;
}

const postView = (thread: APIThreadChannel, forum: APIGuildForumChannel) => ({
  id: thread.id,
  title: thread.name,
  forumId: forum.id,
  tags: (thread.applied_tags ?? []).map((id) => forum.available_tags.find((tag) => tag.id === id)?.name ?? id),
  ownerId: thread.owner_id,
  messageCount: thread.message_count,
  archived: thread.thread_metadata?.archived ?? false,
  locked: thread.thread_metadata?.locked ?? false,
});

async function postsOf(rest: REST, forum: APIGuildForumChannel, includeArchived: boolean) {
  const active = (await threadsOf(rest, forum.guild_id!)).filter((thread) => thread.parent_id === forum.id);
  const archived = includeArchived ? await archivedThreadsOf(rest, forum.id) : [];
  return [...active, ...archived].map((thread) => postView(thread, forum));
}

/** Tag names (or ids) to the forum's tag ids; an unknown one is refused with the forum's tags. */
function tagIds(forum: APIGuildForumChannel, names: string[]): string[] {
  return names.map((name, i) => {
    const tag = forum.available_tags.find((t) => t.id === name || t.name.toLowerCase() === name.toLowerCase());
    if (!tag) throw invalidInput(`tags.${i}`, `the forum has no tag ${name}; its tags: ${forum.available_tags.map((t) => t.name).join(", ") || "none"}`);
    return tag.id;
  });
}

export const threadTools = [
  chatTool({
    name: "find_threads",
    title: "Find threads",
    description:
      "List a guild's active threads (forum posts included), optionally under one channel and by part of their name. " +
      "With includeArchived (and a channelId), the channel's archived public threads too.",
    kind: "read",
    input: Type.Object({ guildId: GuildId, channelId: Type.Optional(ChannelId), name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })), includeArchived: Type.Optional(Type.Boolean()) }),
    output: Type.Object({ threads: Type.Array(ChannelView) }),
    scope: ({ guildId, channelId }) => ({ guildId, channelId }),
    check: ({ includeArchived, channelId }) => {
      if (includeArchived && !channelId) throw invalidInput("channelId", "archived threads are listed per channel; give the channel (or forum) id");
    },
    async run({ guildId, channelId, name, includeArchived }, rest) {
      const active = (await threadsOf(rest, guildId)).filter((thread) => !channelId || thread.parent_id === channelId);
      const archived = includeArchived && channelId ? await archivedThreadsOf(rest, channelId) : [];
      const needle = name?.toLowerCase();
      return { threads: [...active, ...archived].filter((thread) => !needle || thread.name.toLowerCase().includes(needle)).map(channelView) };
    },
  }),
  chatTool({
    name: "create_thread",
    title: "Create a thread",
    description: "Start a thread in a text or announcement channel: from a message (messageId), or on its own (public, or private with private: true).",
    kind: "write",
    input: Type.Object({ channelId: ChannelId, name: ThreadName, messageId: Type.Optional(MessageId), private: Type.Optional(Type.Boolean()), autoArchiveMinutes: AutoArchive, reason: Reason }),
    output: Type.Object({ thread: ChannelView }),
    scope: ({ channelId }) => ({ channelId }),
    check: (args) => {
      if (args.messageId && args.private) throw invalidInput("private", "a thread started from a message is always public");
    },
    async run({ channelId, name, messageId, private: isPrivate, autoArchiveMinutes, reason }, rest) {
      const auto_archive_duration = autoArchiveMinutes as ThreadAutoArchiveDuration | undefined;
      const body = messageId ? { name, auto_archive_duration } : { name, auto_archive_duration, type: isPrivate ? ChannelType.PrivateThread : ChannelType.PublicThread };
      return { thread: channelView((await rest.post(Routes.threads(channelId, messageId), { body, reason })) as APIChannel) };
    },
  }),
  chatTool({
    name: "archive_thread",
    title: "Archive a thread",
    description: "Archive a thread (or forum post), and optionally lock it so only moderators can reopen it.",
    kind: "write",
    input: Type.Object({ threadId: Snowflake("The thread's id"), locked: Type.Optional(Type.Boolean()), reason: Reason }),
    output: Type.Object({ thread: ChannelView }),
    scope: ({ threadId }) => ({ channelId: threadId }),
    run: async ({ threadId, locked, reason }, rest) => ({ thread: channelView((await rest.patch(Routes.channel(threadId), { body: { archived: true, locked }, reason })) as APIChannel) }),
  }),
  chatTool({
    name: "list_forum_posts",
    title: "List forum posts",
    description: "List a forum's posts with their tags by name; includeArchived adds the archived ones.",
    kind: "read",
    input: Type.Object({ forumId: ForumId, includeArchived: Type.Optional(Type.Boolean()) }),
    output: Type.Object({ forum: Type.Object({ id: Type.String(), name: Type.String(), tags: Type.Array(Type.String()) }), posts: Type.Array(ForumPost) }),
    scope: ({ forumId }) => ({ channelId: forumId }),
    async run({ forumId, includeArchived }, rest) {
      const forum = await forumOf(rest, forumId);
      return { forum: { id: forum.id, name: forum.name, tags: forum.available_tags.map((t) => t.name) }, posts: await postsOf(rest, forum, includeArchived ?? false) };
    },
  }),
  chatTool({
    name: "read_forum_post",
    title: "Read a forum post",
    description: "Read a forum post: its title, tags, and its messages (the first is the post itself), newest first.",
    kind: "read",
    input: Type.Object({ postId: PostId, limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }), before: Type.Optional(MessageId) }),
    output: Type.Object({ post: ForumPost, messages: Type.Array(MessageView), before: Type.Optional(Type.String()) }),
    scope: ({ postId }) => ({ channelId: postId }),
    async run({ postId, limit, before }, rest, chat: ChatService) {
      const thread = (await rest.get(Routes.channel(postId))) as APIThreadChannel;
      if (!thread.parent_id || !thread.thread_metadata) throw invalidInput("postId", `channel ${postId} is not a forum post`);
      const forum = await forumOf(rest, thread.parent_id);
      const page = await chat.messages(rest, postId, { limit, before });
      return { post: postView(thread, forum), messages: page.messages, before: page.before };
    },
  }),
  chatTool({
    name: "create_forum_post",
    title: "Create a forum post",
    description: "Open a post in a forum: a title, the first message, and up to 5 of the forum's tags (by name).",
    kind: "write",
    input: Type.Object({
      forumId: ForumId,
      title: ThreadName,
      content: Content,
      tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 20 }), { maxItems: 5, uniqueItems: true })),
      embeds: Type.Optional(Embeds),
      autoArchiveMinutes: AutoArchive,
      reason: Reason,
    }),
    output: ForumPost,
    scope: ({ forumId }) => ({ channelId: forumId }),
    check: ({ embeds }) => checkEmbeds(embeds),
    async run({ forumId, title, content, tags = [], embeds, autoArchiveMinutes, reason }, rest) {
      const forum = await forumOf(rest, forumId);
      const body = {
        name: title,
        auto_archive_duration: autoArchiveMinutes,
        applied_tags: tagIds(forum, tags),
        message: { content, embeds: embeds?.map(apiEmbed), allowed_mentions: { parse: ["users", "roles"] } },
      };
      return postView((await rest.post(Routes.threads(forumId), { body, reason })) as APIThreadChannel, forum);
    },
  }),
];
