/** The bot's application commands, global or for one guild: list, read, create, change, delete, replace all. */
import type { REST } from "@discordjs/rest";
import { type Static, Type } from "@sinclair/typebox";
import { ApplicationCommandOptionType, ApplicationCommandType } from "discord-api-types/payloads/v10";
import { Routes } from "discord-api-types/rest/v10";
import type { APIApplicationCommand } from "discord-api-types/v10";
import { invalidInput } from "../errors.ts";
import { bitsOf, Confirm, Permissions, Snowflake } from "../model.ts";
import type { ChatService } from "../service.ts";
import { CommandView, commandView } from "../views.ts";
import { chatTool } from "./tool.ts";

const CommandId = Snowflake("The command's id");
const Guild = Type.Optional(Snowflake("A guild's id for a guild command; left out, the command is global"));
const commandTypes = { chat_input: ApplicationCommandType.ChatInput, user: ApplicationCommandType.User, message: ApplicationCommandType.Message };
const optionTypes = {
  string: ApplicationCommandOptionType.String,
  integer: ApplicationCommandOptionType.Integer,
  boolean: ApplicationCommandOptionType.Boolean,
  user: ApplicationCommandOptionType.User,
  channel: ApplicationCommandOptionType.Channel,
  role: ApplicationCommandOptionType.Role,
  mentionable: ApplicationCommandOptionType.Mentionable,
  number: ApplicationCommandOptionType.Number,
  attachment: ApplicationCommandOptionType.Attachment,
};
const literals = (names: string[]) => Type.Union(names.map((name) => Type.Literal(name)));
const Name = Type.String({ pattern: "^[-_a-z0-9]{1,32}$", description: "1 to 32 lowercase letters, digits, - or _" });
const Description = Type.String({ minLength: 1, maxLength: 100 });
const Option = Type.Object(
  {
    type: literals(Object.keys(optionTypes)),
    name: Name,
    description: Description,
    required: Type.Optional(Type.Boolean()),
    choices: Type.Optional(Type.Array(Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), value: Type.Union([Type.String({ maxLength: 100 }), Type.Number()]) }), { maxItems: 25 })),
  },
  { additionalProperties: false },
);
const Command = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    type: Type.Optional(literals(Object.keys(commandTypes))),
    options: Type.Optional(Type.Array(Option, { maxItems: 25 })),
    defaultMemberPermissions: Type.Optional(Permissions),
  },
  { additionalProperties: false },
);
type Command = Static<typeof Command>;

/** A chat_input command needs a description; user and message commands have none. */
function checkCommand(command: Partial<Command>, field: string): void {
  const type = command.type ?? "chat_input";
  if (type === "chat_input" && command.name !== undefined && !command.description) throw invalidInput(`${field}description`, "a chat_input command needs a description");
  if (type !== "chat_input" && (command.description || command.options?.length)) throw invalidInput(`${field}type`, `a ${type} command has no description or options`);
  command.options?.forEach((option, i) => {
    if (option.choices && !["string", "integer", "number"].includes(option.type)) throw invalidInput(`${field}options.${i}.choices`, "only string, integer and number options take choices");
  });
}

const apiCommand = (command: Partial<Command>) => ({
  name: command.name,
  description: command.type && command.type !== "chat_input" ? "" : command.description,
  type: command.type && commandTypes[command.type as keyof typeof commandTypes],
  options: command.options?.map((o) => ({ type: optionTypes[o.type as keyof typeof optionTypes], name: o.name, description: o.description, required: o.required, choices: o.choices })),
  default_member_permissions: command.defaultMemberPermissions && bitsOf(command.defaultMemberPermissions),
});

/** The route of the bot's commands, or of one of them: a guild's when a guild is given, else the global ones. */
async function commandsRoute(rest: REST, chat: ChatService, guildId?: string, commandId?: string): Promise<`/${string}`> {
  const app = await chat.applicationId(rest);
  if (commandId) return guildId ? Routes.applicationGuildCommand(app, guildId, commandId) : Routes.applicationCommand(app, commandId);
  return guildId ? Routes.applicationGuildCommands(app, guildId) : Routes.applicationCommands(app);
}

const scope = ({ guildId }: { guildId?: string }) => ({ guildId });

