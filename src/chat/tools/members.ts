/** Members: read one, list or search them, set a nickname. */
import { Type } from "@sinclair/typebox";
import { Routes } from "discord-api-types/rest/v10";
import type { APIGuildMember } from "discord-api-types/v10";
import { GuildId, Reason, UserId } from "../model.ts";
import { MemberView, memberView } from "../views.ts";
import { chatTool } from "./tool.ts";

export const memberTools = [
  chatTool({
    name: "get_member_info",
    title: "Member information",
    description: "Read a guild member: username, display name, nickname, roles, when they joined, and a timeout if one runs.",
    kind: "read",
    input: Type.Object({ guildId: GuildId, userId: UserId }),
    output: Type.Object({ member: MemberView }),
    scope: ({ guildId }) => ({ guildId }),
    run: async ({ guildId, userId }, rest) => ({ member: memberView((await rest.get(Routes.guildMember(guildId, userId))) as APIGuildMember) }),
  }),
  chatTool({
    name: "list_members",
    title: "List members",
    description:
      "List a guild's members in id order, up to 1000 at a time (continue with `after`), or find them by the start of their username or nickname " +
      "with query. Listing needs the Server Members privileged intent enabled for the bot.",
    kind: "read",
    input: Type.Object({
      guildId: GuildId,
      query: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Start of a username or nickname" })),
      limit: Type.Integer({ minimum: 1, maximum: 1000, default: 100 }),
      after: Type.Optional(UserId),
    }),
    output: Type.Object({ members: Type.Array(MemberView), after: Type.Optional(Type.String()) }),
    scope: ({ guildId }) => ({ guildId }),
    async run({ guildId, query, limit, after }, rest) {
      const params = new URLSearchParams({ limit: String(query ? Math.min(limit, 1000) : limit) });
      if (query) params.set("query", query);
      else if (after) params.set("after", after);
      const members = ((await rest.get(query ? Routes.guildMembersSearch(guildId) : Routes.guildMembers(guildId), { query: params })) as APIGuildMember[]).map(memberView);
      return { members, after: !query && members.length === limit ? members.at(-1)?.userId : undefined };
    },
  }),
  chatTool({
    name: "set_nickname",
    title: "Set a nickname",
    description: "Set a member's nickname in a guild (the bot's own too); null or an empty string clears it.",
    kind: "write",
    input: Type.Object({ guildId: GuildId, userId: UserId, nickname: Type.Union([Type.String({ maxLength: 32 }), Type.Null()]), reason: Reason }),
    output: Type.Object({ member: MemberView }),
    scope: ({ guildId }) => ({ guildId }),
    async run({ guildId, userId, nickname, reason }, rest, chat) {
      const own = userId === (await chat.botUserId(rest));
      const member = (await rest.patch(own ? Routes.guildMember(guildId, "@me") : Routes.guildMember(guildId, userId), { body: { nick: nickname || null }, reason })) as APIGuildMember;
      return { member: memberView(member) };
    },
  }),
];
