/**
 * The chat server's errors and their wire form. A failed tool call is one text item:
 *
 *   Error: [Type] - Description
 *
 *   Resolution: what to do about it
 *
 * with seven types. Discord's JSON error codes map onto them here; so do invalid arguments (the MCP host's
 * InvalidArguments) and rate limits the client library would have to wait out for longer than allowed.
 * Descriptions are made of ids and Discord's own messages, never of a request's headers, so a token cannot reach
 * them; the service scrubs it all the same.
 */
import type { DiscordAPIError } from "@discordjs/rest";
import type { TSchema } from "@sinclair/typebox";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { InvalidArguments, type ToolFailure } from "../mcp/call.ts";

export type ChatErrorType =
  | "ChatNotConnectedError"
  | "PermissionDeniedError"
  | "ChannelNotFoundError"
  | "GuildNotFoundError"
  | "MessageNotFoundError"
  | "RateLimitError"
  | "InvalidInputError";

export class ChatError extends Error {
  override name = "ChatError";
  constructor(
    readonly type: ChatErrorType,
    message: string,
    readonly resolution: string,
    /** How long to wait, for a RateLimitError. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }

  get text(): string {
    return `Error: [${this.type}] - ${this.message}\n\nResolution: ${this.resolution}`;
  }
}

/** What a call was about, so an error can name the channel or guild it could not find. */
export interface CallScope {
  guildId?: string;
  channelId?: string;
  messageId?: string;
}

export const invalidInput = (field: string, reason: string) =>
  new ChatError("InvalidInputError", `Invalid value for ${field}: ${reason}`, `Correct ${field} and call again; the tool's input schema gives each field's limits.`);

export const notConnected = (why: string, resolution: string) => new ChatError("ChatNotConnectedError", why, resolution);

const label = (what: string, id: string | undefined) => (id ? `${what} ${id}` : `The ${what.toLowerCase()}`);

const permissionResolution =
  "Grant the bot's role the permission this action needs (for example View Channel, Send Messages, Manage Messages or Manage Roles) " +
  "on the guild or channel, and keep the bot's role above any role it manages.";

/** Discord's JSON error codes (Opcodes and Status Codes > JSON) that have a type of their own. */
const byCode: Record<number, (scope: CallScope, message: string) => ChatError> = {
  10003: ({ channelId }) =>
    new ChatError("ChannelNotFoundError", `${label("Channel", channelId)} was not found, or the bot cannot see it`, "List the guild's channels with list_channels and use one of their ids."),
  10004: ({ guildId }) =>
    new ChatError("GuildNotFoundError", `${label("Guild", guildId)} was not found, or the bot is not in it`, "Read the chat://guilds resource (or get_server_info) for the guilds the bot is in."),
  10008: ({ messageId, channelId }) =>
    new ChatError("MessageNotFoundError", `${label("Message", messageId)} was not found${channelId ? ` in channel ${channelId}` : ""}`, "Find the message's id with read_messages or search_messages on that channel."),
  50001: (_scope, message) => new ChatError("PermissionDeniedError", `${message}: the bot cannot see this channel or guild`, permissionResolution),
  50013: (_scope, message) => new ChatError("PermissionDeniedError", `${message}: the bot lacks a permission this action needs`, permissionResolution),
};

/** Turns whatever a Discord call threw into a ChatError. */
export async function fromDiscord(error: unknown, scope: CallScope): Promise<ChatError> {
  if (error instanceof ChatError) return error;
  // Anything else was thrown by a call through the REST client, so its library is loaded by now (see capability.ts).
  const { DiscordAPIError, HTTPError, RateLimitError: LibraryRateLimit } = await import("@discordjs/rest");
  if (error instanceof LibraryRateLimit) return rateLimited(error.retryAfter, error.global ? "the bot's global limit" : `route ${error.route}`);
  if (error instanceof DiscordAPIError) {
    const code = typeof error.code === "number" ? error.code : Number(error.code);
    const message = error.message;
    const known = byCode[code];
    if (known) return known(scope, message);
    if (error.status === 401) return tokenRefused();
    if (error.status === 403) return new ChatError("PermissionDeniedError", message, permissionResolution);
    if (error.status === 429) return rateLimited(0, "Discord");
    if (code === 50035) return new ChatError("InvalidInputError", `Discord refused the request: ${formErrors(error.rawError)}`, "Correct the named field and call again.");
    if (error.status >= 500) return unreachable(`Discord answered ${error.status}`);
    return new ChatError("InvalidInputError", `Discord refused the request: ${message} (code ${code})`, resolutionFor(code));
  }
  if (error instanceof HTTPError) return unreachable(`Discord answered ${error.status}`);
  if ((error as Error | undefined)?.name === "AbortError" || (error as Error | undefined)?.name === "TimeoutError")
    return unreachable("Discord did not answer in time");
  return unreachable(`Discord could not be reached (${error instanceof Error ? error.message : String(error)})`);
}

export const tokenRefused = () =>
  notConnected(
    "The bot token was refused by Discord (invalid_token)",
    "Create a new token in the Discord developer portal and set it with CHAT_TOKEN (or store it in the vault service named by chat.token_from_vault), then restart the server.",
  );

const unreachable = (why: string) => notConnected(why, "Discord's API is failing or unreachable; try again shortly. /health shows the session's state.");

function rateLimited(retryAfterMs: number, what: string): ChatError {
  const wait = Math.ceil(retryAfterMs);
  return new ChatError(
    "RateLimitError",
    `Rate limited on ${what}; retry after ${wait} ms`,
    `Wait ${wait} ms before calling again, and spread out calls to the same channel or guild.`,
    wait,
  );
}

/** Unknown-entity codes other than channel, guild and message: the id given was wrong. */
const unknownEntity: Record<number, string> = {
  10006: "Find valid invites with get_invites.",
  10007: "Find the member's user id with list_members.",
  10009: "Read the channel's overwrites with get_channel_details.",
  10011: "Find the role's id with list_roles.",
  10013: "Check the user id; list_members shows the guild's members.",
  10014: "Find the emoji's id with list_guild_emojis.",
  10015: "Find the webhook's id with list_webhooks.",
  10026: "The user is not banned; get_bans lists the bans.",
  10060: "Find the sticker's id with list_guild_stickers.",
  10063: "Find the command's id with list_application_commands.",
  10066: "Find the rule's id with list_automod_rules.",
  10070: "Find the event's id with list_scheduled_events.",
};
const resolutionFor = (code: number) => unknownEntity[code] ?? "Check the arguments against what the tool's description asks for and call again.";

/** Flattens 50035's nested `errors` into `field: message` pairs (`embeds.0.title: Must be 256 or fewer in length.`). */
function formErrors(raw: DiscordAPIError["rawError"]): string {
  const pairs: string[] = [];
  const walk = (node: unknown, path: string[]) => {
    if (!node || typeof node !== "object") return;
    for (const [key, value] of Object.entries(node)) {
      if (key === "_errors" && Array.isArray(value)) pairs.push(`${path.join(".") || "(body)"}: ${value.map((e: { message?: string }) => e.message).join("; ")}`);
      else walk(value, [...path, key]);
    }
  };
  walk("errors" in raw ? raw.errors : undefined, []);
  return pairs.length ? pairs.join(", ") : "the request body was refused";
}

/**
 * The chat server's `failure` option for the MCP host: renders invalid arguments (naming the field, and the
 * choices when the field takes one of a list) and ChatErrors. Anything else is a fault of ours.
 */
export const chatFailure: ToolFailure = (error, tool) => {
  if (error instanceof InvalidArguments) {
    const choices = choicesAt(tool.input, error.field);
    return failed(invalidInput(error.field, choices ? `must be one of ${choices.join(", ")}` : lowerFirst(error.reason)).text);
  }
  if (error instanceof ChatError) return failed(error.text);
  return failed(
    `Error: [InternalError] - ${error instanceof Error ? error.message : "the tool failed"}\n\nResolution: This is a fault in the chat server, not in the request; it is logged. Try again, and report it if it persists.`,
  );
};

const failed = (text: string): CallToolResult => ({ isError: true, content: [{ type: "text", text }] });
const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The literal values a field accepts when its schema is a union of them (permission names, channel types, ...). */
function choicesAt(schema: TSchema, field: string): string[] | undefined {
  let node: TSchema | undefined = schema;
  for (const part of field.split(".")) {
    if (!node) return undefined;
    node = node.type === "array" ? node.items : node.properties?.[part];
  }
  const options = node?.anyOf as TSchema[] | undefined;
  if (!options?.length || !options.every((option) => option.const !== undefined)) return undefined;
  return options.map((option) => String(option.const));
}
