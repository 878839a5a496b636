/** Finding things in the stand-in's world the way Discord answers when they are missing or off-limits. */
import { fail, missingAccess, missingPermissions, unknown } from "../api.ts";
import { snowflake, type Json, type World } from "../world.ts";

/** A channel the bot may use; `write` picks 50013 over 50001 for a channel it is locked out of. */
export function channelOf(world: World, id: string, write = false): Json {
  const channel = world.channels.get(id) ?? fail(unknown.channel());
  if (world.lockedChannels.has(id)) fail(write ? missingPermissions() : missingAccess());
  return channel;
}

export const guildOf = (world: World, id: string) => world.guilds.get(id) ?? fail(unknown.guild());

export function messagesOf(world: World, channelId: string): Json[] {
  let messages = world.messages.get(channelId);
  if (!messages) world.messages.set(channelId, (messages = []));
  return messages;
}

export const messageOf = (world: World, channelId: string, id: string) => messagesOf(world, channelId).find((m) => m.id === id) ?? fail(unknown.message());

export const memberOf = (world: World, guildId: string, userId: string) => world.members.get(guildOf(world, guildId).id)?.get(userId) ?? fail(unknown.member());

export const roleOf = (world: World, guildId: string, roleId: string) => (world.roles.get(guildOf(world, guildId).id) ?? []).find((r) => r.id === roleId) ?? fail(unknown.role());

/** Records an audit-log entry (Resources > Audit Log) for a change the bot made. */
export function audit(world: World, guildId: string, actionType: number, targetId: string | null, reason?: string, changes?: Json[]): void {
  const entries = world.auditLog.get(guildId) ?? [];
  world.auditLog.set(guildId, entries);
  entries.unshift({ id: snowflake(), action_type: actionType, user_id: world.bot.id, target_id: targetId, ...(reason ? { reason } : {}), ...(changes ? { changes } : {}) });
}

/** Copies the fields of `body` that are present (not undefined) onto `target`. */
export function patch(target: Json, body: Json, fields: string[]): void {
  for (const field of fields) if (body[field] !== undefined) target[field] = body[field];
}
