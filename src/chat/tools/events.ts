/** Scheduled events: list, read, create (in a stage or voice channel, or elsewhere), change, cancel or delete, and who is interested. */
import { Type } from "@sinclair/typebox";
import { GuildScheduledEventEntityType, GuildScheduledEventPrivacyLevel, GuildScheduledEventStatus } from "discord-api-types/payloads/v10";
import { Routes } from "discord-api-types/rest/v10";
import type { APIGuildScheduledEvent, APIGuildScheduledEventUser } from "discord-api-types/v10";
import { invalidInput } from "../errors.ts";
import { Confirm, GuildId, Reason, Snowflake } from "../model.ts";
import { EventView, eventView } from "../views.ts";
import { chatTool } from "./tool.ts";

const EventId = Snowflake("The event's id");
const Time = (description: string) => Type.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}", description: `${description}, ISO 8601 (2030-05-01T18:00:00Z)` });
const Name = Type.String({ minLength: 1, maxLength: 100 });
const Description = Type.String({ maxLength: 1000 });
const Location = Type.String({ minLength: 1, maxLength: 100, description: "Where an external event happens" });
const entityTypes = { stage: GuildScheduledEventEntityType.StageInstance, voice: GuildScheduledEventEntityType.Voice, external: GuildScheduledEventEntityType.External };
const statuses = { active: GuildScheduledEventStatus.Active, completed: GuildScheduledEventStatus.Completed, canceled: GuildScheduledEventStatus.Canceled };
const literals = (names: string[]) => Type.Union(names.map((name) => Type.Literal(name)));
const guildScope = ({ guildId }: { guildId: string }) => ({ guildId });

function checkTimes(start?: string, end?: string): void {
  for (const [field, value] of [["startTime", start], ["endTime", end]] as const)
    if (value !== undefined && Number.isNaN(Date.parse(value))) throw invalidInput(field, "is not a time");
  if (start !== undefined && Date.parse(start) <= Date.now()) throw invalidInput("startTime", "must be in the future");
  if (start !== undefined && end !== undefined && Date.parse(end) <= Date.parse(start)) throw invalidInput("endTime", "must be after startTime");
}

