/** The guild itself: its information and settings, the audit log, webhooks (posting through one too) and invites. */
import { Type } from "@sinclair/typebox";
import { GuildDefaultMessageNotifications, GuildVerificationLevel } from "discord-api-types/payloads/v10";
import { Routes } from "discord-api-types/rest/v10";
import type { APIAuditLog, APIExtendedInvite, APIGuild, APIInvite, APIMessage, APIWebhook } from "discord-api-types/v10";
import { invalidInput } from "../errors.ts";
import { ChannelId, Content, Embeds, GuildId, Reason, Snowflake, UserId } from "../model.ts";
import { AuditEntryView, auditEntryView, InviteView, inviteView, SentMessage, sentMessage, WebhookView, webhookView } from "./../views.ts";
import { apiEmbed, checkEmbeds } from "./messages.ts";
import { chatTool } from "./tool.ts";

const verificationLevels = { none: GuildVerificationLevel.None, low: GuildVerificationLevel.Low, medium: GuildVerificationLevel.Medium, high: GuildVerificationLevel.High, very_high: GuildVerificationLevel.VeryHigh };
const levelNames = Object.fromEntries(Object.entries(verificationLevels).map(([name, level]) => [level, name]));
const literals = (names: string[]) => Type.Union(names.map((name) => Type.Literal(name)));

const ServerInfo = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  ownerId: Type.String(),
  memberCount: Type.Optional(Type.Integer()),
  onlineCount: Type.Optional(Type.Integer()),
  verificationLevel: Type.String(),
  features: Type.Array(Type.String()),
  premiumTier: Type.Integer(),
  systemChannelId: Type.Union([Type.String(), Type.Null()]),
  rulesChannelId: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  afkChannelId: Type.Union([Type.String(), Type.Null()]),
  afkTimeoutSeconds: Type.Integer(),
  preferredLocale: Type.String(),
  roleCount: Type.Integer(),
  emojiCount: Type.Integer(),
});

const serverInfo = (guild: APIGuild) => ({
  id: guild.id,
  name: guild.name,
  description: guild.description,
  ownerId: guild.owner_id,
  memberCount: guild.approximate_member_count,
  onlineCount: guild.approximate_presence_count,
  verificationLevel: levelNames[guild.verification_level] ?? String(guild.verification_level),
  features: guild.features,
  premiumTier: guild.premium_tier,
  systemChannelId: guild.system_channel_id,
  rulesChannelId: guild.rules_channel_id,
  afkChannelId: guild.afk_channel_id,
  afkTimeoutSeconds: guild.afk_timeout,
  preferredLocale: guild.preferred_locale,
  roleCount: guild.roles?.length ?? 0,
  emojiCount: guild.emojis?.length ?? 0,
});

const guildScope = ({ guildId }: { guildId: string }) => ({ guildId });

