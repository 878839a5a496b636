/** Scheduled events, AutoMod rules and application commands (Resources > Guild Scheduled Event, Auto Moderation; Interactions > Application Commands). */
import { checkLength, fail, invalidForm, unknown, type ApiError, type Route } from "../api.ts";
import { snowflake, type Json, type World } from "../world.ts";
import { audit, channelOf, guildOf } from "./lookup.ts";

const find = (list: Json[], id: string, missing: () => ApiError) => list.find((item) => item.id === id) ?? fail(missing());
const eventsOf = (world: World, guildId: string) => world.events.get(guildOf(world, guildId).id)!;
const rulesOf = (world: World, guildId: string) => world.automod.get(guildOf(world, guildId).id)!;

function checkEvent(world: World, guildId: string, event: Json): void {
  if (Date.parse(event.scheduled_start_time) <= Date.now()) fail(invalidForm("scheduled_start_time", "GUILD_SCHEDULED_EVENT_SCHEDULE_PAST", "Cannot schedule event in the past"));
  if (event.entity_type === 3) {
    if (!event.entity_metadata?.location) fail(invalidForm("entity_metadata.location", "BASE_TYPE_REQUIRED", "This field is required"));
    if (!event.scheduled_end_time) fail(invalidForm("scheduled_end_time", "BASE_TYPE_REQUIRED", "This field is required"));
  } else {
    const channel = channelOf(world, event.channel_id ?? fail(invalidForm("channel_id", "BASE_TYPE_REQUIRED", "This field is required")));
    const wanted = event.entity_type === 1 ? 13 : 2;
    if (channel.guild_id !== guildId || channel.type !== wanted) fail(invalidForm("channel_id", "CHANNEL_TYPE_INVALID", `Channel must be a ${wanted === 13 ? "stage" : "voice"} channel`));
  }
}

/** Where a guild's or the global commands of the application live. */
const commandsOf = (world: World, params: Record<string, string>) => {
  if (params.application_id !== world.applicationId) fail(invalidForm("application_id", "APPLICATION_INVALID", "Unknown application"));
  const key = params.guild_id ? guildOf(world, params.guild_id).id : "global";
  if (!world.commands.has(key)) world.commands.set(key, []);
  return world.commands.get(key)!;
};

function newCommand(world: World, params: Record<string, string>, body: Json): Json {
  if (!/^[-_\p{L}\p{N}]{1,32}$/u.test(body.name ?? "")) fail(invalidForm("name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"));
  const type = body.type ?? 1;
  if (type === 1) checkLength(body, "description", 1, 100, true);
  return { id: snowflake(), application_id: world.applicationId, ...(params.guild_id ? { guild_id: params.guild_id } : {}), type, name: body.name, description: body.description ?? "", options: body.options ?? [], default_member_permissions: body.default_member_permissions ?? null, version: snowflake() };
}

const commandRoutes = (path: string): Route[] => [
  { method: "GET", path, handler: ({ world, params }) => commandsOf(world, params) },
  {
    method: "POST",
    path,
    handler: ({ world, params, body }) => {
      const commands = commandsOf(world, params);
      const command = newCommand(world, params, body);
      const same = commands.findIndex((c) => c.name === command.name && c.type === command.type);
      if (same >= 0) commands.splice(same, 1, { ...command, id: commands[same]!.id });
      else commands.push(command);
      return commands.find((c) => c.name === command.name && c.type === command.type);
    },
  },
  {
    method: "PUT",
    path,
    handler: ({ world, params, body }) => {
      if (!Array.isArray(body)) fail(invalidForm("(body)", "BASE_TYPE_ARRAY", "Must be an array."));
      const commands = (body as unknown as Json[]).map((command) => newCommand(world, params, command));
      world.commands.set(params.guild_id ?? "global", commands);
      return commands;
    },
  },
  { method: "GET", path: `${path}/:command_id`, handler: ({ world, params }) => find(commandsOf(world, params), params.command_id!, unknown.command) },
  {
    method: "PATCH",
    path: `${path}/:command_id`,
    handler: ({ world, params, body }) => {
      const command = find(commandsOf(world, params), params.command_id!, unknown.command);
      if (body.name !== undefined && !/^[-_\p{L}\p{N}]{1,32}$/u.test(body.name)) fail(invalidForm("name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid"));
      for (const key of ["name", "description", "options", "default_member_permissions"]) if (body[key] !== undefined) command[key] = body[key];
      return command;
    },
  },
  {
    method: "DELETE",
    path: `${path}/:command_id`,
    handler: ({ world, params }) => {
      const commands = commandsOf(world, params);
      commands.splice(commands.indexOf(find(commands, params.command_id!, unknown.command)), 1);
      return null;
    },
  },
];

