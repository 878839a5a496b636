import { afterEach, describe, expect, test } from "bun:test";
import { chatSessionKind } from "../../src/chat/session.ts";
import { findActor } from "../../actors/repo.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { openVault } from "../../src/vault/offline.ts";
import { openStoreOf, stores, storesForFile } from "../support/stores.ts";
import { tempDir } from "../support/temp.ts";
import { currentSession, startChat, type ChatHarness } from "./harness.ts";

const fixture = storesForFile();

let chat: ChatHarness | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

const health = async () => (await fetch(`${chat!.app.base}/health`)).json() as Promise<Record<string, any>>;
const sessionActor = () => currentSession(chat!.app.runtime);

test("a dropped socket is resumed on the resume URL, not identified again", async () => {
  chat = await startChat();
  await chat.untilState("ready");
  const reconnecting = chat.untilState("reconnecting");
  chat.discord.gateway.drop();
  await reconnecting;
  await chat.discord.gateway.until(() => chat!.discord.gateway.log.resumes === 1);
  await chat.untilState("ready");
  expect(chat.discord.gateway.log).toMatchObject({ identifies: 1, resumes: 1 });
});

test("RECONNECT makes the bot resume; INVALID_SESSION that cannot be resumed makes it identify afresh", async () => {
  chat = await startChat();
  await chat.untilState("ready");
  const { gateway } = chat.discord;
  gateway.askReconnect();
  await gateway.until(() => gateway.log.resumes === 1 && gateway.liveSockets === 1);
  await chat.untilState("ready");
  gateway.invalidate(false);
  await gateway.until(() => gateway.log.identifies === 2);
  await chat.untilState("ready");
  expect(sessionActor().getSnapshot().context.sessionId).toBe("session-2");
  // Discord allows one IDENTIFY per 5 seconds; the library waits that out.
}, 15_000);

test("an unreachable gateway is retried with growing waits, and the session comes back when it returns", async () => {
  chat = await startChat({ env: { PLATFORM_CHAT__RECONNECT_BASE_MS: "40" } });
  await chat.untilState("ready");
  const { gateway } = chat.discord;
  gateway.refuseConnections = true;
  const waits = new Map<number, number>();
  const unsubscribe = chat.app.runtime.actors.subscribe(chatSessionKind, sessionActor().id, ({ value, context }) => {
    if (value === "reconnecting" && !waits.has(context.attempt)) waits.set(context.attempt, context.deadline! - Date.now());
  });
  gateway.drop();
  await chat.untilSession(({ context }) => context.attempt >= 4);
  unsubscribe?.();
  // Immediate first, then the base, doubling.
  expect(waits.get(1)).toBeLessThanOrEqual(5);
  expect(waits.get(2)).toBeWithin(20, 41);
  expect(waits.get(3)).toBeWithin(60, 81);
  expect(waits.get(4)).toBeWithin(140, 161);
  gateway.refuseConnections = false;
  await chat.untilState("ready");
  expect(sessionActor().getSnapshot().context.attempt).toBe(0);
  // The session could not be resumed on a refused socket, so it identified again, after Discord's 5 seconds.
  expect(gateway.log.resumes).toBe(0);
  expect(gateway.log.identifies).toBe(2);
}, 15_000);

test("a refused token ends in invalid_token, said in /health; nothing reconnects", async () => {
  chat = await startChat({ token: "MTIz.wrong.token" });
  await chat.untilState("invalid_token");
  const body = await health();
  expect(body).toMatchObject({ status: "degraded", chat: "invalid_token", subsystems: { chat: { status: "degraded", state: "invalid_token" } } });
  expect(body.subsystems.chat.reason).toContain("refused the token");
  expect(chat.discord.gateway.log.connections).toBe(0);
});

test("a token the gateway refuses (4004) also ends in invalid_token", async () => {
  chat = await startChat();
  await chat.untilState("ready");
  chat.discord.revokeToken();
  chat.discord.gateway.drop();
  await chat.untilState("invalid_token");
  expect((await health()).chat).toBe("invalid_token");
});

