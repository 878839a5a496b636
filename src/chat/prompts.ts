/**
 * The chat server's prompts: ready-made tasks that walk an assistant through the tools, the way a community
 * moderator would do them. Each says what to read first, what to change, and to ask before anything destructive.
 */
import { Type } from "@sinclair/typebox";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { definePrompt, type Completer, type Prompt } from "../mcp/define.ts";

const ask = (text: string): GetPromptResult => ({ messages: [{ role: "user", content: { type: "text", text } }] });
const GuildId = Type.String({ description: "The guild's (server's) id" });
const ChannelId = Type.String({ description: "The channel's id" });

const levels: Record<string, string> = {
  light: "Only act on clear abuse (slurs, threats, spam floods). Prefer a friendly reminder over any sanction.",
  standard: "Act on abuse, harassment, spam and repeated off-topic posting. Warn first; time out repeat offenders for up to an hour.",
  strict: "Hold the channel to its topic and rules. Remove off-topic or low-effort posts, and time out after one warning.",
};

export const chatPrompts = (completeGuild: Completer): Prompt[] => [
  definePrompt({
    name: "moderate-channel",
    title: "Moderate a channel",
    description: "Review a channel's recent messages against its rules and propose (then, once agreed, take) moderation steps.",
    arguments: Type.Object({ guildId: GuildId, channelId: ChannelId, moderationLevel: Type.Optional(Type.String({ description: "light, standard (default) or strict" })) }),
    complete: { guildId: completeGuild, moderationLevel: async (typed) => Object.keys(levels).filter((level) => level.startsWith(typed)) },
    get: async ({ guildId, channelId, moderationLevel = "standard" }) =>
      ask(
        [
          `Moderate channel ${channelId} in guild ${guildId} at the ${levels[moderationLevel] ? moderationLevel : "standard"} level.`,
          levels[moderationLevel] ?? levels.standard,
          "1. Read the channel with get_channel_details (its topic often states the rules) and read_messages (page back with `before` for the last day).",
          "2. Check the guild's AutoMod rules with list_automod_rules so you do not duplicate what already runs.",
          "3. List each problem: the message id, the author, what rule it breaks, and the step you propose (reply, delete_message, timeout_member, kick_member, ban_member).",
          "4. Ask me before any deletion, timeout, kick or ban; then act with a short audit-log reason on each.",
          "5. If a pattern keeps coming back, propose an AutoMod rule (create_automod_rule) instead of handling it by hand.",
        ].join("\n"),
      ),
  }),
  definePrompt({
    name: "setup-server",
    title: "Set up a server",
    description: "Plan and build a guild's categories, channels, roles and permissions for a stated purpose.",
    arguments: Type.Object({ guildId: GuildId, serverPurpose: Type.String({ description: "What the server is for, e.g. an open-source project's community" }) }),
    complete: { guildId: completeGuild },
    get: async ({ guildId, serverPurpose }) =>
      ask(
        [
          `Set up guild ${guildId} for this purpose: ${serverPurpose}.`,
          "1. Read what exists: get_server_info, list_channels, list_roles.",
          "2. Propose a layout: categories (create_category), text, forum, voice and stage channels, roles with the permissions each needs (by name, e.g. ViewChannel, SendMessages, ManageMessages), and channel overwrites for private areas.",
          "3. Show me the plan as a short tree, and wait for my go-ahead.",
          "4. Build it in order: roles first (create_role), then categories, then channels with parentId, then set_channel_permissions. Keep what already exists unless I agreed to change it.",
          "5. Finish with a welcome message (send_rich_message) in the main channel and report what was created.",
        ].join("\n"),
      ),
  }),
  definePrompt({
    name: "create-announcement",
    title: "Write an announcement",
    description: "Draft an announcement as a rich embed, show it, and post it once approved.",
    arguments: Type.Object({
      channelId: ChannelId,
      topic: Type.String({ description: "What to announce" }),
      tone: Type.Optional(Type.String({ description: "e.g. formal, friendly, celebratory" })),
      mentionEveryone: Type.Optional(Type.String({ description: "yes to notify everyone" })),
    }),
    get: async ({ channelId, topic, tone = "friendly", mentionEveryone = "no" }) =>
      ask(
        [
          `Write an announcement about: ${topic}. Tone: ${tone}.`,
          `It goes to channel ${channelId}. Read its last messages (read_messages, limit 10) to match how announcements there usually look.`,
          "Draft one embed: a title of at most 256 characters, a description of at most 4096, up to 25 fields for dates, links or steps, and a colour. Show me the draft.",
          `Once I approve, post it with send_rich_message${mentionEveryone.toLowerCase().startsWith("y") ? " and mentionEveryone: true (the text must contain @everyone)" : " (no @everyone)"}, then pin it with pin_message if I ask.`,
        ].join("\n"),
      ),
  }),
  definePrompt({
    name: "plan-event",
    title: "Plan an event",
    description: "Plan a community event: pick the place, schedule it, announce it and report who is interested.",
    arguments: Type.Object({
      guildId: GuildId,
      eventName: Type.String({ description: "What the event is" }),
      when: Type.Optional(Type.String({ description: "When it takes place, in any words or ISO 8601" })),
    }),
    complete: { guildId: completeGuild },
    get: async ({ guildId, eventName, when }) =>
      ask(
        [
          `Plan the event "${eventName}" in guild ${guildId}${when ? `, taking place ${when}` : ""}.`,
          "1. Check list_scheduled_events for clashes, and list_channels (type stage or voice) for a place; an event elsewhere is external with a location.",
          "2. Propose the name, description, start and end time (ISO 8601, in the future) and place; wait for my approval.",
          "3. Create it with create_scheduled_event, announce it with send_rich_message in the channel I name, and tell me its id.",
          "4. Later, get_event_users tells who is interested; modify_scheduled_event starts, ends or cancels it.",
        ].join("\n"),
      ),
  }),
  definePrompt({
    name: "audit-permissions",
    title: "Audit permissions",
    description: "Review roles and channel overwrites for risky or inconsistent permissions and propose fixes.",
    arguments: Type.Object({ guildId: GuildId, roleId: Type.Optional(Type.String({ description: "Audit one role only" })) }),
    complete: { guildId: completeGuild },
    get: async ({ guildId, roleId }) =>
      ask(
        [
          `Audit the permissions of guild ${guildId}${roleId ? `, for role ${roleId}` : ""}.`,
          "1. Read list_roles (permissions by name) and, for each channel from list_channels, get_channel_details for its overwrites.",
          "2. Flag: roles with Administrator, ManageGuild, ManageRoles, BanMembers, KickMembers or MentionEveryone that few should have; @everyone allowed more than it needs; overwrites that allow what the role denies guild-wide; private channels visible to @everyone.",
          "3. Check get_audit_logs for recent role and overwrite changes (action types 30-32, 13-15) to see who changed what.",
          "4. Report each finding with its risk and the fix (modify_role, set_channel_permissions). Change nothing until I agree.",
        ].join("\n"),
      ),
  }),
];
