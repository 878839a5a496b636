/** Channels and permission overwrites (Resources > Channel; Resources > Guild > Create Guild Channel). */
import { checkLength, fail, invalidForm, unknown, type Route } from "../api.ts";
import { snowflake, type Json, type World } from "../world.ts";
import { audit, channelOf, guildOf, patch } from "./lookup.ts";

/** Channel types a guild channel may be created as: text, voice, category, announcement, stage, forum, media. */
const creatable = new Set([0, 2, 4, 5, 13, 15, 16]);

function checkParent(world: World, guildId: string, parentId: unknown): void {
  if (parentId === undefined || parentId === null) return;
  const parent = world.channels.get(String(parentId));
  if (!parent || parent.guild_id !== guildId || parent.type !== 4) fail(invalidForm("parent_id", "CHANNEL_PARENT_INVALID_TYPE", "Not a category"));
}

function checkChannelFields(body: Json, creating: boolean): void {
  checkLength(body, "name", 1, 100, creating);
  checkLength(body, "topic", 0, 1024);
  if (body.rate_limit_per_user !== undefined && (body.rate_limit_per_user < 0 || body.rate_limit_per_user > 21_600))
    fail(invalidForm("rate_limit_per_user", "NUMBER_TYPE_MAX", "int value should be less than or equal to 21600."));
  if ((body.available_tags?.length ?? 0) > 20) fail(invalidForm("available_tags", "BASE_TYPE_MAX_LENGTH", "Must be 20 or fewer in length."));
}

const fields = ["name", "topic", "parent_id", "position", "nsfw", "rate_limit_per_user", "bitrate", "user_limit", "available_tags"];

export const channelRoutes: Route[] = [
  { method: "GET", path: "/channels/:channel_id", handler: ({ world, params }) => channelOf(world, params.channel_id!) },
  {
    method: "PATCH",
    path: "/channels/:channel_id",
    handler: ({ world, params, body, reason }) => {
      const channel = channelOf(world, params.channel_id!, true);
      checkChannelFields(body, false);
      checkParent(world, channel.guild_id, body.parent_id);
      if (body.archived !== undefined || body.locked !== undefined) {
        if (!channel.thread_metadata) fail(invalidForm("archived", "CHANNEL_TYPE_INVALID", "Only threads can be archived"));
        patch(channel.thread_metadata, body, ["archived", "locked", "auto_archive_duration"]);
      }
      patch(channel, body, [...fields, "applied_tags"]);
      audit(world, channel.guild_id, channel.thread_metadata ? 111 : 11, channel.id, reason);
      return channel;
    },
  },
  {
    method: "DELETE",
    path: "/channels/:channel_id",
    handler: ({ world, params, reason }) => {
      const channel = channelOf(world, params.channel_id!, true);
      world.channels.delete(channel.id);
      world.messages.delete(channel.id);
      audit(world, channel.guild_id, channel.thread_metadata ? 112 : 12, channel.id, reason);
      return channel;
    },
  },
  {
    method: "GET",
    path: "/guilds/:guild_id/channels",
    handler: ({ world, params }) => {
      const guild = guildOf(world, params.guild_id!);
      return [...world.channels.values()].filter((c) => c.guild_id === guild.id && !c.thread_metadata);
    },
  },
  {
    method: "POST",
    path: "/guilds/:guild_id/channels",
    handler: ({ world, params, body, reason }) => {
      const guild = guildOf(world, params.guild_id!);
      checkChannelFields(body, true);
      const type = body.type ?? 0;
      if (!creatable.has(type)) fail(invalidForm("type", "BASE_TYPE_CHOICES", `Value must be one of {0, 2, 4, 5, 13, 15, 16}.`));
      if ((type === 13 || type === 5) && !guild.features.includes("COMMUNITY")) fail(invalidForm("type", "GUILD_FEATURE_REQUIRED", "This guild is not a Community guild"));
      checkParent(world, guild.id, body.parent_id);
      const channel: Json = { id: snowflake(), type, guild_id: guild.id, position: 0, permission_overwrites: [], nsfw: false, parent_id: null, name: body.name };
      patch(channel, body, fields);
      if (channel.available_tags) channel.available_tags = channel.available_tags.map((tag: Json) => ({ id: snowflake(), emoji_id: null, emoji_name: null, moderated: false, ...tag }));
      world.channels.set(channel.id, channel);
      audit(world, guild.id, 10, channel.id, reason);
      return channel;
    },
  },
  {
    method: "PUT",
    path: "/channels/:channel_id/permissions/:overwrite_id",
    handler: ({ world, params, body, reason }) => {
      const channel = channelOf(world, params.channel_id!, true);
      if (body.type !== 0 && body.type !== 1) fail(invalidForm("type", "BASE_TYPE_CHOICES", "Value must be one of {0, 1}."));
      for (const key of ["allow", "deny"]) if (body[key] !== undefined && !/^\d+$/.test(String(body[key]))) fail(invalidForm(key, "BASE_TYPE_NUMBER", "Value is not a valid permission set."));
      const id = params.overwrite_id!;
      const target = body.type === 0 ? world.roles.get(channel.guild_id)?.some((r) => r.id === id) : world.members.get(channel.guild_id)?.has(id);
      if (!target) fail(body.type === 0 ? unknown.role() : unknown.member());
      const overwrite = { id, type: body.type, allow: String(body.allow ?? "0"), deny: String(body.deny ?? "0") };
      channel.permission_overwrites = [...channel.permission_overwrites.filter((o: Json) => o.id !== id), overwrite];
      audit(world, channel.guild_id, 14, channel.id, reason);
      return null;
    },
  },
  {
    method: "DELETE",
    path: "/channels/:channel_id/permissions/:overwrite_id",
    handler: ({ world, params, reason }) => {
      const channel = channelOf(world, params.channel_id!, true);
      if (!channel.permission_overwrites.some((o: Json) => o.id === params.overwrite_id)) fail(unknown.overwrite());
      channel.permission_overwrites = channel.permission_overwrites.filter((o: Json) => o.id !== params.overwrite_id);
      audit(world, channel.guild_id, 15, channel.id, reason);
      return null;
    },
  },
];