export const commandTools = [
  chatTool({
    name: "list_application_commands",
    title: "List commands",
    description: "List the bot's slash and context-menu commands: global ones, or one guild's.",
    kind: "read",
    input: Type.Object({ guildId: Guild }),
    output: Type.Object({ commands: Type.Array(CommandView) }),
    scope,
    run: async ({ guildId }, rest, chat) => ({ commands: ((await rest.get(await commandsRoute(rest, chat, guildId))) as APIApplicationCommand[]).map(commandView) }),
  }),
  chatTool({
    name: "get_application_command",
    title: "Command",
    description: "Read one of the bot's commands.",
    kind: "read",
    input: Type.Object({ commandId: CommandId, guildId: Guild }),
    output: Type.Object({ command: CommandView }),
    scope,
    run: async ({ guildId, commandId }, rest, chat) => ({ command: commandView((await rest.get(await commandsRoute(rest, chat, guildId, commandId))) as APIApplicationCommand) }),
  }),
  chatTool({
    name: "create_application_command",
    title: "Create a command",
    description: "Create a slash command (chat_input, with options) or a user or message context-menu command, global or for one guild. A name already taken is replaced.",
    kind: "write",
    input: Type.Object({ guildId: Guild, ...Command.properties }),
    output: Type.Object({ command: CommandView }),
    scope,
    check: (command) => checkCommand(command, ""),
    run: async ({ guildId, ...command }, rest, chat) => ({
      command: commandView((await rest.post(await commandsRoute(rest, chat, guildId), { body: apiCommand(command) })) as APIApplicationCommand),
    }),
  }),
  chatTool({
    name: "modify_application_command",
    title: "Change a command",
    description: "Change one of the bot's commands: name, description, options or who may use it by default.",
    kind: "write",
    input: Type.Object({
      commandId: CommandId,
      guildId: Guild,
      name: Type.Optional(Name),
      description: Type.Optional(Description),
      options: Type.Optional(Type.Array(Option, { maxItems: 25 })),
      defaultMemberPermissions: Type.Optional(Permissions),
    }),
    output: Type.Object({ command: CommandView }),
    scope,
    check: ({ commandId: _c, guildId: _g, ...changes }) => {
      if (Object.values(changes).every((value) => value === undefined)) throw invalidInput("name", "give at least one change");
      checkCommand({ ...changes, name: undefined }, "");
    },
    run: async ({ guildId, commandId, ...changes }, rest, chat) => ({
      command: commandView((await rest.patch(await commandsRoute(rest, chat, guildId, commandId), { body: apiCommand(changes) })) as APIApplicationCommand),
    }),
  }),
  chatTool({
    name: "delete_application_command",
    title: "Delete a command",
    description: "Delete one of the bot's commands. Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ commandId: CommandId, guildId: Guild, confirm: Confirm }),
    output: Type.Object({ deleted: Type.Literal(true), id: Type.String() }),
    scope,
    async run({ guildId, commandId }, rest, chat) {
      await rest.delete(await commandsRoute(rest, chat, guildId, commandId));
      return { deleted: true as const, id: commandId };
    },
  }),
  chatTool({
    name: "bulk_overwrite_commands",
    title: "Replace all commands",
    description: "Replace the bot's global (or one guild's) commands with the list given: commands not in it are deleted. Needs confirm: true.",
    kind: "destructive",
    input: Type.Object({ guildId: Guild, commands: Type.Array(Command, { maxItems: 100 }), confirm: Confirm }),
    output: Type.Object({ commands: Type.Array(CommandView) }),
    scope,
    check: ({ commands }) => {
      commands.forEach((command, i) => checkCommand(command, `commands.${i}.`));
      const names = commands.map((c) => `${c.type ?? "chat_input"}:${c.name}`);
      const twice = names.findIndex((name, i) => names.indexOf(name) !== i);
      if (twice >= 0) throw invalidInput(`commands.${twice}.name`, `${commands[twice]!.name} is listed twice`);
    },
    run: async ({ guildId, commands }, rest, chat) => ({
      commands: ((await rest.put(await commandsRoute(rest, chat, guildId), { body: commands.map(apiCommand) })) as APIApplicationCommand[]).map(commandView),
    }),
  }),
];
