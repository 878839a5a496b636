/**
 * The chat server's rules, free of MCP: whether a call may go out at all (a token, a session that was not
 * refused, the guild allowlist, confirmation of what cannot be undone), the one REST client every call goes
 * through (@discordjs/rest: buckets, Retry-After, the global limit, 5xx retries), and the reads that tools and
 * resources share. Every failure leaves here as a ChatError, with the token scrubbed from its text.
 */
import type { REST } from "@discordjs/rest";
import type { APIChannel, APIGuildChannel, APIMessage, APIPartialGuild, APIRole, RESTGetAPIChannelMessagesQuery } from "discord-api-types/v10";
import { Routes } from "discord-api-types/rest/v10";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { ChatError, fromDiscord, notConnected, tokenRefused, type CallScope } from "./errors.ts";
import type { ChatGateway } from "./gateway.ts";
import { channelView, messageView, roleView } from "./views.ts";

export type ChatConfig = Config["chat"];

/** A configured token, or why there is none. */
export type BotToken = { token: string } | { token?: undefined; missing: string };

export class ChatService {
  readonly #token?: string;
  readonly #missing?: string;
  #applicationId?: Promise<string>;
  #botUserId?: Promise<string>;

  constructor(
    readonly config: ChatConfig,
    readonly log: Logger,
    token: BotToken,
    readonly rest?: REST,
    readonly gateway?: ChatGateway,
  ) {
    if (token.token) this.#token = token.token;
    else this.#missing = (token as { missing: string }).missing;
  }

  /** The session's state for /health: `disconnected` with no token. */
  get state(): string {
    return this.gateway?.state ?? "disconnected";
  }

  /** Why the session is not ready, in words. */
  get reason(): string | undefined {
    return this.#missing ?? this.gateway?.context?.reason;
  }

  /**
   * Runs one Discord operation: refuses it when there is no usable token or the guild is not allowed, and turns
   * whatever fails into a ChatError.
   */
  async call<T>(scope: CallScope, run: (rest: REST) => Promise<T>): Promise<T> {
    try {
      const rest = this.#usable();
      await this.assertAllowed(scope, rest);
      return await run(rest);
    } catch (error) {
      const failure = await fromDiscord(error, scope);
      if (failure.type === "ChatNotConnectedError" && (error as { status?: number }).status === 401) this.gateway?.tokenRefused();
      throw this.#scrubbed(failure);
    }
  }

  /** Destructive tools need the caller's confirmation unless the operator turned that off. */
  requireConfirm(confirm: boolean | undefined): void {
    if (this.config.confirm_destructive && confirm !== true)
      throw new ChatError(
        "InvalidInputError",
        "This action cannot be undone and needs confirm: true",
        "Ask the user to agree, then call again with confirm: true.",
      );
  }

  /** The bot's application id, for application commands; asked for once. */
  applicationId(rest: REST): Promise<string> {
    this.#applicationId ??= (rest.get(Routes.currentApplication()) as Promise<{ id: string }>).then(({ id }) => id);
    this.#applicationId.catch(() => (this.#applicationId = undefined));
    return this.#applicationId;
  }

  /** The bot's own user id: from the gateway's READY, else asked for once. */
  botUserId(rest: REST): Promise<string> {
    const known = this.gateway?.context?.bot?.id;
    if (known) return Promise.resolve(known);
    this.#botUserId ??= (rest.get(Routes.user()) as Promise<{ id: string }>).then(({ id }) => id);
    this.#botUserId.catch(() => (this.#botUserId = undefined));
    return this.#botUserId;
  }

  // --- reads shared by tools and resources ---

  async guilds(rest: REST) {
    const guilds = (await rest.get(Routes.userGuilds(), { query: new URLSearchParams({ with_counts: "true" }) })) as (APIPartialGuild & { approximate_member_count?: number })[];
    const allowed = this.config.allowed_guilds;
    return guilds
      .filter((guild) => !allowed.length || allowed.includes(guild.id))
      .map((guild) => ({ id: guild.id, name: guild.name, memberCount: guild.approximate_member_count }));
  }

  async channels(rest: REST, guildId: string) {
    const channels = (await rest.get(Routes.guildChannels(guildId))) as APIGuildChannel[];
    return channels.map((channel) => channelView(channel as APIChannel)).sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
  }

  async roles(rest: REST, guildId: string) {
    const roles = (await rest.get(Routes.guildRoles(guildId))) as APIRole[];
    return roles.sort((a, b) => b.position - a.position).map(roleView);
  }

  /** A page of messages, newest first, with the cursors for the next page either way. */
  async messages(rest: REST, channelId: string, query: RESTGetAPIChannelMessagesQuery) {
    const params = new URLSearchParams(Object.entries(query).flatMap(([key, value]): [string, string][] => (value === undefined ? [] : [[key, String(value)]])));
    const page = (await rest.get(Routes.channelMessages(channelId), { query: params })) as APIMessage[];
    return {
      messages: page.map(messageView),
      // Discord answers newest first: older messages are before the last id, newer ones after the first.
      before: page.at(-1)?.id,
      after: page[0]?.id,
    };
  }

  #usable(): REST {
    if (!this.rest) throw notConnected(`No bot token is configured (${this.#missing})`, tokenResolution);
    if (this.gateway?.state === "invalid_token") throw tokenRefused();
    return this.rest;
  }

  /** Refuses a guild (or a channel's guild) not on chat.allowed_guilds; a tool that learns its guild late asks itself. */
  async assertAllowed({ guildId, channelId }: CallScope, rest: REST): Promise<void> {
    const allowed = this.config.allowed_guilds;
    if (!allowed.length) return;
    const guilds = [guildId, channelId && (await this.#guildOf(channelId, rest))];
    for (const guild of guilds) {
      if (guild === undefined) continue;
      if (!guild || !allowed.includes(guild))
        throw new ChatError(
          "PermissionDeniedError",
          guild ? `Guild ${guild} is not on this server's allowlist` : `Channel ${channelId} is not in a guild on this server's allowlist`,
          `Use a guild listed in chat.allowed_guilds (${allowed.join(", ")}), or ask the operator to add this one.`,
        );
    }
  }

  /** The guild a channel belongs to ("" for a direct message channel), from the gateway or else asked for once. */
  async #guildOf(channelId: string, rest: REST): Promise<string> {
    const known = this.gateway?.guildOf.get(channelId);
    if (known) return known;
    const channel = (await rest.get(Routes.channel(channelId))) as APIChannel;
    const guild = "guild_id" in channel && channel.guild_id ? channel.guild_id : "";
    if (guild) this.gateway?.guildOf.set(channelId, guild);
    return guild;
  }

  #scrubbed(error: ChatError): ChatError {
    const token = this.#token;
    if (!token || (!error.message.includes(token) && !error.resolution.includes(token))) return error;
    const scrub = (text: string) => text.replaceAll(token, "[REDACTED]");
    return new ChatError(error.type, scrub(error.message), scrub(error.resolution), error.retryAfterMs);
  }
}

const tokenResolution =
  "Set CHAT_TOKEN to the bot's token (Discord developer portal > your application > Bot > Reset Token), or store it in the vault " +
  "and name that service in chat.token_from_vault; then restart the server.";
