/** Roles: list, read, create, modify, delete, and give to or take from a member. Permissions go by their Discord names. */
import { Type } from "@sinclair/typebox";
import { Routes } from "discord-api-types/rest/v10";
import type { APIRole } from "discord-api-types/v10";
import { invalidInput } from "../errors.ts";
import { bitsOf, Colour, Confirm, GuildId, Permissions, Reason, RoleId, UserId } from "../model.ts";
import { RoleView, roleView } from "../views.ts";
import { chatTool } from "./tool.ts";

const RoleFields = {
  color: Type.Optional(Colour),
  hoist: Type.Optional(Type.Boolean({ description: "Show its members apart in the member list" })),
  mentionable: Type.Optional(Type.Boolean()),
  permissions: Type.Optional(Permissions),
};
const roleBody = (args: { name?: string; color?: number; hoist?: boolean; mentionable?: boolean; permissions?: string[] }) => ({
  name: args.name,
  color: args.color,
  hoist: args.hoist,
  mentionable: args.mentionable,
  permissions: args.permissions && bitsOf(args.permissions),
});
const RoleName = Type.String({ minLength: 1, maxLength: 100 });
const guildScope = ({ guildId }: { guildId: string }) => ({ guildId });
const Membership = Type.Object({ guildId: Type.String(), userId: Type.String(), roleId: Type.String(), has: Type.Boolean() });

export const roleTools = [
  chatTool({
    name: "list_roles",
    title: "List roles",
    description: "List a guild's roles, highest first, with their permissions by name.",
    kind: "read",
    input: Type.Object({ guildId: GuildId }),
    output: Type.Object({ roles: Type.Array(RoleView) }),
    scope: guildScope,
    run: async ({ guildId }, rest, chat) => ({ roles: await chat.roles(rest, guildId) }),
  }),
  chatTool({
    name: "get_role_info",
    title: "Role information",
    description: "Read one role: colour, position, whether it is hoisted, mentionable or managed by an integration, and its permissions by name.",
    kind: "read",
    input: Type.Object({ guildId: GuildId, roleId: RoleId }),
    output: Type.Object({ role: RoleView }),
    scope: guildScope,
    run: async ({ guildId, roleId }, rest) => ({ role: roleView((await rest.get(Routes.guildRole(guildId, roleId))) as APIRole) }),
  }),
  chatTool({
    name: "create_role",
    title: "Create a role",
    description: "Create a role with a name, colour and permissions (by name: ViewChannel, SendMessages, ManageMessages, ...).",
    kind: "write",
    input: Type.Object({ guildId: GuildId, name: RoleName, ...RoleFields, reason: Reason }),
    output: Type.Object({ role: RoleView }),
    scope: guildScope,
    run: async (args, rest) => ({ role: roleView((await rest.post(Routes.guildRoles(args.guildId), { body: roleBody(args), reason: args.reason })) as APIRole) }),
  }),
  chatTool({
    name: "modify_role",
    title: "Modify a role",
    description: "Change a role's name, colour, hoisting, mentionability or permissions (the list given replaces the role's permissions).",
    kind: "write",
    input: Type.Object({ guildId: GuildId, roleId: RoleId, name: Type.Optional(RoleName), ...RoleFields, reason: Reason }),
    output: Type.Object({ role: RoleView }),
    scope: guildScope,
    check: ({ guildId: _g, roleId: _r, reason: _why, ...changes }) => {
      if (Object.values(changes).every((value) => value === undefined)) throw invalidInput("name", "give at least one change (name, color, hoist, mentionable, permissions)");
    },
    run: async (args, rest) => ({ role: roleView((await rest.patch(Routes.guildRole(args.guildId, args.roleId), { body: roleBody(args), reason: args.reason })) as APIRole) }),
  }),
  chatTool({
    name: "delete_role",
    title: "Delete a role",
    description: "Delete a role; its members lose it. Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ guildId: GuildId, roleId: RoleId, reason: Reason, confirm: Confirm }),
    output: Type.Object({ deleted: Type.Literal(true), roleId: Type.String() }),
    scope: guildScope,
    async run({ guildId, roleId, reason }, rest) {
      await rest.delete(Routes.guildRole(guildId, roleId), { reason });
      return { deleted: true as const, roleId };
    },
  }),
  chatTool({
    name: "assign_role",
    title: "Give a role",
    description: "Give a member a role. The bot's highest role must be above it.",
    kind: "write",
    input: Type.Object({ guildId: GuildId, userId: UserId, roleId: RoleId, reason: Reason }),
    output: Membership,
    scope: guildScope,
    async run({ guildId, userId, roleId, reason }, rest) {
      await rest.put(Routes.guildMemberRole(guildId, userId, roleId), { reason });
      return { guildId, userId, roleId, has: true };
    },
  }),
  chatTool({
    name: "remove_role",
    title: "Take a role",
    description: "Take a role from a member.",
    kind: "write",
    input: Type.Object({ guildId: GuildId, userId: UserId, roleId: RoleId, reason: Reason }),
    output: Membership,
    scope: guildScope,
    async run({ guildId, userId, roleId, reason }, rest) {
      await rest.delete(Routes.guildMemberRole(guildId, userId, roleId), { reason });
      return { guildId, userId, roleId, has: false };
    },
  }),
];
