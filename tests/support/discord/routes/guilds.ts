/** A guild, its members, roles and bans, its audit log, webhooks and invites (Resources > Guild, Audit Log, Webhook, Invite). */
import { ApiError, checkLength, fail, invalidForm, unknown, type Route } from "../api.ts";
import { snowflake, timestampOf, webhookToken, type Json, type World } from "../world.ts";
import { audit, channelOf, guildOf, memberOf, patch, roleOf } from "./lookup.ts";

const guildView = (world: World, guild: Json, counts: boolean) => ({
  ...guild,
  roles: world.roles.get(guild.id) ?? [],
  emojis: world.emojis.get(guild.id) ?? [],
  stickers: world.stickers.get(guild.id) ?? [],
  ...(counts ? { approximate_member_count: world.members.get(guild.id)?.size ?? 0, approximate_presence_count: 1 } : {}),
});

function checkLimit(query: URLSearchParams, max: number, fallback: number): number {
  const limit = Number(query.get("limit") ?? fallback);
  if (!Number.isInteger(limit) || limit < 1 || limit > max) fail(invalidForm("limit", "NUMBER_TYPE_MAX", `int value should be less than or equal to ${max}.`));
  return limit;
}

const afterId = (query: URLSearchParams) => BigInt(query.get("after") ?? "0");

function webhookOf(world: World, id: string): Json {
  return world.webhooks.get(id) ?? fail(unknown.webhook());
}

