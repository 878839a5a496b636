/**
 * What the chat tools answer with: Discord's objects (typed by discord-api-types) turned into flat, camelCase
 * views, each with the TypeBox schema that is its tool's outputSchema. Secrets Discord hands the bot (a webhook's
 * token) are left out.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";
import {
  AutoModerationActionType,
  AutoModerationRuleTriggerType,
  ChannelType,
  GuildScheduledEventEntityType,
  GuildScheduledEventStatus,
  AuditLogEvent,
} from "discord-api-types/payloads/v10";
import type {
  APIAuditLogEntry,
  APIAutoModerationRule,
  APIBan,
  APIChannel,
  APIEmoji,
  APIExtendedInvite,
  APIGuildMember,
  APIGuildScheduledEvent,
  APIInvite,
  APIMessage,
  APIRole,
  APISticker,
  APIApplicationCommand,
  APIWebhook,
} from "discord-api-types/v10";
import { namesOf } from "./model.ts";

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const optional = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** Lower-case words for an enum member's name: GuildAnnouncement -> "guild announcement". */
const words = (name: string | undefined) => (name ?? "unknown").replace(/([a-z])([A-Z])/g, "$1 $2").toLowerCase();

// --- messages ---

export const AttachmentView = Type.Object({
  id: Type.String(),
  filename: Type.String(),
  url: Type.String(),
  contentType: Type.Optional(Type.String()),
  size: Type.Integer(),
  description: Type.Optional(Type.String()),
});

const EmbedView = Type.Object({
  title: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  url: Type.Optional(Type.String()),
  color: Type.Optional(Type.Integer()),
  fields: Type.Optional(Type.Array(Type.Object({ name: Type.String(), value: Type.String(), inline: Type.Optional(Type.Boolean()) }))),
  footer: Type.Optional(Type.String()),
  author: Type.Optional(Type.String()),
  image: Type.Optional(Type.String()),
  thumbnail: Type.Optional(Type.String()),
});

export const MessageView = Type.Object({
  id: Type.String(),
  channelId: Type.String(),
  author: Type.Object({ id: Type.String(), username: Type.String(), displayName: Type.Optional(Type.String()), bot: Type.Boolean() }),
  content: Type.String(),
  timestamp: Type.String(),
  editedTimestamp: Nullable(Type.String()),
  pinned: Type.Boolean(),
  /** The message this one replies to. */
  replyTo: Type.Optional(Type.String()),
  /** The thread started from this message. */
  thread: Type.Optional(Type.Object({ id: Type.String(), name: Type.String() })),
  attachments: Type.Array(AttachmentView),
  embeds: Type.Array(EmbedView),
  reactions: Type.Array(Type.Object({ emoji: Type.String(), count: Type.Integer(), me: Type.Boolean() })),
});
export type MessageView = Static<typeof MessageView>;

/** A reaction's emoji as the API addresses it: the character itself, or `name:id` for a custom one. */
const emojiText = (emoji: { id: string | null; name: string | null }) => (emoji.id ? `${emoji.name ?? "emoji"}:${emoji.id}` : (emoji.name ?? ""));

export const messageView = (message: APIMessage): MessageView => ({
  id: message.id,
  channelId: message.channel_id,
  author: { id: message.author.id, username: message.author.username, displayName: optional(message.author.global_name), bot: message.author.bot === true },
  content: message.content,
  timestamp: message.timestamp,
  editedTimestamp: message.edited_timestamp,
  pinned: message.pinned,
  replyTo: optional(message.message_reference?.message_id),
  thread: message.thread ? { id: message.thread.id, name: message.thread.name ?? "" } : undefined,
  attachments: message.attachments.map((a) => ({ id: a.id, filename: a.filename, url: a.url, contentType: a.content_type, size: a.size, description: a.description })),
  embeds: message.embeds.map((e) => ({
    title: e.title,
    description: e.description,
    url: e.url,
    color: e.color,
    fields: e.fields?.map(({ name, value, inline }) => ({ name, value, inline })),
    footer: e.footer?.text,
    author: e.author?.name,
    image: e.image?.url,
    thumbnail: e.thumbnail?.url,
  })),
  reactions: (message.reactions ?? []).map((r) => ({ emoji: emojiText(r.emoji), count: r.count, me: r.me })),
});

