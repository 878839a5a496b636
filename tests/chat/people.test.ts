import { afterAll, beforeAll, expect, test } from "bun:test";
import { PermissionFlagsBits } from "discord-api-types/v10";
import { snowflake } from "../support/discord/world.ts";
import { type ChatHarness, type ChatTools, chatWithTools } from "./harness.ts";

let chat: ChatHarness, tools: ChatTools["tools"], ids: ChatTools["ids"], guildId: string;
beforeAll(async () => void ({ chat, tools, ids, guildId } = await chatWithTools({ ready: true })));
afterAll(() => chat.close());

const member = (userId: string) => chat.discord.world.members.get(guildId)!.get(userId)!;

test("get_member_info and list_members, by id order with a cursor or by name", async () => {
  const { member: alice } = await tools.ok<{ member: any }>("get_member_info", { guildId, userId: ids.alice });
  expect(alice).toMatchObject({ userId: ids.alice, username: "alice", displayName: "Alice", nickname: null, bot: false, roles: [ids.moderatorRole, ids.memberRole], timeoutUntil: null });
  const page = await tools.ok<{ members: any[]; after?: string }>("list_members", { guildId, limit: 2 });
  expect(page.members).toHaveLength(2);
  expect(page.after).toBe(page.members[1].userId);
  const rest = await tools.ok<{ members: any[]; after?: string }>("list_members", { guildId, limit: 2, after: page.after });
  expect(rest.members).toHaveLength(1);
  expect(rest.after).toBeUndefined();
  const byName = await tools.ok<{ members: any[] }>("list_members", { guildId, query: "bo" });
  expect(byName.members.map((m) => m.username)).toEqual(["bob"]);
  expect(await tools.failed("get_member_info", { guildId, userId: snowflake() })).toBe(
    "Error: [InvalidInputError] - Discord refused the request: Unknown Member (code 10007)\n\nResolution: Find the member's user id with list_members.",
  );
  expect(await tools.refused("list_members", { guildId, limit: 1001 })).toContain("Invalid value for limit:");
});

test("set_nickname sets and clears a member's nickname, and the bot's own through @me", async () => {
  expect((await tools.ok<{ member: any }>("set_nickname", { guildId, userId: ids.bob, nickname: "Bobby" })).member.nickname).toBe("Bobby");
  expect(tools.lastRequest().path).toBe(`/guilds/${guildId}/members/${ids.bob}`);
  expect((await tools.ok<{ member: any }>("set_nickname", { guildId, userId: ids.bob, nickname: null })).member.nickname).toBeNull();
  await tools.ok("set_nickname", { guildId, userId: chat.discord.world.bot.id, nickname: "Platform" });
  expect(tools.lastRequest()).toMatchObject({ body: { nick: "Platform" } });
  expect(decodeURIComponent(tools.lastRequest().path)).toBe(`/guilds/${guildId}/members/@me`);
  expect(await tools.refused("set_nickname", { guildId, userId: ids.bob, nickname: "x".repeat(33) })).toContain("Invalid value for nickname:");
});

