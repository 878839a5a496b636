/**
 * The chat-platform server joins the runtime: the bot's session actor and gateway, the `chat` MCP server (its
 * tools, resources and prompts) and its part of /health, which also carries the session's state as a top-level
 * `chat` string.
 */
import type { REST } from "@discordjs/rest";
import type { CapabilityFactory } from "../capability.ts";
import { chatFailure } from "./errors.ts";
import type { ChatGateway } from "./gateway.ts";
import { chatPrompts } from "./prompts.ts";
import { chatResources } from "./resources.ts";
import { ChatService } from "./service.ts";
import { chatSessionKind, intentBits } from "./session.ts";
import { botToken } from "./token.ts";
import { chatTools } from "./tools/all.ts";
import { toTool } from "./tools/tool.ts";

export const chatCapability: CapabilityFactory = async ({ config, log, database, actors, mcp, health, role }) => {
  const settings = config.chat;
  const chatLog = log.child({ component: "chat" });
  const intents = intentBits(settings.intents);
  actors.register(chatSessionKind);

  const token = await botToken(config, database.db);
  let rest: REST | undefined;
  let gateway: ChatGateway | undefined;
  // The Discord libraries (@discordjs/rest and @discordjs/ws, some 10 MB of memory) load only with a token: without
  // one no call goes out and no session starts.
  if (token.token) {
    const [{ restClient }, { ChatGateway }] = await Promise.all([import("./rest.ts"), import("./gateway.ts")]);
    // One REST client for the gateway's discovery and every tool, so they share buckets and the global limit.
    rest = restClient(settings, token.token, chatLog);
    gateway = new ChatGateway(actors, chatLog, {
      rest,
      token: token.token,
      intents,
      gatewayUrl: settings.gateway_url,
      backoffBaseMs: settings.reconnect_base_ms,
      backoffMaxMs: Math.max(settings.reconnect_base_ms, settings.reconnect_max_ms),
    });
  }
  const chat = new ChatService(settings, chatLog, token, rest, gateway);
  const resources = chatResources(chat);
  if (!token.token) chatLog.warn("chat server has no bot token; its tools will say how to set one", { reason: chat.reason });

  mcp
    .server("chat", {
      title: "Chat platform (Discord)",
      instructions:
        "Read and manage Discord guilds through the platform's bot: messages, channels, threads and forum posts, members, roles, " +
        "moderation, emojis, stickers, scheduled events, AutoMod rules and application commands. Ids are snowflakes (17 to 19 digits); " +
        "read chat://guilds first to find them. Destructive tools need confirm: true once the user has agreed.",
      failure: chatFailure,
    })
    .tool(...chatTools.filter((spec) => !settings.read_only || spec.kind === "read").map((spec) => toTool(spec, chat)))
    .resource(...resources.resources)
    .template(...resources.templates)
    .prompt(...chatPrompts(resources.completeGuild));

  health.register("chat", () => {
    const state = chat.state;
    const healthy = state === "ready" || !token.token;
    return {
      status: healthy ? "ok" : "degraded",
      state,
      ...(chat.reason && state !== "ready" ? { reason: chat.reason } : {}),
      ...(gateway?.context?.bot ? { bot: gateway.context.bot.username, guilds: gateway.context.guilds } : {}),
      ...(gateway?.latencyMs !== undefined ? { latencyMs: gateway.latencyMs } : {}),
    };
  });
  health.field("chat", () => chat.state);

  if (role === "guest") gateway?.connect();
  return {
    name: "chat",
    start: () => gateway?.connect(),
    stop: () => gateway?.stop(),
  };
};
chatCapability.mcpServers = ["chat"];