export const SentMessage = Type.Object({ messageId: Type.String(), channelId: Type.String(), timestamp: Type.String() });
export const sentMessage = (message: APIMessage) => ({ messageId: message.id, channelId: message.channel_id, timestamp: message.timestamp });

// --- channels and threads ---

export const channelTypeNames: Record<number, string> = {
  [ChannelType.GuildText]: "text",
  [ChannelType.DM]: "dm",
  [ChannelType.GuildVoice]: "voice",
  [ChannelType.GroupDM]: "group_dm",
  [ChannelType.GuildCategory]: "category",
  [ChannelType.GuildAnnouncement]: "announcement",
  [ChannelType.AnnouncementThread]: "announcement_thread",
  [ChannelType.PublicThread]: "public_thread",
  [ChannelType.PrivateThread]: "private_thread",
  [ChannelType.GuildStageVoice]: "stage",
  [ChannelType.GuildDirectory]: "directory",
  [ChannelType.GuildForum]: "forum",
  [ChannelType.GuildMedia]: "media",
};

const ForumTagView = Type.Object({ id: Type.String(), name: Type.String(), moderated: Type.Boolean(), emoji: Type.Optional(Type.String()) });

export const ChannelView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.String(),
  guildId: Type.Optional(Type.String()),
  parentId: Type.Optional(Nullable(Type.String())),
  position: Type.Optional(Type.Integer()),
  topic: Type.Optional(Nullable(Type.String())),
  nsfw: Type.Optional(Type.Boolean()),
  slowmodeSeconds: Type.Optional(Type.Integer()),
  bitrate: Type.Optional(Type.Integer()),
  userLimit: Type.Optional(Type.Integer()),
  /** A forum's tags. */
  tags: Type.Optional(Type.Array(ForumTagView)),
  permissionOverwrites: Type.Optional(
    Type.Array(Type.Object({ id: Type.String(), type: Type.String(), allow: Type.Array(Type.String()), deny: Type.Array(Type.String()) })),
  ),
  /** A thread's state. */
  archived: Type.Optional(Type.Boolean()),
  locked: Type.Optional(Type.Boolean()),
  ownerId: Type.Optional(Type.String()),
  messageCount: Type.Optional(Type.Integer()),
  appliedTags: Type.Optional(Type.Array(Type.String())),
});
export type ChannelView = Static<typeof ChannelView>;

export function channelView(channel: APIChannel): ChannelView {
  const c = channel as APIChannel & Record<string, any>;
  return {
    id: c.id,
    name: c.name ?? "",
    type: channelTypeNames[c.type] ?? String(c.type),
    guildId: optional(c.guild_id),
    parentId: c.parent_id,
    position: c.position,
    topic: c.topic,
    nsfw: c.nsfw,
    slowmodeSeconds: c.rate_limit_per_user,
    bitrate: c.bitrate,
    userLimit: c.user_limit,
    tags: c.available_tags?.map((t: any) => ({ id: t.id, name: t.name, moderated: t.moderated, emoji: optional(t.emoji_name ?? t.emoji_id) })),
    permissionOverwrites: c.permission_overwrites?.map((o: any) => ({ id: o.id, type: o.type === 0 ? "role" : "member", allow: namesOf(o.allow), deny: namesOf(o.deny) })),
    archived: c.thread_metadata?.archived,
    locked: c.thread_metadata?.locked,
    ownerId: c.owner_id,
    messageCount: c.message_count,
    appliedTags: c.applied_tags,
  };
}

// --- guilds, members, roles ---

