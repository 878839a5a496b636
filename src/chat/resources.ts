/**
 * The chat server's resources: `chat://guilds` (the guilds the bot is in, within the allowlist), and templates for
 * a guild's channels and roles and a channel's recent messages. They read through the same service calls as the
 * tools, so the same token, allowlist and errors apply.
 */
import type { REST } from "@discordjs/rest";
import { Value } from "@sinclair/typebox/value";
import type { Completer, Resource, ResourceTemplate } from "../mcp/define.ts";
import { invalidInput } from "./errors.ts";
import { Snowflake } from "./model.ts";
import type { ChatService } from "./service.ts";

const json = (value: unknown) => JSON.stringify(value, null, 2);
const Id = Snowflake("id");

function snowflakeOf(variables: Record<string, string>, name: string): string {
  const value = variables[name] ?? "";
  if (!Value.Check(Id, value)) throw invalidInput(name, "must be a snowflake (17 to 19 digits)");
  return value;
}

export interface ChatResources {
  resources: Resource[];
  templates: ResourceTemplate[];
  /** Completes a guild id from the guilds the bot is in (the prompts use it too). */
  completeGuild: Completer;
}

export function chatResources(chat: ChatService): ChatResources {
  const guilds = () => chat.call({}, (rest) => chat.guilds(rest));
  const completeGuild = async (typed: string) => (await guilds()).map((g) => g.id).filter((id) => id.startsWith(typed));
  const completeChannel = async (typed: string) => [...(chat.gateway?.guildOf.keys() ?? [])].filter((id) => id.startsWith(typed));

  const guildTemplate = (part: "channels" | "roles", description: string): ResourceTemplate => ({
    uriTemplate: `chat://guilds/{guildId}/${part}`,
    name: `guild-${part}`,
    title: `A guild's ${part}`,
    description,
    mimeType: "application/json",
    async read(_uri, variables) {
      const guildId = snowflakeOf(variables, "guildId");
      const read = (rest: REST): Promise<unknown[]> => (part === "channels" ? chat.channels(rest, guildId) : chat.roles(rest, guildId));
      return json({ [part]: await chat.call({ guildId }, read) });
    },
    async list() {
      return (await guilds()).map((guild) => ({ uri: `chat://guilds/${guild.id}/${part}`, name: `${guild.name}: ${part}` }));
    },
    complete: { guildId: completeGuild },
  });

  return {
    completeGuild,
    resources: [
      {
        uri: "chat://guilds",
        name: "guilds",
        title: "Guilds",
        description: "The guilds (servers) the bot is in: id, name and member count.",
        mimeType: "application/json",
        read: async () => json({ guilds: await guilds() }),
      },
    ],
    templates: [
      guildTemplate("channels", "A guild's channels in order: id, name, type, category, topic."),
      guildTemplate("roles", "A guild's roles, highest first, with their permissions by name."),
      {
        uriTemplate: "chat://channels/{channelId}/messages",
        name: "channel-messages",
        title: "A channel's recent messages",
        description: "The 50 most recent messages of a channel or thread, newest first, with attachments, embeds and reactions.",
        mimeType: "application/json",
        async read(_uri, variables) {
          const channelId = snowflakeOf(variables, "channelId");
          return json(await chat.call({ channelId }, (rest) => chat.messages(rest, channelId, { limit: 50 })));
        },
        complete: { channelId: completeChannel },
      },
    ],
  };
}
