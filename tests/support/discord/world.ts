/**
 * What the stand-in's Discord holds: one bot in two guilds, with channels, roles, members and messages, all
 * shaped as Discord's JSON objects (Resources in Discord's documentation). Ids are real snowflakes, so a message's
 * age can be read from its id as clients do.
 */

/** Discord's epoch (the first second of 2015), from Reference > Snowflakes. */
const discordEpoch = 1420070400000n;
let increment = 0n;

export function snowflake(at = Date.now()): string {
  increment = (increment + 1n) & 0xfffn;
  return (((BigInt(at) - discordEpoch) << 22n) | (1n << 17n) | increment).toString();
}

/** Webhook tokens are 68 characters of letters, digits, - and _. */
export const webhookToken = () =>
  Array.from({ length: 68 }, () => "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_"[Math.floor(Math.random() * 64)]).join("");

export const timestampOf = (id: string) => Number((BigInt(id) >> 22n) + discordEpoch);

export type Json = Record<string, any>;

export interface Guild extends Json {
  id: string;
  name: string;
}

export interface World {
  bot: Json;
  applicationId: string;
  users: Map<string, Json>;
  guilds: Map<string, Guild>;
  channels: Map<string, Json>;
  /** Messages by channel, oldest first. */
  messages: Map<string, Json[]>;
  roles: Map<string, Json[]>;
  members: Map<string, Map<string, Json>>;
  bans: Map<string, Map<string, Json>>;
  emojis: Map<string, Json[]>;
  stickers: Map<string, Json[]>;
  events: Map<string, Json[]>;
  eventUsers: Map<string, Json[]>;
  automod: Map<string, Json[]>;
  /** Application commands by guild id, `global` for global ones. */
  commands: Map<string, Json[]>;
  webhooks: Map<string, Json>;
  invites: Map<string, Json>;
  auditLog: Map<string, Json[]>;
  /** Channels whose permission overwrites deny the bot everything: reads answer 50001, writes 50013. */
  lockedChannels: Set<string>;
}

export interface Seed {
  world: World;
  guild: Guild;
  other: Guild;
  ids: {
    general: string;
    announcements: string;
    locked: string;
    voice: string;
    category: string;
    forum: string;
    forumTag: string;
    forumPost: string;
    thread: string;
    alice: string;
    bob: string;
    moderatorRole: string;
    memberRole: string;
    webhook: string;
    emoji: string;
    sticker: string;
    event: string;
    rule: string;
    command: string;
    firstMessage: string;
    otherChannel: string;
  };
}

const user = (id: string, username: string, bot = false): Json => ({
  id,
  username,
  global_name: bot ? null : username[0]!.toUpperCase() + username.slice(1),
  discriminator: "0",
  avatar: null,
  bot,
});