export const RoleView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  color: Type.Integer(),
  hoist: Type.Boolean(),
  mentionable: Type.Boolean(),
  managed: Type.Boolean(),
  position: Type.Integer(),
  permissions: Type.Array(Type.String()),
});
export const roleView = (role: APIRole) => ({
  id: role.id,
  name: role.name,
  color: role.color,
  hoist: role.hoist,
  mentionable: role.mentionable,
  managed: role.managed,
  position: role.position,
  permissions: namesOf(role.permissions),
});

export const MemberView = Type.Object({
  userId: Type.String(),
  username: Type.String(),
  displayName: Type.Optional(Type.String()),
  nickname: Nullable(Type.String()),
  bot: Type.Boolean(),
  roles: Type.Array(Type.String()),
  joinedAt: Nullable(Type.String()),
  timeoutUntil: Nullable(Type.String()),
});
export const memberView = (member: APIGuildMember) => ({
  userId: member.user.id,
  username: member.user.username,
  displayName: optional(member.user.global_name),
  nickname: member.nick ?? null,
  bot: member.user.bot === true,
  roles: member.roles,
  joinedAt: member.joined_at ?? null,
  timeoutUntil: member.communication_disabled_until ?? null,
});

export const BanView = Type.Object({ userId: Type.String(), username: Type.String(), reason: Nullable(Type.String()) });
export const banView = (ban: APIBan) => ({ userId: ban.user.id, username: ban.user.username, reason: ban.reason });

export const AuditEntryView = Type.Object({
  id: Type.String(),
  action: Type.String(),
  actionType: Type.Integer(),
  userId: Nullable(Type.String()),
  targetId: Nullable(Type.String()),
  reason: Type.Optional(Type.String()),
  changes: Type.Optional(Type.Array(Type.Object({ key: Type.String(), old: Type.Optional(Type.Unknown()), new: Type.Optional(Type.Unknown()) }))),
});
export const auditEntryView = (entry: APIAuditLogEntry) => ({
  id: entry.id,
  action: words(AuditLogEvent[entry.action_type]),
  actionType: entry.action_type,
  userId: entry.user_id,
  targetId: entry.target_id,
  reason: entry.reason,
  changes: entry.changes?.map((c) => ({ key: c.key, old: c.old_value, new: c.new_value })),
});

export const WebhookView = Type.Object({ id: Type.String(), name: Nullable(Type.String()), channelId: Nullable(Type.String()), type: Type.Integer(), createdBy: Type.Optional(Type.String()) });
/** The webhook's token stays with the bot: whoever holds it can post as the webhook. */
export const webhookView = (webhook: APIWebhook) => ({ id: webhook.id, name: webhook.name, channelId: webhook.channel_id, type: webhook.type, createdBy: webhook.user?.username });

export const InviteView = Type.Object({
  code: Type.String(),
  url: Type.String(),
  channelId: Nullable(Type.String()),
  inviter: Type.Optional(Type.String()),
  uses: Type.Optional(Type.Integer()),
  maxUses: Type.Optional(Type.Integer()),
  maxAgeSeconds: Type.Optional(Type.Integer()),
  temporary: Type.Optional(Type.Boolean()),
  expiresAt: Type.Optional(Nullable(Type.String())),
});
export const inviteView = (invite: APIInvite | APIExtendedInvite) => {
  const extended = invite as Partial<APIExtendedInvite>;
  return {
    code: invite.code,
    url: `https://discord.gg/${invite.code}`,
    channelId: invite.channel?.id ?? null,
    inviter: invite.inviter?.username,
    uses: extended.uses,
    maxUses: extended.max_uses,
    maxAgeSeconds: extended.max_age,
    temporary: extended.temporary,
    expiresAt: invite.expires_at,
  };
};

// --- expressions ---