export const eventTools = [
  chatTool({
    name: "list_scheduled_events",
    title: "List scheduled events",
    description: "List a guild's scheduled events with their times, status, place and how many are interested.",
    kind: "read",
    input: Type.Object({ guildId: GuildId }),
    output: Type.Object({ events: Type.Array(EventView) }),
    scope: guildScope,
    run: async ({ guildId }, rest) => ({
      events: ((await rest.get(Routes.guildScheduledEvents(guildId), { query: new URLSearchParams({ with_user_count: "true" }) })) as APIGuildScheduledEvent[]).map(eventView),
    }),
  }),
  chatTool({
    name: "get_event_details",
    title: "Event details",
    description: "Read one scheduled event.",
    kind: "read",
    input: Type.Object({ guildId: GuildId, eventId: EventId }),
    output: Type.Object({ event: EventView }),
    scope: guildScope,
    run: async ({ guildId, eventId }, rest) => ({
      event: eventView((await rest.get(Routes.guildScheduledEvent(guildId, eventId), { query: new URLSearchParams({ with_user_count: "true" }) })) as APIGuildScheduledEvent),
    }),
  }),
  chatTool({
    name: "create_scheduled_event",
    title: "Schedule an event",
    description: "Schedule an event in a stage or voice channel (give channelId) or elsewhere (external: give location and endTime).",
    kind: "write",
    input: Type.Object({
      guildId: GuildId,
      name: Name,
      startTime: Time("When it starts"),
      endTime: Type.Optional(Time("When it ends")),
      description: Type.Optional(Description),
      place: literals(Object.keys(entityTypes)),
      channelId: Type.Optional(Snowflake("The stage or voice channel")),
      location: Type.Optional(Location),
      reason: Reason,
    }),
    output: Type.Object({ event: EventView }),
    scope: guildScope,
    check: ({ startTime, endTime, place, channelId, location }) => {
      checkTimes(startTime, endTime);
      if (place === "external" && !location) throw invalidInput("location", "an external event needs a location");
      if (place === "external" && !endTime) throw invalidInput("endTime", "an external event needs an end time");
      if (place !== "external" && !channelId) throw invalidInput("channelId", `a ${place} event needs its channel`);
    },
    async run(args, rest) {
      const external = args.place === "external";
      const body = {
        name: args.name,
        description: args.description,
        scheduled_start_time: args.startTime,
        scheduled_end_time: args.endTime,
        privacy_level: GuildScheduledEventPrivacyLevel.GuildOnly,
        entity_type: entityTypes[args.place as keyof typeof entityTypes],
        channel_id: external ? undefined : args.channelId,
        entity_metadata: external ? { location: args.location } : undefined,
      };
      return { event: eventView((await rest.post(Routes.guildScheduledEvents(args.guildId), { body, reason: args.reason })) as APIGuildScheduledEvent) };
    },
  }),
  chatTool({
    name: "modify_scheduled_event",
    title: "Change an event",
    description: "Change an event's name, times, description, location or channel, or its status: active (start it), completed (end it) or canceled.",
    kind: "write",
    input: Type.Object({
      guildId: GuildId,
      eventId: EventId,
      name: Type.Optional(Name),
      startTime: Type.Optional(Time("When it starts")),
      endTime: Type.Optional(Time("When it ends")),
      description: Type.Optional(Description),
      location: Type.Optional(Location),
      channelId: Type.Optional(Snowflake("The stage or voice channel")),
      status: Type.Optional(literals(Object.keys(statuses))),
      reason: Reason,
    }),
    output: Type.Object({ event: EventView }),
    scope: guildScope,
    check: ({ guildId: _g, eventId: _e, reason: _r, ...changes }) => {
      if (Object.values(changes).every((value) => value === undefined)) throw invalidInput("name", "give at least one change");
      checkTimes(changes.startTime, changes.endTime);
    },
    async run(args, rest) {
      const body = {
        name: args.name,
        scheduled_start_time: args.startTime,
        scheduled_end_time: args.endTime,
        description: args.description,
        channel_id: args.channelId,
        entity_metadata: args.location ? { location: args.location } : undefined,
        status: args.status && statuses[args.status as keyof typeof statuses],
      };
      return { event: eventView((await rest.patch(Routes.guildScheduledEvent(args.guildId, args.eventId), { body, reason: args.reason })) as APIGuildScheduledEvent) };
    },
  }),
  chatTool({
    name: "delete_scheduled_event",
    title: "Delete an event",
    description: "Delete a scheduled event (to keep it visible as canceled, use modify_scheduled_event with status canceled). Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ guildId: GuildId, eventId: EventId, confirm: Confirm }),
    output: Type.Object({ deleted: Type.Literal(true), id: Type.String() }),
    scope: guildScope,
    async run({ guildId, eventId }, rest) {
      await rest.delete(Routes.guildScheduledEvent(guildId, eventId));
      return { deleted: true as const, id: eventId };
    },
  }),
  chatTool({
    name: "get_event_users",
    title: "Who is interested",
    description: "List the users interested in an event (up to 100 at a time; continue with `after`).",
    kind: "read",
    input: Type.Object({ guildId: GuildId, eventId: EventId, limit: Type.Integer({ minimum: 1, maximum: 100, default: 100 }), after: Type.Optional(Snowflake("A user id")) }),
    output: Type.Object({ users: Type.Array(Type.Object({ id: Type.String(), username: Type.String() })), after: Type.Optional(Type.String()) }),
    scope: guildScope,
    async run({ guildId, eventId, limit, after }, rest) {
      const query = new URLSearchParams({ limit: String(limit), ...(after ? { after } : {}) });
      const users = ((await rest.get(Routes.guildScheduledEventUsers(guildId, eventId), { query })) as APIGuildScheduledEventUser[]).map(({ user }) => ({ id: user.id, username: user.username }));
      return { users, after: users.length === limit ? users.at(-1)?.id : undefined };
    },
  }),
];