export const guildRoutes: Route[] = [
  { method: "GET", path: "/guilds/:guild_id", handler: ({ world, params, query }) => guildView(world, guildOf(world, params.guild_id!), query.get("with_counts") === "true") },
  {
    method: "PATCH",
    path: "/guilds/:guild_id",
    handler: ({ world, params, body, reason }) => {
      const guild = guildOf(world, params.guild_id!);
      checkLength(body, "name", 2, 100);
      if (body.verification_level !== undefined && ![0, 1, 2, 3, 4].includes(body.verification_level)) fail(invalidForm("verification_level", "BASE_TYPE_CHOICES", "Value must be one of {0, 1, 2, 3, 4}."));
      for (const key of ["system_channel_id", "afk_channel_id"]) {
        const id = body[key];
        if (id && world.channels.get(id)?.guild_id !== guild.id) fail(invalidForm(key, "CHANNEL_INVALID", "Unknown channel"));
      }
      const changes = ["name", "description", "verification_level", "default_message_notifications", "system_channel_id", "afk_channel_id", "afk_timeout"].filter((k) => body[k] !== undefined);
      patch(guild, body, changes);
      audit(world, guild.id, 1, guild.id, reason, changes.map((key) => ({ key, new_value: body[key] })));
      return guildView(world, guild, false);
    },
  },
  {
    method: "GET",
    path: "/guilds/:guild_id/audit-logs",
    handler: ({ world, params, query }) => {
      const guild = guildOf(world, params.guild_id!);
      const limit = checkLimit(query, 100, 50);
      const user = query.get("user_id");
      const action = query.get("action_type");
      const before = query.get("before");
      const entries = (world.auditLog.get(guild.id) ?? [])
        .filter((e) => (!user || e.user_id === user) && (!action || e.action_type === Number(action)) && (!before || BigInt(e.id) < BigInt(before)))
        .slice(0, limit);
      return { audit_log_entries: entries, users: [world.bot], integrations: [], webhooks: [], guild_scheduled_events: [], threads: [], application_commands: [], auto_moderation_rules: [] };
    },
  },

  // --- members ---
  {
    method: "GET",
    path: "/guilds/:guild_id/members",
    handler: ({ world, params, query }) => {
      const guild = guildOf(world, params.guild_id!);
      const limit = checkLimit(query, 1000, 1);
      const after = afterId(query);
      return [...world.members.get(guild.id)!.values()].filter((m) => BigInt(m.user.id) > after).sort((a, b) => (BigInt(a.user.id) < BigInt(b.user.id) ? -1 : 1)).slice(0, limit);
    },
  },
  {
    method: "GET",
    path: "/guilds/:guild_id/members/search",
    handler: ({ world, params, query }) => {
      const guild = guildOf(world, params.guild_id!);
      const limit = checkLimit(query, 1000, 1);
      const prefix = (query.get("query") ?? fail(invalidForm("query", "BASE_TYPE_REQUIRED", "This field is required"))).toLowerCase();
      return [...world.members.get(guild.id)!.values()].filter((m) => m.user.username.startsWith(prefix) || m.nick?.toLowerCase().startsWith(prefix)).slice(0, limit);
    },
  },
  { method: "GET", path: "/guilds/:guild_id/members/:user_id", handler: ({ world, params }) => memberOf(world, params.guild_id!, params.user_id!) },
  {
    method: "PATCH",
    path: "/guilds/:guild_id/members/:user_id",
    handler: ({ world, params, body, reason }) => {
      const userId = params.user_id === "@me" ? world.bot.id : params.user_id!;
      const member = memberOf(world, params.guild_id!, userId);
      if (params.user_id === "@me" && Object.keys(body).some((k) => k !== "nick")) fail(invalidForm(Object.keys(body).find((k) => k !== "nick")!, "BASE_TYPE_INVALID", "Not allowed for the current member"));
      checkLength(body, "nick", 0, 32);
      const until = body.communication_disabled_until;
      if (until && Date.parse(until) - Date.now() > 28 * 86_400_000 + 60_000)
        fail(invalidForm("communication_disabled_until", "BASE_TYPE_BAD_TIME", "Timeouts can be at most 28 days"));
      if (userId === guildOf(world, params.guild_id!).owner_id && until !== undefined) fail(new ApiError(403, 50013, "Missing Permissions"));
      patch(member, body, ["nick", "communication_disabled_until"]);
      audit(world, params.guild_id!, 24, userId, reason);
      return member;
    },
  },
  {
    method: "DELETE",
    path: "/guilds/:guild_id/members/:user_id",
    handler: ({ world, params, reason }) => {
      memberOf(world, params.guild_id!, params.user_id!);
      world.members.get(params.guild_id!)!.delete(params.user_id!);
      audit(world, params.guild_id!, 20, params.user_id!, reason);
      return null;
    },
  },
  ...(["PUT", "DELETE"] as const).map(
    (method): Route => ({
      method,
      path: "/guilds/:guild_id/members/:user_id/roles/:role_id",
      handler: ({ world, params, reason }) => {
        const member = memberOf(world, params.guild_id!, params.user_id!);
        const role = roleOf(world, params.guild_id!, params.role_id!);
        if (role.managed) fail(new ApiError(403, 50013, "Missing Permissions"));
        member.roles = method === "PUT" ? [...new Set([...member.roles, role.id])] : member.roles.filter((r: string) => r !== role.id);
        audit(world, params.guild_id!, 25, member.user.id, reason, [{ key: method === "PUT" ? "$add" : "$remove", new_value: [{ id: role.id, name: role.name }] }]);
        return null;
      },
    }),
  ),

  // --- roles ---
  { method: "GET", path: "/guilds/:guild_id/roles", handler: ({ world, params }) => world.roles.get(guildOf(world, params.guild_id!).id) },
  { method: "GET", path: "/guilds/:guild_id/roles/:role_id", handler: ({ world, params }) => roleOf(world, params.guild_id!, params.role_id!) },
  {
    method: "POST",
    path: "/guilds/:guild_id/roles",
    handler: ({ world, params, body, reason }) => {
      const guild = guildOf(world, params.guild_id!);
      checkLength(body, "name", 1, 100);
      const roles = world.roles.get(guild.id)!;
      const role = { id: snowflake(), name: body.name ?? "new role", color: body.color ?? 0, hoist: body.hoist ?? false, position: 1, permissions: body.permissions ?? "0", managed: false, mentionable: body.mentionable ?? false, flags: 0 };
      for (const other of roles) if (other.position >= 1 && other.id !== guild.id) other.position++;
      roles.push(role);
      audit(world, guild.id, 30, role.id, reason);
      return role;
    },
  },
  {
    method: "PATCH",
    path: "/guilds/:guild_id/roles/:role_id",
    handler: ({ world, params, body, reason }) => {
      const role = roleOf(world, params.guild_id!, params.role_id!);
      checkLength(body, "name", 1, 100);
      if (body.permissions !== undefined && !/^\d+$/.test(String(body.permissions))) fail(invalidForm("permissions", "BASE_TYPE_NUMBER", "Value is not a valid permission set."));
      patch(role, body, ["name", "color", "hoist", "mentionable", "permissions"]);
      audit(world, params.guild_id!, 31, role.id, reason);
      return role;
    },
  },
  {
    method: "DELETE",
    path: "/guilds/:guild_id/roles/:role_id",
    handler: ({ world, params, reason }) => {
      const role = roleOf(world, params.guild_id!, params.role_id!);
      if (role.id === params.guild_id) fail(invalidForm("role_id", "ROLE_EVERYONE", "Cannot delete the @everyone role"));
      world.roles.set(params.guild_id!, world.roles.get(params.guild_id!)!.filter((r) => r !== role));
      for (const member of world.members.get(params.guild_id!)!.values()) member.roles = member.roles.filter((r: string) => r !== role.id);
      audit(world, params.guild_id!, 32, role.id, reason);
      return null;
    },
  },

  // --- bans ---
  {
    method: "GET",
    path: "/guilds/:guild_id/bans",
    handler: ({ world, params, query }) => {
      const guild = guildOf(world, params.guild_id!);
      const limit = checkLimit(query, 1000, 1000);
      const after = afterId(query);
      return [...world.bans.get(guild.id)!.values()].filter((b) => BigInt(b.user.id) > after).slice(0, limit);
    },
  },
  {
    method: "PUT",
    path: "/guilds/:guild_id/bans/:user_id",
    handler: ({ world, params, body, reason }) => {
      const guild = guildOf(world, params.guild_id!);
      const user = world.users.get(params.user_id!) ?? fail(unknown.user());
      const seconds = body.delete_message_seconds ?? 0;
      if (seconds < 0 || seconds > 604_800) fail(invalidForm("delete_message_seconds", "NUMBER_TYPE_MAX", "int value should be less than or equal to 604800."));
      world.bans.get(guild.id)!.set(user.id, { user, reason: reason ?? null });
      world.members.get(guild.id)!.delete(user.id);
      if (seconds > 0)
        for (const [channel, messages] of world.messages)
          if (world.channels.get(channel)?.guild_id === guild.id) world.messages.set(channel, messages.filter((m) => m.author.id !== user.id || Date.now() - timestampOf(m.id) > seconds * 1000));
      audit(world, guild.id, 22, user.id, reason);
      return null;
    },
  },
  {
    method: "DELETE",
    path: "/guilds/:guild_id/bans/:user_id",
    handler: ({ world, params, reason }) => {
      const bans = world.bans.get(guildOf(world, params.guild_id!).id)!;
      if (!bans.delete(params.user_id!)) fail(unknown.ban());
      audit(world, params.guild_id!, 23, params.user_id!, reason);
      return null;
    },
  },

  // --- webhooks ---
  { method: "GET", path: "/guilds/:guild_id/webhooks", handler: ({ world, params }) => [...world.webhooks.values()].filter((w) => w.guild_id === guildOf(world, params.guild_id!).id) },
  { method: "GET", path: "/channels/:channel_id/webhooks", handler: ({ world, params }) => [...world.webhooks.values()].filter((w) => w.channel_id === channelOf(world, params.channel_id!).id) },
  {
    method: "POST",
    path: "/channels/:channel_id/webhooks",
    handler: ({ world, params, body, reason }) => {
      const channel = channelOf(world, params.channel_id!, true);
      checkLength(body, "name", 1, 80, true);
      if (/clyde|discord/i.test(body.name)) fail(invalidForm("name", "WEBHOOK_INVALID_NAME", "Webhook names cannot contain 'clyde' or 'discord'"));
      const webhook = { id: snowflake(), type: 1, guild_id: channel.guild_id, channel_id: channel.id, name: body.name, avatar: null, token: webhookToken(), application_id: null, user: world.bot };
      world.webhooks.set(webhook.id, webhook);
      audit(world, channel.guild_id, 50, webhook.id, reason);
      return webhook;
    },
  },
  { method: "GET", path: "/webhooks/:webhook_id", handler: ({ world, params }) => webhookOf(world, params.webhook_id!) },
  {
    method: "POST",
    path: "/webhooks/:webhook_id/:webhook_token",
    auth: false,
    handler: ({ world, params, body, query }) => {
      const webhook = webhookOf(world, params.webhook_id!);
      if (webhook.token !== params.webhook_token) fail(new ApiError(401, 50027, "Invalid Webhook Token"));
      checkLength(body, "content", 0, 2000);
      if (!body.content && !body.embeds?.length) fail(new ApiError(400, 50006, "Cannot send an empty message"));
      const channelId = query.get("thread_id") ?? webhook.channel_id;
      const id = snowflake();
      const message = { id, channel_id: channelId, webhook_id: webhook.id, author: { id: webhook.id, username: body.username ?? webhook.name, avatar: null, bot: true, discriminator: "0000", global_name: null }, content: body.content ?? "", timestamp: new Date(timestampOf(id)).toISOString(), edited_timestamp: null, attachments: [], embeds: body.embeds ?? [], mentions: [], mention_roles: [], mention_everyone: false, tts: false, pinned: false, type: 0, flags: 0 };
      (world.messages.get(channelId) ?? world.messages.set(channelId, []).get(channelId)!).push(message);
      return query.get("wait") === "true" ? message : null;
    },
  },

  // --- invites ---
  { method: "GET", path: "/guilds/:guild_id/invites", handler: ({ world, params }) => [...world.invites.values()].filter((i) => i.guild?.id === guildOf(world, params.guild_id!).id) },
  {
    method: "POST",
    path: "/channels/:channel_id/invites",
    handler: ({ world, params, body, reason }) => {
      const channel = channelOf(world, params.channel_id!, true);
      const maxAge = body.max_age ?? 86_400;
      if (maxAge < 0 || maxAge > 604_800) fail(invalidForm("max_age", "NUMBER_TYPE_MAX", "int value should be less than or equal to 604800."));
      if ((body.max_uses ?? 0) > 100) fail(invalidForm("max_uses", "NUMBER_TYPE_MAX", "int value should be less than or equal to 100."));
      const guild = world.guilds.get(channel.guild_id)!;
      const invite = {
        type: 0,
        code: Math.random().toString(36).slice(2, 10),
        guild: { id: guild.id, name: guild.name },
        channel: { id: channel.id, name: channel.name, type: channel.type },
        inviter: world.bot,
        uses: 0,
        max_uses: body.max_uses ?? 0,
        max_age: maxAge,
        temporary: body.temporary ?? false,
        created_at: new Date().toISOString(),
        expires_at: maxAge ? new Date(Date.now() + maxAge * 1000).toISOString() : null,
      };
      world.invites.set(invite.code, invite);
      audit(world, guild.id, 40, channel.id, reason);
      return invite;
    },
  },
];