export const EmojiView = Type.Object({ id: Nullable(Type.String()), name: Nullable(Type.String()), animated: Type.Boolean(), available: Type.Boolean(), roles: Type.Array(Type.String()) });
export const emojiView = (emoji: APIEmoji) => ({ id: emoji.id, name: emoji.name, animated: emoji.animated === true, available: emoji.available !== false, roles: emoji.roles ?? [] });

export const StickerView = Type.Object({ id: Type.String(), name: Type.String(), description: Nullable(Type.String()), tags: Type.String(), format: Type.String(), available: Type.Boolean() });
const stickerFormats: Record<number, string> = { 1: "png", 2: "apng", 3: "lottie", 4: "gif" };
export const stickerView = (sticker: APISticker) => ({
  id: sticker.id,
  name: sticker.name,
  description: sticker.description,
  tags: sticker.tags,
  format: stickerFormats[sticker.format_type] ?? String(sticker.format_type),
  available: sticker.available !== false,
});

// --- scheduled events ---

export const EventView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Optional(Nullable(Type.String())),
  startTime: Type.String(),
  endTime: Nullable(Type.String()),
  status: Type.String(),
  entityType: Type.String(),
  channelId: Nullable(Type.String()),
  location: Type.Optional(Type.String()),
  userCount: Type.Optional(Type.Integer()),
});
export const eventView = (event: APIGuildScheduledEvent) => ({
  id: event.id,
  name: event.name,
  description: event.description,
  startTime: event.scheduled_start_time,
  endTime: event.scheduled_end_time,
  status: words(GuildScheduledEventStatus[event.status]),
  entityType: words(GuildScheduledEventEntityType[event.entity_type]),
  channelId: event.channel_id,
  location: optional(event.entity_metadata?.location),
  userCount: event.user_count,
});

// --- auto moderation ---

export const AutomodRuleView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  enabled: Type.Boolean(),
  trigger: Type.String(),
  keywords: Type.Array(Type.String()),
  regexPatterns: Type.Array(Type.String()),
  presets: Type.Array(Type.Integer()),
  allowList: Type.Array(Type.String()),
  mentionLimit: Type.Optional(Type.Integer()),
  actions: Type.Array(
    Type.Object({ type: Type.String(), channelId: Type.Optional(Type.String()), durationSeconds: Type.Optional(Type.Integer()), customMessage: Type.Optional(Type.String()) }),
  ),
  exemptRoles: Type.Array(Type.String()),
  exemptChannels: Type.Array(Type.String()),
});
export const automodRuleView = (rule: APIAutoModerationRule) => ({
  id: rule.id,
  name: rule.name,
  enabled: rule.enabled,
  trigger: words(AutoModerationRuleTriggerType[rule.trigger_type]),
  keywords: rule.trigger_metadata.keyword_filter ?? [],
  regexPatterns: rule.trigger_metadata.regex_patterns ?? [],
  presets: rule.trigger_metadata.presets ?? [],
  allowList: rule.trigger_metadata.allow_list ?? [],
  mentionLimit: rule.trigger_metadata.mention_total_limit,
  actions: rule.actions.map((a) => ({
    type: words(AutoModerationActionType[a.type]),
    channelId: a.metadata?.channel_id,
    durationSeconds: a.metadata?.duration_seconds,
    customMessage: optional(a.metadata?.custom_message),
  })),
  exemptRoles: rule.exempt_roles,
  exemptChannels: rule.exempt_channels,
});

// --- application commands ---

export const CommandView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  type: Type.Integer(),
  guildId: Type.Optional(Type.String()),
  options: Type.Array(Type.Unknown()),
  defaultMemberPermissions: Nullable(Type.Array(Type.String())),
});
export const commandView = (command: APIApplicationCommand) => ({
  id: command.id,
  name: command.name,
  description: command.description,
  type: command.type ?? 1,
  guildId: command.guild_id,
  options: command.options ?? [],
  defaultMemberPermissions: command.default_member_permissions === null ? null : namesOf(command.default_member_permissions),
});
