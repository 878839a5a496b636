/** Threads and forum posts (Resources > Channel: Start Thread from Message, Start Thread without Message, Start Thread in Forum or Media Channel, List Active Guild Threads, List Public Archived Threads). */
import { ApiError, checkLength, fail, invalidForm, type Route } from "../api.ts";
import { snowflake, timestampOf, type Json, type World } from "../world.ts";
import { audit, channelOf, guildOf, messageOf, messagesOf } from "./lookup.ts";

const threadTypes = new Set([10, 11, 12]);
const durations = new Set([60, 1440, 4320, 10080]);

function newThread(world: World, parent: Json, id: string, body: Json, type: number): Json {
  checkLength(body, "name", 1, 100, true);
  if (body.auto_archive_duration !== undefined && !durations.has(body.auto_archive_duration))
    fail(invalidForm("auto_archive_duration", "BASE_TYPE_CHOICES", "Value must be one of {60, 1440, 4320, 10080}."));
  const now = new Date().toISOString();
  const thread: Json = {
    id,
    type,
    guild_id: parent.guild_id,
    parent_id: parent.id,
    name: body.name,
    owner_id: world.bot.id,
    message_count: 0,
    member_count: 1,
    rate_limit_per_user: 0,
    applied_tags: [],
    thread_metadata: { archived: false, auto_archive_duration: body.auto_archive_duration ?? 4320, archive_timestamp: now, locked: false, create_timestamp: now },
  };
  world.channels.set(id, thread);
  audit(world, parent.guild_id, 110, id);
  return thread;
}

export const threadRoutes: Route[] = [
  {
    method: "GET",
    path: "/guilds/:guild_id/threads/active",
    handler: ({ world, params }) => {
      const guild = guildOf(world, params.guild_id!);
      const threads = [...world.channels.values()].filter((c) => c.guild_id === guild.id && threadTypes.has(c.type) && !c.thread_metadata.archived);
      return { threads, members: [] };
    },
  },
  {
    method: "GET",
    path: "/channels/:channel_id/threads/archived/public",
    handler: ({ world, params }) => {
      const parent = channelOf(world, params.channel_id!);
      const threads = [...world.channels.values()].filter((c) => c.parent_id === parent.id && c.type !== 12 && c.thread_metadata?.archived);
      return { threads, members: [], has_more: false };
    },
  },
  {
    method: "POST",
    path: "/channels/:channel_id/messages/:message_id/threads",
    handler: ({ world, params, body }) => {
      const parent = channelOf(world, params.channel_id!, true);
      const message = messageOf(world, parent.id, params.message_id!);
      if (message.thread) fail(new ApiError(400, 160004, "A thread has already been created for this message"));
      const thread = newThread(world, parent, message.id, body, parent.type === 5 ? 10 : 11);
      message.thread = { id: thread.id, name: thread.name, type: thread.type };
      return thread;
    },
  },
  {
    method: "POST",
    path: "/channels/:channel_id/threads",
    handler: ({ world, params, body }) => {
      const parent = channelOf(world, params.channel_id!, true);
      if (parent.type === 15 || parent.type === 16) {
        // A forum post: a thread whose first message comes with it, carrying some of the forum's tags.
        const tags: string[] = body.applied_tags ?? [];
        if (tags.length > 5) fail(invalidForm("applied_tags", "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length."));
        for (const tag of tags) if (!parent.available_tags.some((t: Json) => t.id === tag)) fail(invalidForm("applied_tags", "FORUM_TAG_UNKNOWN", "Unknown tag"));
        checkLength(body.message ?? {}, "content", 1, 2000, true);
        const id = snowflake();
        const thread = newThread(world, parent, id, body, 11);
        thread.applied_tags = tags;
        thread.message_count = 1;
        const message = { id, channel_id: id, author: world.bot, content: body.message.content, timestamp: new Date(timestampOf(id)).toISOString(), edited_timestamp: null, attachments: [], embeds: body.message.embeds ?? [], mentions: [], mention_roles: [], mention_everyone: false, tts: false, pinned: false, type: 0, flags: 0 };
        messagesOf(world, id).push(message);
        return { ...thread, message };
      }
      if (parent.type !== 0 && parent.type !== 5) fail(new ApiError(400, 50024, "Cannot execute action on this channel type"));
      return newThread(world, parent, snowflake(), body, body.type ?? 12);
    },
  },
];
