import { afterAll, beforeAll, expect, test } from "bun:test";
import { snowflake } from "../support/discord/world.ts";
import { type ChatHarness, type ChatTools, chatWithTools } from "./harness.ts";

let chat: ChatHarness, tools: ChatTools["tools"], ids: ChatTools["ids"], guildId: string;
beforeAll(async () => void ({ chat, tools, ids, guildId } = await chatWithTools()));
afterAll(() => chat.close());

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

test("scheduled events: listed, read, created in a voice channel or elsewhere, started, and who is interested", async () => {
  const { events } = await tools.ok<{ events: any[] }>("list_scheduled_events", { guildId });
  expect(events).toEqual([expect.objectContaining({ id: ids.event, name: "Community call", status: "scheduled", entityType: "voice", channelId: ids.voice, userCount: 1 })]);
  expect((await tools.ok<{ event: any }>("get_event_details", { guildId, eventId: ids.event })).event.name).toBe("Community call");

  const voice = await tools.ok<{ event: any }>("create_scheduled_event", { guildId, name: "Office hours", place: "voice", channelId: ids.voice, startTime: inDays(2), description: "Ask anything" });
  expect(voice.event).toMatchObject({ name: "Office hours", entityType: "voice", channelId: ids.voice, status: "scheduled" });
  const meetup = await tools.ok<{ event: any }>("create_scheduled_event", { guildId, name: "Meetup", place: "external", location: "Berlin", startTime: inDays(3), endTime: inDays(3.1) });
  expect(meetup.event).toMatchObject({ entityType: "external", location: "Berlin", channelId: null });
  expect(tools.lastRequest().body).toMatchObject({ entity_type: 3, privacy_level: 2, entity_metadata: { location: "Berlin" } });

  expect(await tools.refused("create_scheduled_event", { guildId, name: "Past", place: "voice", channelId: ids.voice, startTime: "2020-01-01T10:00:00Z" })).toContain("startTime: must be in the future");
  expect(await tools.refused("create_scheduled_event", { guildId, name: "Nowhere", place: "external", startTime: inDays(1), endTime: inDays(2) })).toContain("location: an external event needs a location");
  expect(await tools.refused("create_scheduled_event", { guildId, name: "Voice", place: "voice", startTime: inDays(1) })).toContain("channelId: a voice event needs its channel");
  expect(await tools.refused("create_scheduled_event", { guildId, name: "Back", place: "external", location: "x", startTime: inDays(2), endTime: inDays(1) })).toContain("endTime: must be after startTime");
  expect(await tools.failed("create_scheduled_event", { guildId, name: "Wrong", place: "stage", channelId: ids.voice, startTime: inDays(1) })).toContain("channel_id: Channel must be a stage channel");

  const started = await tools.ok<{ event: any }>("modify_scheduled_event", { guildId, eventId: voice.event.id, status: "active" });
  expect(started.event.status).toBe("active");
  expect(await tools.failed("modify_scheduled_event", { guildId, eventId: voice.event.id, status: "canceled" })).toContain("Cannot change the status of this event that way");
  expect(await tools.refused("modify_scheduled_event", { guildId, eventId: voice.event.id })).toContain("give at least one change");

  const { users } = await tools.ok<{ users: any[] }>("get_event_users", { guildId, eventId: ids.event });
  expect(users).toEqual([{ id: ids.alice, username: "alice" }]);
  expect(await tools.refused("delete_scheduled_event", { guildId, eventId: meetup.event.id })).toContain("needs confirm: true");
  expect(await tools.ok("delete_scheduled_event", { guildId, eventId: meetup.event.id, confirm: true })).toEqual({ deleted: true, id: meetup.event.id });
  expect(await tools.failed("get_event_details", { guildId, eventId: meetup.event.id })).toContain("Find the event's id with list_scheduled_events");
});

