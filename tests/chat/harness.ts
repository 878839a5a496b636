/**
 * The chat server under test: the Discord stand-in, the runtime with the chat capability on a loopback port, and
 * MCP SDK clients on /mcp/chat. Log lines are kept, so a suite can check what was (and was not) written.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { SnapshotFrom } from "xstate";
import type { chatSessionMachine, ChatSessionState } from "../../actors/chat-session.machine.ts";
import { chatCapability } from "../../src/chat/capability.ts";
import { chatSessionKind } from "../../src/chat/session.ts";
import { createLogger } from "../../src/log.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { startDiscord, type DiscordStandIn, type StandInOptions } from "../support/discord/server.ts";

export interface ChatHarness {
  discord: DiscordStandIn;
  app: RunningApp;
  lines: string[];
  client(): Promise<Client>;
  /** Resolves once the bot's session actor is in `state`. */
  untilState(state: ChatSessionState): Promise<void>;
  /** Resolves once a stored snapshot of the session actor satisfies `check`. */
  untilSession(check: (snapshot: SessionSnapshot) => boolean): Promise<void>;
  close(): Promise<void>;
}

export interface ChatOptions {
  /** Settings for the server; a function of the stand-in when they name its ids. */
  env?: Record<string, string> | ((discord: DiscordStandIn) => Record<string, string>);
  discord?: StandInOptions;
  /** The bot token the server is given; null for none. The stand-in's own by default. */
  token?: string | null;
  /** An existing data dir, kept at close. */
  dataDir?: string;
}

export async function startChat({ env = {}, discord: discordOptions = {}, token, dataDir }: ChatOptions = {}): Promise<ChatHarness> {
  const discord = await startDiscord({ heartbeatIntervalMs: 200, ...discordOptions });
  const lines: string[] = [];
  const log = createLogger({ level: "debug", write: (line) => void lines.push(line) });
  const app = await startApp([chatCapability], {
    log,
    dataDir,
    env: {
      ...(token === null ? {} : { CHAT_TOKEN: token ?? discord.token }),
      PLATFORM_CHAT__API_BASE: discord.api,
      PLATFORM_CHAT__RECONNECT_BASE_MS: "20",
      ...(typeof env === "function" ? env(discord) : env),
    },
  });
  const clients: Client[] = [];
  return {
    discord,
    app,
    lines,
    async client() {
      const client = new Client({ name: "chat-test", version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${app.base}/mcp/chat`)));
      clients.push(client);
      return client;
    },
    untilState: (state) => untilSession(app, (snapshot) => snapshot.value === state),
    untilSession: (check) => untilSession(app, check),
    async close() {
      await Promise.all(clients.map((c) => c.close()));
      await app.close();
      await discord.stop();
    },
  };
}

/** This process's session actor (a crashed process's may be restored beside it, stopped). */
export function currentSession(runtime: RunningApp["runtime"]) {
  const actor = [...runtime.actors.live(chatSessionKind)].find((a) => a.getSnapshot().value !== "stopped");
  if (!actor) throw new Error("no chat session actor is live");
  return actor;
}

export type SessionSnapshot = SnapshotFrom<typeof chatSessionMachine>;

function untilSession({ runtime }: RunningApp, check: (snapshot: SessionSnapshot) => boolean): Promise<void> {
  const actor = currentSession(runtime);
  if (check(actor.getSnapshot())) return Promise.resolve();
  const { promise, resolve } = Promise.withResolvers<void>();
  const unsubscribe = runtime.actors.subscribe(chatSessionKind, actor.id, (snapshot) => {
    if (!check(snapshot)) return;
    unsubscribe?.();
    resolve();
  });
  return promise;
}

/** The one text item of a failed call. */
export function errorText(result: unknown): string {
  const { isError, content } = result as CallToolResult;
  if (!isError) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return (content[0] as { text: string }).text;
}

/** The structured content of a successful call. */
export function structured<T = Record<string, any>>(result: unknown): T {
  const { isError, structuredContent, content } = result as CallToolResult;
  if (isError) throw new Error(`expected success, got ${(content[0] as { text: string }).text}`);
  return structuredContent as T;
}

/** Calls tools on one client; `refused` also checks that no request reached Discord for the call. */
export function caller(chat: ChatHarness, client: Client) {
  const call = (name: string, args: Record<string, unknown>) => client.callTool({ name, arguments: args });
  return {
    call,
    ok: async <T = Record<string, any>>(name: string, args: Record<string, unknown>) => structured<T>(await call(name, args)),
    failed: async (name: string, args: Record<string, unknown>) => errorText(await call(name, args)),
    async refused(name: string, args: Record<string, unknown>) {
      const before = chat.discord.requests.length;
      const text = errorText(await call(name, args));
      if (chat.discord.requests.length !== before) throw new Error(`${name} sent a request for input it should have refused: ${text}`);
      return text;
    },
    lastRequest: () => chat.discord.requests.at(-1)!,
  };
}

/** A chat server, one MCP client's tool caller, and the stand-in's ids: what a file of tool tests shares. */
export async function chatWithTools({ ready = false, ...options }: ChatOptions & { ready?: boolean } = {}) {
  const chat = await startChat(options);
  if (ready) await chat.untilState("ready");
  return { chat, tools: caller(chat, await chat.client()), ids: chat.discord.ids, guildId: chat.discord.guild.id };
}
export type ChatTools = Awaited<ReturnType<typeof chatWithTools>>;
