/**
 * The bot's gateway connection. @discordjs/ws keeps the socket (HELLO, IDENTIFY, heartbeats, RESUME after a drop);
 * this driver tells the chat-session actor what happened, and the actor decides what comes next: every new
 * connection the library starts is held back while the actor waits out its reconnect backoff, and a failure the
 * library gives up on (GET /gateway/bot unreachable) is retried when the actor's deadline passes. The dispatches
 * keep a map from channel to guild, so the guild allowlist needs no extra request.
 */
import { randomUUID } from "node:crypto";
import type { REST } from "@discordjs/rest";
import { WebSocketManager, WebSocketShardEvents, type SessionInfo } from "@discordjs/ws";
import { GatewayDispatchEvents } from "discord-api-types/gateway/v10";
import type { GatewayDispatchPayload } from "discord-api-types/v10";
import type { ChatSessionContext, ChatSessionEvent, ChatSessionState } from "../../actors/chat-session.machine.ts";
import type { ActorSystem } from "../../actors/system.ts";
import type { Logger } from "../log.ts";
import { chatSessionKind } from "./session.ts";

export interface GatewayOptions {
  rest: REST;
  token: string;
  intents: number;
  /** Overrides the URL GET /gateway/bot names (a Discord-compatible server's gateway). */
  gatewayUrl: string;
  backoffBaseMs: number;
  backoffMaxMs: number;
}

/** States in which no connection may start. */
const holding = new Set<ChatSessionState>(["reconnecting", "stopped", "invalid_token"]);

export class ChatGateway {
  /** One session actor per process: a stdio server beside `serve` holds a bot session of its own. */
  readonly id = `chat-session-${randomUUID()}`;
  readonly #manager: WebSocketManager;
  #session: SessionInfo | null = null;
  /** Open while a connection the library starts is held back (see #sessionInfo). */
  #hold?: PromiseWithResolvers<void>;
  /** The library gave up (the gateway's address could not be fetched): the next attempt is ours to start. */
  #restart = false;
  /** Channel and thread id to guild id, from the dispatches. */
  readonly guildOf = new Map<string, string>();
  latencyMs?: number;