test("roles are listed, read, created with named permissions, modified, given, taken and deleted", async () => {
  const { roles } = await tools.ok<{ roles: any[] }>("list_roles", { guildId });
  expect(roles.map((r) => r.name)).toEqual(["Moderator", "Member", "@everyone"]);
  const { role: moderator } = await tools.ok<{ role: any }>("get_role_info", { guildId, roleId: ids.moderatorRole });
  expect(moderator.permissions).toEqual(expect.arrayContaining(["Administrator", "ManageRoles", "ViewChannel"]));

  const { role } = await tools.ok<{ role: any }>("create_role", { guildId, name: "Helper", color: 0x2ecc71, hoist: true, permissions: ["ViewChannel", "ManageMessages"], reason: "helpers" });
  expect(role).toMatchObject({ name: "Helper", color: 0x2ecc71, hoist: true, permissions: ["ViewChannel", "ManageMessages"] });
  expect(tools.lastRequest().body!.permissions).toBe((PermissionFlagsBits.ViewChannel | PermissionFlagsBits.ManageMessages).toString());
  expect(await tools.refused("create_role", { guildId, name: "Bad", permissions: ["ManageEverything"] })).toMatch(/Invalid value for permissions\.0: must be one of .*ManageRoles/);

  const modified = await tools.ok<{ role: any }>("modify_role", { guildId, roleId: role.id, name: "Helpers", permissions: ["ViewChannel"] });
  expect(modified.role).toMatchObject({ name: "Helpers", permissions: ["ViewChannel"] });
  expect(await tools.refused("modify_role", { guildId, roleId: role.id })).toContain("give at least one change");

  expect(await tools.ok("assign_role", { guildId, userId: ids.bob, roleId: role.id, reason: "volunteered" })).toEqual({ guildId, userId: ids.bob, roleId: role.id, has: true });
  expect(member(ids.bob).roles).toContain(role.id);
  expect(await tools.ok("remove_role", { guildId, userId: ids.bob, roleId: role.id })).toEqual({ guildId, userId: ids.bob, roleId: role.id, has: false });
  expect(member(ids.bob).roles).not.toContain(role.id);
  expect(await tools.failed("assign_role", { guildId, userId: ids.bob, roleId: snowflake() })).toContain("Find the role's id with list_roles");

  expect(await tools.refused("delete_role", { guildId, roleId: role.id })).toContain("needs confirm: true");
  expect(await tools.ok("delete_role", { guildId, roleId: role.id, confirm: true })).toEqual({ deleted: true, roleId: role.id });
  expect(await tools.failed("delete_role", { guildId, roleId: guildId, confirm: true })).toContain("Cannot delete the @everyone role");
});

test("timeouts up to 28 days are set and lifted; longer ones are refused before sending", async () => {
  const timed = await tools.ok<{ timeoutUntil: string }>("timeout_member", { guildId, userId: ids.bob, durationMinutes: 60, reason: "cool down" });
  expect(Date.parse(timed.timeoutUntil) - Date.now()).toBeWithin(59 * 60_000, 61 * 60_000);
  expect(member(ids.bob).communication_disabled_until).toBe(timed.timeoutUntil);
  expect(tools.lastRequest().reason).toBe("cool down");
  expect(await tools.refused("timeout_member", { guildId, userId: ids.bob, durationMinutes: 40_321 })).toContain("Invalid value for durationMinutes:");
  expect(await tools.ok("remove_timeout", { guildId, userId: ids.bob })).toEqual({ guildId, userId: ids.bob, timeoutUntil: null });
  expect(member(ids.bob).communication_disabled_until).toBeNull();
  expect(await tools.failed("timeout_member", { guildId, userId: ids.alice, durationMinutes: 5 })).toStartWith("Error: [PermissionDeniedError] - Missing Permissions");
});

test("kick and ban need confirm; bans are listed with reasons and lifted", async () => {
  expect(await tools.refused("kick_member", { guildId, userId: ids.bob })).toContain("needs confirm: true");
  expect(await tools.refused("ban_member", { guildId, userId: ids.bob, reason: "spam" })).toContain("needs confirm: true");
  expect(await tools.refused("ban_member", { guildId, userId: ids.bob, deleteMessageSeconds: 604_801, confirm: true })).toContain("Invalid value for deleteMessageSeconds:");

  expect(await tools.ok("ban_member", { guildId, userId: ids.bob, deleteMessageSeconds: 3600, reason: "spam", confirm: true })).toEqual({ guildId, userId: ids.bob, done: "banned" });
  expect(tools.lastRequest()).toMatchObject({ method: "PUT", body: { delete_message_seconds: 3600 }, reason: "spam" });
  expect(member(ids.bob)).toBeUndefined();
  const { bans } = await tools.ok<{ bans: any[] }>("get_bans", { guildId });
  expect(bans).toEqual([{ userId: ids.bob, username: "bob", reason: "spam" }]);
  expect(await tools.ok("unban_member", { guildId, userId: ids.bob, reason: "appeal" })).toEqual({ guildId, userId: ids.bob, done: "unbanned" });
  expect(await tools.failed("unban_member", { guildId, userId: ids.bob })).toContain("The user is not banned; get_bans lists the bans.");

  expect(await tools.ok("kick_member", { guildId, userId: ids.alice, reason: "test", confirm: true })).toEqual({ guildId, userId: ids.alice, done: "kicked" });
  expect(member(ids.alice)).toBeUndefined();
  expect(await tools.failed("kick_member", { guildId, userId: ids.alice, confirm: true })).toContain("Unknown Member");
});
