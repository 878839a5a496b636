/** Moderation: kick, ban and unban, time out and lift a timeout, list bans. */
import { Type } from "@sinclair/typebox";
import { Routes } from "discord-api-types/rest/v10";
import type { APIBan, APIGuildMember } from "discord-api-types/v10";
import { Confirm, GuildId, Reason, UserId } from "../model.ts";
import { BanView, banView } from "../views.ts";
import { chatTool } from "./tool.ts";

/** Discord's longest timeout: 28 days. */
const maxTimeoutMinutes = 28 * 24 * 60;
const guildScope = ({ guildId }: { guildId: string }) => ({ guildId });
const Outcome = Type.Object({ guildId: Type.String(), userId: Type.String(), done: Type.String() });
const Timeout = Type.Object({ guildId: Type.String(), userId: Type.String(), timeoutUntil: Type.Union([Type.String(), Type.Null()]) });

export const moderationTools = [
  chatTool({
    name: "kick_member",
    title: "Kick a member",
    description: "Remove a member from the guild; they can join again with an invite. Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ guildId: GuildId, userId: UserId, reason: Reason, confirm: Confirm }),
    output: Outcome,
    scope: guildScope,
    async run({ guildId, userId, reason }, rest) {
      await rest.delete(Routes.guildMember(guildId, userId), { reason });
      return { guildId, userId, done: "kicked" };
    },
  }),
  chatTool({
    name: "ban_member",
    title: "Ban a member",
    description: "Ban a user from the guild (they need not be a member), optionally deleting their messages of the last deleteMessageSeconds (up to 7 days). Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({
      guildId: GuildId,
      userId: UserId,
      deleteMessageSeconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 604_800 })),
      reason: Reason,
      confirm: Confirm,
    }),
    output: Outcome,
    scope: guildScope,
    async run({ guildId, userId, deleteMessageSeconds, reason }, rest) {
      await rest.put(Routes.guildBan(guildId, userId), { body: { delete_message_seconds: deleteMessageSeconds }, reason });
      return { guildId, userId, done: "banned" };
    },
  }),
  chatTool({
    name: "unban_member",
    title: "Lift a ban",
    description: "Lift a user's ban.",
    kind: "write",
    input: Type.Object({ guildId: GuildId, userId: UserId, reason: Reason }),
    output: Outcome,
    scope: guildScope,
    async run({ guildId, userId, reason }, rest) {
      await rest.delete(Routes.guildBan(guildId, userId), { reason });
      return { guildId, userId, done: "unbanned" };
    },
  }),
  chatTool({
    name: "timeout_member",
    title: "Time out a member",
    description: "Time a member out for 1 minute to 28 days: they cannot write, react, speak or join voice until it ends.",
    kind: "write",
    input: Type.Object({ guildId: GuildId, userId: UserId, durationMinutes: Type.Integer({ minimum: 1, maximum: maxTimeoutMinutes, description: "1 to 40320 (28 days)" }), reason: Reason }),
    output: Timeout,
    scope: guildScope,
    async run({ guildId, userId, durationMinutes, reason }, rest) {
      const until = new Date(Date.now() + durationMinutes * 60_000).toISOString();
      const member = (await rest.patch(Routes.guildMember(guildId, userId), { body: { communication_disabled_until: until }, reason })) as APIGuildMember;
      return { guildId, userId, timeoutUntil: member.communication_disabled_until ?? until };
    },
  }),
  chatTool({
    name: "remove_timeout",
    title: "Lift a timeout",
    description: "End a member's timeout now.",
    kind: "write",
    input: Type.Object({ guildId: GuildId, userId: UserId, reason: Reason }),
    output: Timeout,
    scope: guildScope,
    async run({ guildId, userId, reason }, rest) {
      await rest.patch(Routes.guildMember(guildId, userId), { body: { communication_disabled_until: null }, reason });
      return { guildId, userId, timeoutUntil: null };
    },
  }),
  chatTool({
    name: "get_bans",
    title: "List bans",
    description: "List a guild's bans with their reasons, up to 1000 at a time (continue with `after`).",
    kind: "read",
    input: Type.Object({ guildId: GuildId, limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }), after: Type.Optional(UserId) }),
    output: Type.Object({ bans: Type.Array(BanView), after: Type.Optional(Type.String()) }),
    scope: guildScope,
    async run({ guildId, limit, after }, rest) {
      const query = new URLSearchParams({ limit: String(limit), ...(after ? { after } : {}) });
      const bans = ((await rest.get(Routes.guildBans(guildId), { query })) as APIBan[]).map(banView);
      return { bans, after: bans.length === limit ? bans.at(-1)?.userId : undefined };
    },
  }),
];