test("AutoMod rules: listed, read, created by trigger and action names, changed, deleted with confirm", async () => {
  const { rules } = await tools.ok<{ rules: any[] }>("list_automod_rules", { guildId });
  expect(rules).toEqual([expect.objectContaining({ id: ids.rule, name: "No spam links", trigger: "keyword", keywords: ["*spam.example*"], actions: [{ type: "block message", customMessage: "Links to spam.example are blocked" }] })]);
  expect((await tools.ok<{ rule: any }>("get_automod_rule", { guildId, ruleId: ids.rule })).rule.exemptRoles).toEqual([ids.moderatorRole]);

  const { rule } = await tools.ok<{ rule: any }>("create_automod_rule", {
    guildId,
    name: "Mention flood",
    trigger: "mention_spam",
    mentionLimit: 8,
    actions: [{ type: "block" }, { type: "alert", channelId: ids.announcements }, { type: "timeout", durationSeconds: 600 }],
    exemptRoles: [ids.moderatorRole],
    reason: "raids",
  });
  expect(rule).toMatchObject({ name: "Mention flood", trigger: "mention spam", mentionLimit: 8, enabled: true });
  expect(tools.lastRequest().body).toMatchObject({ trigger_type: 5, event_type: 1, trigger_metadata: { mention_total_limit: 8 }, actions: [{ type: 1 }, { type: 2, metadata: { channel_id: ids.announcements } }, { type: 3, metadata: { duration_seconds: 600 } }] });

  expect(await tools.refused("create_automod_rule", { guildId, name: "x", trigger: "keyword", actions: [{ type: "block" }] })).toContain("keywords: a keyword rule needs keywords or regexPatterns");
  expect(await tools.refused("create_automod_rule", { guildId, name: "x", trigger: "keyword", keywords: ["a"], actions: [{ type: "alert" }] })).toContain("actions.0.channelId: an alert action needs the channel");
  expect(await tools.refused("create_automod_rule", { guildId, name: "x", trigger: "spam", actions: [{ type: "timeout", durationSeconds: 60 }] })).toContain("actions.0.type: a timeout action goes only with keyword and mention_spam rules");
  expect(await tools.refused("create_automod_rule", { guildId, name: "x", trigger: "keyword_preset", actions: [{ type: "block" }] })).toContain("presets: a keyword_preset rule needs presets");
  const preset = await tools.ok<{ rule: any }>("create_automod_rule", { guildId, name: "Slurs", trigger: "keyword_preset", presets: ["slurs", "profanity"], actions: [{ type: "block" }] });
  expect(preset.rule.presets).toEqual([3, 1]);
  expect(await tools.failed("create_automod_rule", { guildId, name: "Again", trigger: "keyword_preset", presets: ["slurs"], actions: [{ type: "block" }] })).toContain("Maximum number of rules of this trigger type reached");

  const changed = await tools.ok<{ rule: any }>("modify_automod_rule", { guildId, ruleId: ids.rule, keywords: ["*spam.example*", "*scam.example*"], enabled: false });
  expect(changed.rule).toMatchObject({ enabled: false, keywords: ["*spam.example*", "*scam.example*"] });
  expect(await tools.refused("modify_automod_rule", { guildId, ruleId: ids.rule })).toContain("give at least one change");
  expect(await tools.ok("delete_automod_rule", { guildId, ruleId: rule.id, confirm: true })).toEqual({ deleted: true, id: rule.id });
  expect(await tools.failed("get_automod_rule", { guildId, ruleId: rule.id })).toContain("Find the rule's id with list_automod_rules");
});

test("application commands: global and per guild, created, changed, deleted, replaced as a whole", async () => {
  const { commands } = await tools.ok<{ commands: any[] }>("list_application_commands", { guildId });
  expect(commands).toEqual([expect.objectContaining({ id: ids.command, name: "status", type: 1, guildId })]);
  expect((await tools.ok<{ commands: any[] }>("list_application_commands", {})).commands).toEqual([]);
  expect(tools.lastRequest().path).toBe(`/applications/${chat.discord.world.applicationId}/commands`);

  const { command } = await tools.ok<{ command: any }>("create_application_command", {
    name: "deploy",
    description: "Deploy a service",
    options: [{ type: "string", name: "service", description: "Which one", required: true, choices: [{ name: "api", value: "api" }] }],
    defaultMemberPermissions: ["ManageGuild"],
  });
  expect(command).toMatchObject({ name: "deploy", type: 1, defaultMemberPermissions: ["ManageGuild"], options: [expect.objectContaining({ name: "service", type: 3 })] });
  expect((await tools.ok<{ command: any }>("get_application_command", { commandId: command.id })).command.name).toBe("deploy");
  const menu = await tools.ok<{ command: any }>("create_application_command", { guildId, name: "report", type: "message" });
  expect(menu.command).toMatchObject({ type: 3, description: "" });

  expect(await tools.refused("create_application_command", { name: "Deploy Now", description: "x" })).toContain("Invalid value for name:");
  expect(await tools.refused("create_application_command", { name: "nodesc" })).toContain("description: a chat_input command needs a description");
  expect(await tools.refused("create_application_command", { name: "menu", type: "user", description: "no" })).toContain("type: a user command has no description or options");
  expect(await tools.refused("create_application_command", { name: "x", description: "x", options: [{ type: "boolean", name: "b", description: "b", choices: [{ name: "y", value: "y" }] }] })).toContain(
    "options.0.choices: only string, integer and number options take choices",
  );

  expect((await tools.ok<{ command: any }>("modify_application_command", { commandId: command.id, description: "Deploy one service" })).command.description).toBe("Deploy one service");
  expect(await tools.refused("modify_application_command", { commandId: command.id })).toContain("give at least one change");
  expect(await tools.ok("delete_application_command", { commandId: command.id, confirm: true })).toEqual({ deleted: true, id: command.id });
  expect(await tools.failed("get_application_command", { commandId: command.id })).toContain("Find the command's id with list_application_commands");

  expect(await tools.refused("bulk_overwrite_commands", { guildId, commands: [{ name: "a", description: "a" }, { name: "a", description: "b" }], confirm: true })).toContain("commands.1.name: a is listed twice");
  expect(await tools.refused("bulk_overwrite_commands", { guildId, commands: [] })).toContain("needs confirm: true");
  const replaced = await tools.ok<{ commands: any[] }>("bulk_overwrite_commands", { guildId, commands: [{ name: "help", description: "Show help" }, { name: "ping", description: "Pong" }], confirm: true });
  expect(replaced.commands.map((c) => c.name)).toEqual(["help", "ping"]);
  expect(chat.discord.world.commands.get(guildId)!.map((c) => c.name)).toEqual(["help", "ping"]);
  // The application's id was asked for once and kept.
  expect(chat.discord.requests.filter((r) => r.path === "/applications/@me")).toHaveLength(1);
  expect(await tools.failed("list_application_commands", { guildId: snowflake() })).toStartWith("Error: [GuildNotFoundError]");
});