/** A fresh world; every test file (or test) that changes things starts one. */
export function seedWorld(): Seed {
  const now = Date.now();
  const id = () => snowflake(now - 3_600_000);
  const bot = user(id(), "platform-bot", true);
  const applicationId = bot.id;
  const alice = user(id(), "alice");
  const bob = user(id(), "bob");
  const guild: Guild = {
    id: id(),
    name: "Platform Test Guild",
    icon: null,
    description: "Where the chat server is tried",
    owner_id: alice.id,
    verification_level: 1,
    default_message_notifications: 1,
    explicit_content_filter: 2,
    features: ["COMMUNITY"],
    mfa_level: 0,
    system_channel_id: null,
    afk_channel_id: null,
    afk_timeout: 300,
    premium_tier: 0,
    preferred_locale: "en-US",
    nsfw_level: 0,
  };
  const other: Guild = { ...guild, id: id(), name: "Other Guild", description: null, features: [] };
  const channel = (fields: Json): Json => ({ guild_id: guild.id, position: 0, permission_overwrites: [], nsfw: false, parent_id: null, ...fields });
  const category = channel({ id: id(), type: 4, name: "Community" });
  const general = channel({ id: id(), type: 0, name: "general", topic: "Anything goes", parent_id: category.id, rate_limit_per_user: 0, last_message_id: null });
  const announcements = channel({ id: id(), type: 5, name: "announcements", topic: null, parent_id: category.id, position: 1 });
  const locked = channel({ id: id(), type: 0, name: "staff-only", topic: null, position: 2 });
  const voice = channel({ id: id(), type: 2, name: "Lounge", bitrate: 64000, user_limit: 0, position: 3 });
  const forumTag = { id: id(), name: "question", moderated: false, emoji_id: null, emoji_name: "❓" };
  const forum = channel({ id: id(), type: 15, name: "help", topic: "Ask here", available_tags: [forumTag, { id: id(), name: "solved", moderated: true, emoji_id: null, emoji_name: null }], position: 4 });
  const otherGeneral = { id: id(), type: 0, guild_id: other.id, name: "general", position: 0, permission_overwrites: [], nsfw: false, parent_id: null };
  const moderatorRole = { id: id(), name: "Moderator", color: 0x3498db, hoist: true, position: 2, permissions: "1099511627775", managed: false, mentionable: true, flags: 0 };
  const memberRole = { id: id(), name: "Member", color: 0, hoist: false, position: 1, permissions: "104324673", managed: false, mentionable: false, flags: 0 };
  const everyone = { id: guild.id, name: "@everyone", color: 0, hoist: false, position: 0, permissions: "104324673", managed: false, mentionable: false, flags: 0 };
  const member = (u: Json, roles: string[], joined: number): Json => ({
    user: u,
    nick: null,
    roles,
    joined_at: new Date(joined).toISOString(),
    premium_since: null,
    deaf: false,
    mute: false,
    flags: 0,
    pending: false,
    communication_disabled_until: null,
    avatar: null,
  });

  const messages: Json[] = [];
  const message = (channelId: string, author: Json, content: string, at: number, extra: Json = {}): Json => {
    const m = {
      id: snowflake(at),
      channel_id: channelId,
      author,
      content,
      timestamp: new Date(at).toISOString(),
      edited_timestamp: null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: [],
      pinned: false,
      type: 0,
      flags: 0,
      ...extra,
    };
    return m;
  };
  const first = message(general.id, alice, "Welcome to the guild!", now - 30 * 60_000);
  const second = message(general.id, bob, "Here is the release checklist", now - 20 * 60_000, {
    attachments: [{ id: id(), filename: "checklist.pdf", size: 48213, url: "https://cdn.example/attachments/checklist.pdf", proxy_url: "https://media.example/checklist.pdf", content_type: "application/pdf" }],
    reactions: [{ emoji: { id: null, name: "👍" }, count: 2, count_details: { burst: 0, normal: 2 }, me: false, me_burst: false, burst_colors: [] }],
  });
  const threadStarter = message(general.id, alice, "Shall we plan the launch?", now - 10 * 60_000);
  const reply = message(general.id, bob, "Yes, Friday works", now - 5 * 60_000, {
    type: 19,
    message_reference: { type: 0, message_id: threadStarter.id, channel_id: general.id, guild_id: guild.id },
    embeds: [{ type: "rich", title: "Launch plan", description: "Friday, 10:00", color: 0x2ecc71, fields: [{ name: "Owner", value: "bob", inline: true }] }],
  });
  const thread = channel({
    id: threadStarter.id,
    type: 11,
    name: "launch planning",
    parent_id: general.id,
    owner_id: alice.id,
    message_count: 1,
    member_count: 2,
    thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date(now - 10 * 60_000).toISOString(), locked: false, create_timestamp: new Date(now - 10 * 60_000).toISOString() },
  });
  threadStarter.thread = { id: thread.id, name: thread.name, type: 11 };
  messages.push(first, second, threadStarter, reply);
  general.last_message_id = reply.id;

  const postId = id();
  const forumPost = channel({
    id: postId,
    type: 11,
    name: "How do I configure the allowlist?",
    parent_id: forum.id,
    owner_id: bob.id,
    applied_tags: [forumTag.id],
    message_count: 1,
    member_count: 1,
    thread_metadata: { archived: false, auto_archive_duration: 4320, archive_timestamp: new Date(now).toISOString(), locked: false, create_timestamp: new Date(now).toISOString() },
  });
  const postStarter = message(postId, bob, "I set allowed_guilds but nothing changes.", now - 60_000);
  postStarter.id = postId;

  const webhook = { id: id(), type: 1, guild_id: guild.id, channel_id: general.id, name: "Deploys", avatar: null, token: webhookToken(), application_id: null, user: alice };
  const emoji = { id: id(), name: "platform", roles: [], require_colons: true, managed: false, animated: false, available: true, user: alice };
  const sticker = { id: id(), name: "wave", description: "Hello there", tags: "wave", type: 2, format_type: 1, available: true, guild_id: guild.id, user: alice };
  const event = {
    id: id(),
    guild_id: guild.id,
    channel_id: voice.id,
    creator_id: alice.id,
    name: "Community call",
    description: "Monthly call",
    scheduled_start_time: new Date(now + 7 * 86_400_000).toISOString(),
    scheduled_end_time: null,
    privacy_level: 2,
    status: 1,
    entity_type: 2,
    entity_id: null,
    entity_metadata: null,
    user_count: 1,
  };
  const rule = {
    id: id(),
    guild_id: guild.id,
    name: "No spam links",
    creator_id: alice.id,
    event_type: 1,
    trigger_type: 1,
    trigger_metadata: { keyword_filter: ["*spam.example*"], regex_patterns: [], allow_list: [] },
    actions: [{ type: 1, metadata: { custom_message: "Links to spam.example are blocked" } }],
    enabled: true,
    exempt_roles: [moderatorRole.id],
    exempt_channels: [],
  };
  const command = { id: id(), application_id: applicationId, guild_id: guild.id, name: "status", description: "Show the platform status", type: 1, options: [], default_member_permissions: null, version: id() };

  const world: World = {
    bot,
    applicationId,
    users: new Map([bot, alice, bob].map((u) => [u.id, u])),
    guilds: new Map([
      [guild.id, guild],
      [other.id, other],
    ]),
    channels: new Map([category, general, announcements, locked, voice, forum, thread, forumPost, otherGeneral].map((c) => [c.id, c])),
    messages: new Map([
      [general.id, messages],
      [postId, [postStarter]],
      [thread.id, [message(thread.id, alice, "Draft agenda attached", now - 9 * 60_000)]],
    ]),
    roles: new Map([
      [guild.id, [everyone, memberRole, moderatorRole]],
      [other.id, [{ ...everyone, id: other.id }]],
    ]),
    members: new Map([
      [guild.id, new Map([[bot.id, member(bot, [moderatorRole.id], now - 86_400_000)], [alice.id, member(alice, [moderatorRole.id, memberRole.id], now - 30 * 86_400_000)], [bob.id, member(bob, [memberRole.id], now - 2 * 86_400_000)]])],
      [other.id, new Map([[bot.id, member(bot, [], now - 86_400_000)]])],
    ]),
    bans: new Map([[guild.id, new Map()], [other.id, new Map()]]),
    emojis: new Map([[guild.id, [emoji]], [other.id, []]]),
    stickers: new Map([[guild.id, [sticker]], [other.id, []]]),
    events: new Map([[guild.id, [event]], [other.id, []]]),
    eventUsers: new Map([[event.id, [{ guild_scheduled_event_id: event.id, user: alice }]]]),
    automod: new Map([[guild.id, [rule]], [other.id, []]]),
    commands: new Map([["global", []], [guild.id, [command]]]),
    webhooks: new Map([[webhook.id, webhook]]),
    invites: new Map(),
    auditLog: new Map([[guild.id, []], [other.id, []]]),
    lockedChannels: new Set([locked.id]),
  };
  return {
    world,
    guild,
    other,
    ids: {
      general: general.id,
      announcements: announcements.id,
      locked: locked.id,
      voice: voice.id,
      category: category.id,
      forum: forum.id,
      forumTag: forumTag.id,
      forumPost: postId,
      thread: thread.id,
      alice: alice.id,
      bob: bob.id,
      moderatorRole: moderatorRole.id,
      memberRole: memberRole.id,
      webhook: webhook.id,
      emoji: emoji.id,
      sticker: sticker.id,
      event: event.id,
      rule: rule.id,
      command: command.id,
      firstMessage: first.id,
      otherChannel: otherGeneral.id,
    },
  };
}