test("without a token the server runs, /health is ok and says why the session is disconnected", async () => {
  chat = await startChat({ token: null });
  const body = await health();
  expect(body).toMatchObject({ status: "ok", chat: "disconnected", subsystems: { chat: { status: "ok", state: "disconnected" } } });
  expect(body.subsystems.chat.reason).toContain("CHAT_TOKEN");
  expect(chat.discord.requests).toHaveLength(0);
});

describe.each(stores)("on %s", (kind) => {
  test("with a token the bot identifies, becomes ready, heartbeats, and /health says so at the top and in its part", async () => {
    chat = await startChat({ env: (await fixture.fresh(kind)).env });
    await chat.untilState("ready");
    await chat.discord.gateway.until(() => chat!.discord.gateway.log.heartbeats >= 1);
    expect(chat.discord.gateway.log).toMatchObject({ identifies: 1, resumes: 0, intents: [1] });
    const body = await health();
    expect(body).toMatchObject({ status: "ok", chat: "ready", subsystems: { chat: { status: "ok", state: "ready", bot: "platform-bot", guilds: 2 } } });
    // The transition is stored by the actor system, and the token is not in what was stored.
    const row = (await findActor(chat.app.runtime.database.db, sessionActor().id))!;
    expect(row.state).toBe("ready");
    expect(JSON.stringify(row.snapshot)).not.toContain(chat.discord.token);
  });

  test("at shutdown the session is stored as stopped; one left live by a crash is stopped when the server next starts", async () => {
    const dir = tempDir();
    const store = await fixture.fresh(kind);
    try {
      chat = await startChat({ dataDir: dir.path, env: store.env });
      await chat.untilState("ready");
      const crashed = sessionActor().id;
      // A crash: the actors stop without hearing of it, so the stored row still says ready.
      await chat.app.runtime.actors.stop();
      await chat.close();
      chat = await startChat({ dataDir: dir.path, env: store.env });
      await chat.untilState("ready");
      const db = chat.app.runtime.database.db;
      expect((await findActor(db, crashed))!.state).toBe("stopped");
      const current = sessionActor().id;
      await chat.close();
      chat = undefined;
      const reopened = await openStoreOf(dir.path, store.env);
      expect((await findActor(reopened.db, current))!.state).toBe("stopped");
      await reopened.close();
    } finally {
      dir.remove();
    }
  });

  test("the token can come from the vault (chat.token_from_vault), never from the environment", async () => {
    const dir = tempDir();
    const { env } = await fixture.fresh(kind);
    try {
      const discordToken = "MTIz.vault-kept.bot-token-abcdef0123456789";
      const config = loadConfig({ env: { PLATFORM_DATA_DIR: dir.path, ...env } });
      const opened = await openVault(config, createLogger({ level: "error", write: () => {} }));
      await opened.vault.store.initialize();
      await opened.vault.addService(
        { name: "discord", template: "custom", base_url: "https://discord.com/api", injection: { type: "header", name: "Authorization", prefix: "Bot " }, credential: { token: discordToken } },
        { name: "admin", services: ["*"] },
      );
      await opened.close();
      chat = await startChat({ token: null, dataDir: dir.path, env: { PLATFORM_CHAT__TOKEN_FROM_VAULT: "discord", ...env }, discord: { token: discordToken } });
      await chat.untilState("ready");
      expect(chat.discord.requests.every((r) => r.authorized)).toBe(true);
      expect(chat.lines.join("\n")).not.toContain(discordToken);
      await chat.close();
      // A service the vault does not have: the server runs, and says why it has no token.
      chat = await startChat({ token: null, dataDir: dir.path, env: { PLATFORM_CHAT__TOKEN_FROM_VAULT: "nope", ...env } });
      expect((await health()).subsystems.chat).toMatchObject({ state: "disconnected", reason: "the vault has no token for service nope" });
      await chat.close();
      chat = undefined;
    } finally {
      dir.remove();
    }
  });
});
