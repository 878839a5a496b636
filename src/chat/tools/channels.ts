/** Channels: list, read, create each kind (text, voice, category, forum, stage), modify, delete, set permission overwrites. */
import { type Static, type TProperties, Type } from "@sinclair/typebox";
import { ChannelType, OverwriteType } from "discord-api-types/payloads/v10";
import { Routes } from "discord-api-types/rest/v10";
import type { APIChannel, RESTPostAPIGuildChannelJSONBody } from "discord-api-types/v10";
import type { REST } from "@discordjs/rest";
import { invalidInput } from "../errors.ts";
import { bitsOf, ChannelId, Confirm, GuildId, Permissions, Reason, Snowflake } from "../model.ts";
import { channelTypeNames, ChannelView, channelView } from "../views.ts";
import { chatTool } from "./tool.ts";

const Name = Type.String({ minLength: 1, maxLength: 100, description: "Channel name, 1 to 100 characters" });
const Topic = Type.Optional(Type.String({ maxLength: 1024, description: "Channel topic, at most 1024 characters" }));
const ParentId = Type.Optional(Snowflake("The category to put it in"));
const Position = Type.Optional(Type.Integer({ minimum: 0, maximum: 10_000 }));
const Slowmode = Type.Optional(Type.Integer({ minimum: 0, maximum: 21_600, description: "Seconds a member waits between messages (0 to 21600)" }));
const Nsfw = Type.Optional(Type.Boolean({ description: "Age-restricted" }));
const TypeName = Type.Union(Object.values(channelTypeNames).map((name) => Type.Literal(name)));
const ForumTag = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 20 }),
    emoji: Type.Optional(Type.String({ minLength: 1, maxLength: 32, description: "A Unicode emoji" })),
    moderated: Type.Optional(Type.Boolean({ description: "Only members who can manage threads may apply it" })),
  },
  { additionalProperties: false },
);

const created = Type.Object({ channel: ChannelView });
const guildScope = ({ guildId }: { guildId: string }) => ({ guildId });
const channelScope = ({ channelId }: { channelId: string }) => ({ channelId });

async function createChannel(rest: REST, guildId: string, body: RESTPostAPIGuildChannelJSONBody, reason?: string) {
  return { channel: channelView((await rest.post(Routes.guildChannels(guildId), { body, reason })) as APIChannel) };
}

/** Arguments of a create_*_channel tool: the fields every kind has, and its own (read by its `body`). */
type CreateArgs = { guildId: string; name: string; reason?: string } & Record<string, any>;

/** A create_*_channel tool: the fields every kind shares, and those of its kind. */
function creator(name: string, title: string, description: string, type: ChannelType, extra: TProperties, body: (args: CreateArgs) => Partial<RESTPostAPIGuildChannelJSONBody>) {
  return chatTool({
    name,
    title,
    description,
    kind: "write",
    input: Type.Object({ guildId: GuildId, name: Name, ...extra, reason: Reason }),
    output: created,
    scope: guildScope,
    run: (args: CreateArgs, rest) => createChannel(rest, args.guildId, { name: args.name, type, ...body(args) } as RESTPostAPIGuildChannelJSONBody, args.reason),
  });
}