export const eventRoutes: Route[] = [
  {
    method: "GET",
    path: "/guilds/:guild_id/scheduled-events",
    handler: ({ world, params, query }) => eventsOf(world, params.guild_id!).map((e) => (query.get("with_user_count") === "true" ? e : { ...e, user_count: undefined })),
  },
  {
    method: "POST",
    path: "/guilds/:guild_id/scheduled-events",
    handler: ({ world, params, body, reason }) => {
      const events = eventsOf(world, params.guild_id!);
      checkLength(body, "name", 1, 100, true);
      checkLength(body, "description", 0, 1000);
      if (![1, 2, 3].includes(body.entity_type)) fail(invalidForm("entity_type", "BASE_TYPE_CHOICES", "Value must be one of {1, 2, 3}."));
      const event = { id: snowflake(), guild_id: params.guild_id, creator_id: world.bot.id, status: 1, entity_id: null, user_count: 0, description: null, scheduled_end_time: null, channel_id: null, entity_metadata: null, ...body };
      checkEvent(world, params.guild_id!, event);
      events.push(event);
      audit(world, params.guild_id!, 100, event.id, reason);
      return event;
    },
  },
  { method: "GET", path: "/guilds/:guild_id/scheduled-events/:event_id", handler: ({ world, params }) => find(eventsOf(world, params.guild_id!), params.event_id!, unknown.event) },
  {
    method: "PATCH",
    path: "/guilds/:guild_id/scheduled-events/:event_id",
    handler: ({ world, params, body, reason }) => {
      const event = find(eventsOf(world, params.guild_id!), params.event_id!, unknown.event);
      if (body.status !== undefined) {
        const allowed: Record<number, number[]> = { 1: [2, 4], 2: [3] };
        if (!allowed[event.status]?.includes(body.status)) fail(invalidForm("status", "GUILD_SCHEDULED_EVENT_INVALID_STATUS_TRANSITION", "Cannot change the status of this event that way"));
      }
      const changed = { ...event, ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) };
      if (body.scheduled_start_time !== undefined || body.channel_id !== undefined) checkEvent(world, params.guild_id!, changed);
      Object.assign(event, changed);
      audit(world, params.guild_id!, 101, event.id, reason);
      return event;
    },
  },
  {
    method: "DELETE",
    path: "/guilds/:guild_id/scheduled-events/:event_id",
    handler: ({ world, params }) => {
      const events = eventsOf(world, params.guild_id!);
      events.splice(events.indexOf(find(events, params.event_id!, unknown.event)), 1);
      audit(world, params.guild_id!, 102, params.event_id!);
      return null;
    },
  },
  {
    method: "GET",
    path: "/guilds/:guild_id/scheduled-events/:event_id/users",
    handler: ({ world, params, query }) => {
      find(eventsOf(world, params.guild_id!), params.event_id!, unknown.event);
      const limit = Number(query.get("limit") ?? 100);
      if (limit < 1 || limit > 100) fail(invalidForm("limit", "NUMBER_TYPE_MAX", "int value should be less than or equal to 100."));
      return (world.eventUsers.get(params.event_id!) ?? []).slice(0, limit);
    },
  },

  { method: "GET", path: "/guilds/:guild_id/auto-moderation/rules", handler: ({ world, params }) => rulesOf(world, params.guild_id!) },
  { method: "GET", path: "/guilds/:guild_id/auto-moderation/rules/:rule_id", handler: ({ world, params }) => find(rulesOf(world, params.guild_id!), params.rule_id!, unknown.automodRule) },
  {
    method: "POST",
    path: "/guilds/:guild_id/auto-moderation/rules",
    handler: ({ world, params, body, reason }) => {
      const rules = rulesOf(world, params.guild_id!);
      checkLength(body, "name", 1, 100, true);
      if (![1, 3, 4, 5, 6].includes(body.trigger_type)) fail(invalidForm("trigger_type", "BASE_TYPE_CHOICES", "Value must be one of {1, 3, 4, 5, 6}."));
      if (!Array.isArray(body.actions) || body.actions.length === 0) fail(invalidForm("actions", "BASE_TYPE_REQUIRED", "This field is required"));
      if (body.trigger_type !== 1 && rules.some((r) => r.trigger_type === body.trigger_type)) fail(invalidForm("trigger_type", "AUTO_MODERATION_MAX_RULES_OF_TYPE_EXCEEDED", "Maximum number of rules of this trigger type reached"));
      const rule = { id: snowflake(), guild_id: params.guild_id, creator_id: world.bot.id, enabled: true, exempt_roles: [], exempt_channels: [], trigger_metadata: {}, ...body };
      rules.push(rule);
      audit(world, params.guild_id!, 140, rule.id, reason);
      return rule;
    },
  },
  {
    method: "PATCH",
    path: "/guilds/:guild_id/auto-moderation/rules/:rule_id",
    handler: ({ world, params, body, reason }) => {
      const rule = find(rulesOf(world, params.guild_id!), params.rule_id!, unknown.automodRule);
      checkLength(body, "name", 1, 100);
      for (const [key, value] of Object.entries(body)) if (value !== undefined) rule[key] = key === "trigger_metadata" ? { ...rule.trigger_metadata, ...(value as Json) } : value;
      audit(world, params.guild_id!, 141, rule.id, reason);
      return rule;
    },
  },
  {
    method: "DELETE",
    path: "/guilds/:guild_id/auto-moderation/rules/:rule_id",
    handler: ({ world, params, reason }) => {
      const rules = rulesOf(world, params.guild_id!);
      rules.splice(rules.indexOf(find(rules, params.rule_id!, unknown.automodRule)), 1);
      audit(world, params.guild_id!, 142, params.rule_id!, reason);
      return null;
    },
  },

  ...commandRoutes("/applications/:application_id/commands"),
  ...commandRoutes("/applications/:application_id/guilds/:guild_id/commands"),
];