export const serverTools = [
  chatTool({
    name: "get_server_info",
    title: "Server information",
    description: "Read a guild's name, description, owner, member and online counts, verification level, features, boost tier and system channels.",
    kind: "read",
    input: Type.Object({ guildId: GuildId }),
    output: ServerInfo,
    scope: guildScope,
    run: async ({ guildId }, rest) => serverInfo((await rest.get(Routes.guild(guildId), { query: new URLSearchParams({ with_counts: "true" }) })) as APIGuild),
  }),
  chatTool({
    name: "modify_server",
    title: "Modify the server",
    description: "Change a guild's name, description, verification level, default notifications, system channel, AFK channel or AFK timeout.",
    kind: "write",
    input: Type.Object({
      guildId: GuildId,
      name: Type.Optional(Type.String({ minLength: 2, maxLength: 100 })),
      description: Type.Optional(Type.Union([Type.String({ maxLength: 120 }), Type.Null()])),
      verificationLevel: Type.Optional(literals(Object.keys(verificationLevels))),
      defaultNotifications: Type.Optional(literals(["all_messages", "only_mentions"])),
      systemChannelId: Type.Optional(Type.Union([Snowflake("Channel for join and boost messages"), Type.Null()])),
      afkChannelId: Type.Optional(Type.Union([Snowflake("Voice channel idle members are moved to"), Type.Null()])),
      afkTimeoutSeconds: Type.Optional(Type.Union([60, 300, 900, 1800, 3600].map((s) => Type.Literal(s)))),
      reason: Reason,
    }),
    output: ServerInfo,
    scope: guildScope,
    check: ({ guildId: _g, reason: _r, ...changes }) => {
      if (Object.values(changes).every((value) => value === undefined)) throw invalidInput("name", "give at least one change");
    },
    async run(args, rest) {
      const body = {
        name: args.name,
        description: args.description,
        verification_level: args.verificationLevel && verificationLevels[args.verificationLevel as keyof typeof verificationLevels],
        default_message_notifications:
          args.defaultNotifications && (args.defaultNotifications === "all_messages" ? GuildDefaultMessageNotifications.AllMessages : GuildDefaultMessageNotifications.OnlyMentions),
        system_channel_id: args.systemChannelId,
        afk_channel_id: args.afkChannelId,
        afk_timeout: args.afkTimeoutSeconds,
      };
      return serverInfo((await rest.patch(Routes.guild(args.guildId), { body, reason: args.reason })) as APIGuild);
    },
  }),
  chatTool({
    name: "get_audit_logs",
    title: "Audit log",
    description: "Read a guild's audit log, newest first: who did what to whom and why. Filter by the acting user or by action type (Discord's number, e.g. 20 for kicks, 22 for bans).",
    kind: "read",
    input: Type.Object({
      guildId: GuildId,
      userId: Type.Optional(UserId),
      actionType: Type.Optional(Type.Integer({ minimum: 1, maximum: 255 })),
      before: Type.Optional(Snowflake("An entry id; older entries are returned")),
      limit: Type.Integer({ minimum: 1, maximum: 100, default: 50 }),
    }),
    output: Type.Object({ entries: Type.Array(AuditEntryView) }),
    scope: guildScope,
    async run({ guildId, userId, actionType, before, limit }, rest) {
      const query = new URLSearchParams({ limit: String(limit) });
      if (userId) query.set("user_id", userId);
      if (actionType !== undefined) query.set("action_type", String(actionType));
      if (before) query.set("before", before);
      const log = (await rest.get(Routes.guildAuditLog(guildId), { query })) as APIAuditLog;
      return { entries: log.audit_log_entries.map(auditEntryView) };
    },
  }),
  chatTool({
    name: "list_webhooks",
    title: "List webhooks",
    description: "List the webhooks of a guild or of one channel. Their tokens are never shown.",
    kind: "read",
    input: Type.Object({ guildId: Type.Optional(GuildId), channelId: Type.Optional(ChannelId) }),
    output: Type.Object({ webhooks: Type.Array(WebhookView) }),
    scope: ({ guildId, channelId }) => ({ guildId, channelId }),
    check: ({ guildId, channelId }) => {
      if (!guildId && !channelId) throw invalidInput("guildId", "give a guildId or a channelId");
    },
    async run({ guildId, channelId }, rest) {
      const webhooks = (await rest.get(channelId ? Routes.channelWebhooks(channelId) : Routes.guildWebhooks(guildId!))) as APIWebhook[];
      return { webhooks: webhooks.map(webhookView) };
    },
  }),
  chatTool({
    name: "create_webhook",
    title: "Create a webhook",
    description: "Create a webhook in a channel, for other systems to post through. Its token stays with the bot; post through it with send_webhook_message.",
    kind: "write",
    input: Type.Object({ channelId: ChannelId, name: Type.String({ minLength: 1, maxLength: 80 }), reason: Reason }),
    output: Type.Object({ webhook: WebhookView }),
    scope: ({ channelId }) => ({ channelId }),
    check: ({ name }) => {
      if (/clyde|discord/i.test(name)) throw invalidInput("name", "Discord refuses webhook names containing 'clyde' or 'discord'");
    },
    run: async ({ channelId, name, reason }, rest) => ({ webhook: webhookView((await rest.post(Routes.channelWebhooks(channelId), { body: { name }, reason })) as APIWebhook) }),
  }),
  chatTool({
    name: "send_webhook_message",
    title: "Post through a webhook",
    description: "Post a message through one of the guild's webhooks, under the webhook's name and avatar or ones given for this message. The bot fetches the webhook's token itself.",
    kind: "write",
    input: Type.Object({
      webhookId: Snowflake("The webhook's id (list_webhooks)"),
      content: Type.Optional(Content),
      embeds: Type.Optional(Embeds),
      username: Type.Optional(Type.String({ minLength: 1, maxLength: 80 })),
      avatarUrl: Type.Optional(Type.String({ pattern: "^https?://\\S+$", maxLength: 2048 })),
      threadId: Type.Optional(Snowflake("A thread of the webhook's channel to post in")),
    }),
    output: SentMessage,
    scope: () => ({}),
    check: ({ content, embeds }) => {
      if (content === undefined && embeds === undefined) throw invalidInput("content", "give content, embeds or both");
      checkEmbeds(embeds);
    },
    async run(args, rest, chat) {
      const webhook = (await rest.get(Routes.webhook(args.webhookId))) as APIWebhook;
      await chat.assertAllowed({ guildId: webhook.guild_id ?? "" }, rest);
      if (!webhook.token) throw invalidInput("webhookId", "this webhook cannot be posted through (it is not an incoming webhook the bot can manage)");
      const query = new URLSearchParams({ wait: "true", ...(args.threadId ? { thread_id: args.threadId } : {}) });
      const body = { content: args.content, embeds: args.embeds?.map(apiEmbed), username: args.username, avatar_url: args.avatarUrl, allowed_mentions: { parse: ["users", "roles"] } };
      return sentMessage((await rest.post(Routes.webhook(webhook.id, webhook.token), { body, query, auth: false })) as APIMessage);
    },
  }),
  chatTool({
    name: "get_invites",
    title: "List invites",
    description: "List a guild's invites: code, link, channel, who made it, uses and limits.",
    kind: "read",
    input: Type.Object({ guildId: GuildId }),
    output: Type.Object({ invites: Type.Array(InviteView) }),
    scope: guildScope,
    run: async ({ guildId }, rest) => ({ invites: ((await rest.get(Routes.guildInvites(guildId))) as APIExtendedInvite[]).map(inviteView) }),
  }),
  chatTool({
    name: "create_invite",
    title: "Create an invite",
    description: "Create an invite link to a channel, lasting maxAgeSeconds (0 for ever, at most 7 days) for maxUses uses (0 for unlimited).",
    kind: "write",
    input: Type.Object({
      channelId: ChannelId,
      maxAgeSeconds: Type.Integer({ minimum: 0, maximum: 604_800, default: 86_400 }),
      maxUses: Type.Integer({ minimum: 0, maximum: 100, default: 0 }),
      temporary: Type.Optional(Type.Boolean({ description: "Members who joined by it leave when they go offline, unless given a role" })),
      unique: Type.Optional(Type.Boolean({ description: "Always make a new invite rather than reuse a similar one" })),
      reason: Reason,
    }),
    output: Type.Object({ invite: InviteView }),
    scope: ({ channelId }) => ({ channelId }),
    async run({ channelId, maxAgeSeconds, maxUses, temporary, unique, reason }, rest) {
      const body = { max_age: maxAgeSeconds, max_uses: maxUses, temporary, unique };
      return { invite: inviteView((await rest.post(Routes.channelInvites(channelId), { body, reason })) as APIInvite) };
    },
  }),
];