  constructor(
    private readonly actors: ActorSystem,
    private readonly log: Logger,
    private readonly options: GatewayOptions,
  ) {
    this.#manager = new ConfiguredManager(options.gatewayUrl, {
      token: options.token,
      intents: options.intents,
      rest: options.rest,
      // One session: a bot in fewer than 2,500 guilds. A larger one is told so (close code 4011).
      shardCount: 1,
      retrieveSessionInfo: () => this.#sessionInfo(),
      updateSessionInfo: (_shard, info) => {
        this.#session = info;
        if (!info) this.#send({ type: "SESSION_CLEARED" });
      },
    });
    this.#listen();
  }

  /** `disconnected` until the session starts. */
  get state(): ChatSessionState {
    return (this.#snapshot()?.value as ChatSessionState | undefined) ?? "disconnected";
  }

  get context(): ChatSessionContext | undefined {
    return this.#snapshot()?.context;
  }

  /** Spawns the session actor and connects; in a server that owns the data dir, only once its actors are restored. */
  connect(): void {
    const { backoffBaseMs, backoffMaxMs } = this.options;
    // Live at once; a refusal to store it is logged, and the connection goes on.
    this.actors.spawn(chatSessionKind, this.id, { backoffBaseMs, backoffMaxMs }).catch((error) => this.log.error("chat session could not be stored", { error }));
    this.actors.subscribe(chatSessionKind, this.id, ({ value }) => this.#entered(value as ChatSessionState));
    this.#send({ type: "CONNECT" });
    this.#start();
  }

  /** The API refused the token (401): nothing reconnects until the token is replaced. */
  tokenRefused(): void {
    if (this.state === "invalid_token") return;
    this.#send({ type: "TOKEN_REFUSED" });
    this.#close("Token refused");
  }

  stop(): void {
    this.#send({ type: "STOP" });
    this.#close("Shutting down");
  }

  /**
   * Closes the socket. Not awaited: while a connection waits for HELLO or READY, the library's destroy races its
   * own reconnect and may never settle. The socket closes all the same, and the reconnect it starts is held by
   * #sessionInfo, since the session is over.
   */
  #close(reason: string): void {
    this.#release();
    Promise.resolve(this.#manager.destroy({ code: 1000, reason })).catch((error: unknown) => this.log.debug("chat gateway close failed", { error: messageOf(error) }));
  }

  #snapshot() {
    return this.actors.get(chatSessionKind, this.id)?.getSnapshot();
  }

  /** The session moves at once; its write follows (a refused one is logged by the actor system, which reverts it). */
  #send(event: ChatSessionEvent): void {
    try {
      this.actors.tell(chatSessionKind, this.id, event);
    } catch (error) {
      this.log.error("chat session event refused", { event: event.type, error });
    }
  }

  #start(): void {
    this.#restart = false;
    this.#manager.connect().catch((error: unknown) => {
      if ((error as { status?: number }).status === 401) return this.#send({ type: "TOKEN_REFUSED" });
      // GET /gateway/bot failed (Discord unreachable, a 5xx after retries, no sessions left): back off and retry.
      this.log.warn("chat gateway could not start", { error: messageOf(error) });
      this.#restart = true;
      this.#send({ type: "CLOSED", at: Date.now(), code: 0, reason: `the gateway could not be reached (${messageOf(error)})` });
    });
  }

  /**
   * Asked by the library before each connection (and each heartbeat): holds a connection back while the session
   * waits out its backoff, and for good once the session is over (stopped, or its token refused).
   */
  async #sessionInfo(): Promise<SessionInfo | null> {
    while (holding.has(this.state)) {
      this.#hold ??= Promise.withResolvers<void>();
      await this.#hold.promise;
    }
    return this.#session;
  }

  #release(): void {
    const hold = this.#hold;
    this.#hold = undefined;
    hold?.resolve();
  }

  #entered(state: ChatSessionState): void {
    if (holding.has(state)) return;
    this.#release();
    if (state === "connecting" && this.#restart) this.#start();
  }

  #listen(): void {
    const manager = this.#manager;
    manager.on(WebSocketShardEvents.Hello, () => this.#send({ type: "HELLO" }));
    manager.on(WebSocketShardEvents.Ready, (data) =>
      this.#send({ type: "READY", at: Date.now(), sessionId: data.session_id, bot: { id: data.user.id, username: data.user.username }, guilds: data.guilds.length }),
    );
    manager.on(WebSocketShardEvents.Resumed, () => this.#send({ type: "RESUMED", at: Date.now() }));
    manager.on(WebSocketShardEvents.Closed, (code) => {
      if (this.state !== "stopped" && this.state !== "invalid_token") this.#send({ type: "CLOSED", at: Date.now(), code });
    });
    manager.on(WebSocketShardEvents.HeartbeatComplete, ({ latency }) => (this.latencyMs = latency));
    manager.on(WebSocketShardEvents.Dispatch, (payload) => this.#remember(payload));
    manager.on(WebSocketShardEvents.Error, (error) => this.log.warn("chat gateway error", { error: messageOf(error) }));
    manager.on(WebSocketShardEvents.SocketError, (error) => this.log.debug("chat gateway socket error", { error: messageOf(error) }));
    manager.on(WebSocketShardEvents.Debug, (message) => this.log.debug("chat gateway", { detail: message }));
  }

  #remember(payload: GatewayDispatchPayload): void {
    switch (payload.t) {
      case GatewayDispatchEvents.GuildCreate:
        for (const channel of [...payload.d.channels, ...payload.d.threads]) this.guildOf.set(channel.id, payload.d.id);
        break;
      case GatewayDispatchEvents.GuildDelete:
        for (const [channel, guild] of this.guildOf) if (guild === payload.d.id) this.guildOf.delete(channel);
        break;
      case GatewayDispatchEvents.ChannelCreate:
      case GatewayDispatchEvents.ThreadCreate:
        if ("guild_id" in payload.d && payload.d.guild_id) this.guildOf.set(payload.d.id, payload.d.guild_id);
        break;
      case GatewayDispatchEvents.ChannelDelete:
      case GatewayDispatchEvents.ThreadDelete:
        this.guildOf.delete(payload.d.id);
        break;
    }
  }
}

/** The library's manager, pointed at a configured gateway URL when there is one. */
class ConfiguredManager extends WebSocketManager {
  constructor(
    private readonly gatewayUrl: string,
    options: ConstructorParameters<typeof WebSocketManager>[0],
  ) {
    super(options);
  }

  override async fetchGatewayInformation(force?: boolean) {
    const info = await super.fetchGatewayInformation(force);
    return this.gatewayUrl ? { ...info, url: this.gatewayUrl } : info;
  }
}

/** An error's message alone: a library error may carry the request it failed on. */
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