export const channelTools = [
  chatTool({
    name: "list_channels",
    title: "List channels",
    description: "List a guild's channels (not threads) in order: id, name, type, category, topic.",
    kind: "read",
    input: Type.Object({ guildId: GuildId, type: Type.Optional(TypeName) }),
    output: Type.Object({ channels: Type.Array(ChannelView) }),
    scope: guildScope,
    run: async ({ guildId, type }, rest, chat) => ({ channels: (await chat.channels(rest, guildId)).filter((c) => !type || c.type === type) }),
  }),
  chatTool({
    name: "get_channel_details",
    title: "Channel details",
    description: "Read one channel or thread: type, category, topic, slowmode, permission overwrites by permission name, a forum's tags, a thread's state.",
    kind: "read",
    input: Type.Object({ channelId: ChannelId }),
    output: Type.Object({ channel: ChannelView }),
    scope: channelScope,
    run: async ({ channelId }, rest) => ({ channel: channelView((await rest.get(Routes.channel(channelId))) as APIChannel) }),
  }),
  creator(
    "create_text_channel",
    "Create a text channel",
    "Create a text channel in a guild, optionally in a category, with a topic and slowmode.",
    ChannelType.GuildText,
    { topic: Topic, parentId: ParentId, nsfw: Nsfw, slowmodeSeconds: Slowmode, position: Position },
    (args) => ({ topic: args.topic, parent_id: args.parentId, nsfw: args.nsfw, rate_limit_per_user: args.slowmodeSeconds, position: args.position }),
  ),
  creator(
    "create_voice_channel",
    "Create a voice channel",
    "Create a voice channel, optionally in a category, with a bitrate and a member limit.",
    ChannelType.GuildVoice,
    {
      parentId: ParentId,
      bitrate: Type.Optional(Type.Integer({ minimum: 8000, maximum: 384_000, description: "Bits per second, 8000 to 384000 (above 96000 needs boosts)" })),
      userLimit: Type.Optional(Type.Integer({ minimum: 0, maximum: 99, description: "0 for no limit" })),
      position: Position,
    },
    (args) => ({ parent_id: args.parentId, bitrate: args.bitrate, user_limit: args.userLimit, position: args.position }),
  ),
  creator("create_category", "Create a category", "Create a category to group channels under.", ChannelType.GuildCategory, { position: Position }, (args) => ({ position: args.position })),
  creator(
    "create_forum_channel",
    "Create a forum",
    "Create a forum channel, where each post is a thread, with up to 20 tags posts can carry.",
    ChannelType.GuildForum,
    { topic: Topic, parentId: ParentId, tags: Type.Optional(Type.Array(ForumTag, { maxItems: 20 })), nsfw: Nsfw },
    (args) => ({
      topic: args.topic,
      parent_id: args.parentId,
      nsfw: args.nsfw,
      available_tags: args.tags?.map((tag: Static<typeof ForumTag>) => ({ name: tag.name, emoji_name: tag.emoji ?? null, moderated: tag.moderated ?? false })),
    }),
  ),
  creator(
    "create_stage_channel",
    "Create a stage channel",
    "Create a stage channel for talks with an audience (the guild must be a Community guild).",
    ChannelType.GuildStageVoice,
    { parentId: ParentId, topic: Topic },
    (args) => ({ parent_id: args.parentId, topic: args.topic }),
  ),
  chatTool({
    name: "modify_channel",
    title: "Modify a channel",
    description: "Change a channel's name, topic, category (null to take it out), position, age restriction or slowmode.",
    kind: "write",
    input: Type.Object({
      channelId: ChannelId,
      name: Type.Optional(Name),
      topic: Topic,
      parentId: Type.Optional(Type.Union([Snowflake("The category to move it to"), Type.Null()])),
      position: Position,
      nsfw: Nsfw,
      slowmodeSeconds: Slowmode,
      reason: Reason,
    }),
    output: created,
    scope: channelScope,
    check: ({ channelId: _c, reason: _r, ...changes }) => {
      if (Object.values(changes).every((value) => value === undefined)) throw invalidInput("name", "give at least one change (name, topic, parentId, position, nsfw, slowmodeSeconds)");
    },
    async run({ channelId, name, topic, parentId, position, nsfw, slowmodeSeconds, reason }, rest) {
      const body = { name, topic, parent_id: parentId, position, nsfw, rate_limit_per_user: slowmodeSeconds };
      return { channel: channelView((await rest.patch(Routes.channel(channelId), { body, reason })) as APIChannel) };
    },
  }),
  chatTool({
    name: "delete_channel",
    title: "Delete a channel",
    description: "Delete a channel, category or thread and everything in it. Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ channelId: ChannelId, reason: Reason, confirm: Confirm }),
    output: Type.Object({ deleted: Type.Literal(true), channelId: Type.String(), name: Type.String() }),
    scope: channelScope,
    async run({ channelId, reason }, rest) {
      const channel = (await rest.delete(Routes.channel(channelId), { reason })) as APIChannel;
      return { deleted: true as const, channelId, name: channel.name ?? "" };
    },
  }),
  chatTool({
    name: "set_channel_permissions",
    title: "Set channel permissions",
    description:
      "Set a role's or member's permission overwrite on a channel: the permissions to allow and to deny, by their Discord names " +
      "(ViewChannel, SendMessages, ManageMessages, ...). Permissions in neither list follow the role's guild-wide permissions.",
    kind: "write",
    input: Type.Object({
      channelId: ChannelId,
      targetId: Snowflake("The role's or member's id"),
      targetType: Type.Union([Type.Literal("role"), Type.Literal("member")]),
      allow: Type.Optional(Permissions),
      deny: Type.Optional(Permissions),
      reason: Reason,
    }),
    output: Type.Object({ channelId: Type.String(), targetId: Type.String(), allow: Type.Array(Type.String()), deny: Type.Array(Type.String()) }),
    scope: channelScope,
    check: ({ allow = [], deny = [] }) => {
      const both = allow.findIndex((name) => deny.includes(name));
      if (both >= 0) throw invalidInput(`allow.${both}`, `${allow[both]} is both allowed and denied`);
    },
    async run({ channelId, targetId, targetType, allow = [], deny = [], reason }, rest) {
      const type = targetType === "role" ? OverwriteType.Role : OverwriteType.Member;
      await rest.put(Routes.channelPermission(channelId, targetId), { body: { type, allow: bitsOf(allow), deny: bitsOf(deny) }, reason });
      return { channelId, targetId, allow, deny };
    },
  }),
];
