/**
 * Browser sessions as actors: restart after the browser dies, a stalled driver cut off at its deadline while
 * other sessions carry on, the cap on sessions, the idle timeout, named sessions across a server restart, and a
 * clean close at shutdown.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { browserSessionMachine } from "../../actors/browser-session.machine.ts";
import { sql } from "drizzle-orm";
import { createActor } from "xstate";
import { openStoreOf, stores, storesForFile } from "../support/stores.ts";
import { tempDir } from "../support/temp.ts";
import { password, startSite } from "./site.ts";
import { call, failure, startBrowserApp, type BrowserApp } from "./support.ts";

const site = startSite();
afterAll(() => site.stop());
const fixture = storesForFile();

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Resolves once the session's actor reaches `state`. */
function reaches(app: BrowserApp, id: string, state: string): Promise<void> {
  const { promise, resolve } = Promise.withResolvers<void>();
  const { actors } = app.runtime;
  const kind = app.capability.browser.pool.kind;
  if (actors.get(kind, id)?.getSnapshot().value === state) resolve();
  actors.subscribe(kind, id, (snapshot) => snapshot.value === state && resolve());
  return promise;
}
const contextOf = (app: BrowserApp, id: string) => app.runtime.actors.get(app.capability.browser.pool.kind, id)!.getSnapshot().context;

test("a session whose browser dies is relaunched and serves the next call", async () => {
  const app = await startBrowserApp();
  try {
    const client = await app.mcp();
    await call(client, "navigate_to_url", { url: site.url("/") });
    const [view] = app.capability.browser.pool.views();
    const pid = contextOf(app, view!.id).pid!;
    const relaunched = reaches(app, view!.id, "launching");
    process.kill(-pid, "SIGKILL");
    await relaunched;
    expect(await call(client, "navigate_to_url", { url: site.url("/next") })).toMatchObject({ title: "Next page" });
    const after = app.capability.browser.pool.views()[0]!;
    expect(after).toMatchObject({ id: view!.id, state: "idle", restarts: 1 });
  } finally {
    await app.close();
  }
}, 60_000);

test("a page that freezes its renderer costs its own session a deadline and a restart; another session carries on meanwhile", async () => {
  const app = await startBrowserApp({ PLATFORM_BROWSER__ACTION_TIMEOUT_MS: "1000", PLATFORM_BROWSER__NAVIGATION_TIMEOUT_MS: "2000" });
  try {
    const [stuck, other] = [await app.mcp(), await app.mcp()];
    await call(other, "navigate_to_url", { url: site.url("/") });
    // Committed at once, then asked for its title, which a frozen page never gives.
    const frozen = failure(stuck, "navigate_to_url", { url: site.url("/spin"), wait_until: "commit" });
    // While the frozen page holds its session, the other one keeps working.
    for (let i = 0; i < 3; i++) expect(await call(other, "navigate_to_url", { url: site.url(i % 2 ? "/" : "/next") })).toMatchObject({ status_code: 200 });
    expect(await frozen).toMatch(/^\[TimeoutError\] The browser did not finish navigate within 4000 ms; its session is restarted/);
    expect(await call(stuck, "navigate_to_url", { url: site.url("/") })).toMatchObject({ title: "Fixture shop" });
    expect(app.capability.browser.pool.views().find((v) => v.restarts === 1)).toBeDefined();
  } finally {
    await app.close();
  }
}, 60_000);

test("at the cap the least recently used idle session makes room; with every session busy a caller is told after the queue timeout", async () => {
  const app = await startBrowserApp({ PLATFORM_BROWSER__MAX_SESSIONS: "2", PLATFORM_BROWSER__QUEUE_TIMEOUT_MS: "500", PLATFORM_BROWSER__NAVIGATION_TIMEOUT_MS: "4000" });
  try {
    const [a, b, c] = [await app.mcp(), await app.mcp(), await app.mcp()];
    await call(a, "navigate_to_url", { url: site.url("/") });
    await call(b, "navigate_to_url", { url: site.url("/") });
    await call(c, "navigate_to_url", { url: site.url("/") });
    const owners = app.capability.browser.pool.views().map((v) => v.owner);
    expect(owners).toHaveLength(2);
    // a was the least recently used: it made room for c.
    expect(await call(b, "snapshot_page")).toMatchObject({ url: site.url("/") });

    const hung = [failure(b, "navigate_to_url", { url: site.url("/hang") }), failure(c, "navigate_to_url", { url: site.url("/hang") })];
    await Promise.all(app.capability.browser.pool.views().map((view) => reaches(app, view.id, "busy")));
    expect(await failure(a, "navigate_to_url", { url: site.url("/") })).toMatch(/^\[TimeoutError\] All 2 browser sessions are busy/);
    for (const message of await Promise.all(hung)) expect(message).toMatch(/^\[TimeoutError\] goto: Timeout 4000ms exceeded/);
  } finally {
    await app.close();
  }
}, 60_000);

test("an idle session closes after its timeout", async () => {
  const app = await startBrowserApp({ PLATFORM_BROWSER__IDLE_TIMEOUT_SECONDS: "1" });
  try {
    const client = await app.mcp();
    await call(client, "navigate_to_url", { url: site.url("/") });
    const [view] = app.capability.browser.pool.views();
    await reaches(app, view!.id, "closed");
    expect(contextOf(app, view!.id).reason).toBe("idle timeout");
    expect(app.capability.browser.pool.views()).toHaveLength(0);
  } finally {
    await app.close();
  }
}, 60_000);

describe.each(stores)("on %s", (kind) => {
  test("a named session keeps its cookies and local storage across a restart, encrypted at rest; it can be deleted", async () => {
    const dir = tempDir();
    const { env } = await fixture.fresh(kind);
    try {
      let app = await startBrowserApp(env, { dataDir: dir.path });
      let client = await app.mcp();
      await call(client, "fill_login_form", { url: site.url("/login"), username: "kept@example.com", password, session: "qa" });
      const pids = app.capability.browser.pool.views().map((v) => contextOf(app, v.id).pid!);
      await app.close();
      // Shutdown ends every browser.
      for (const pid of pids) expect(alive(pid)).toBe(false);
      const reopened = await openStoreOf(dir.path, env);
      const [stored] = await reopened.rows<{ sealed: string }>(sql`SELECT sealed FROM vault_secrets WHERE id = 'browser-session:qa'`);
      await reopened.close();
      expect(stored!.sealed).not.toContain("kept");
      expect(Buffer.from(stored!.sealed, "base64").toString("latin1")).not.toContain("session=");

      app = await startBrowserApp(env, { dataDir: dir.path });
      client = await app.mcp();
      expect(await call(client, "navigate_to_url", { url: site.url("/account"), session: "qa" })).toMatchObject({ title: "Your account" });
      await call(client, "navigate_to_url", { url: site.url("/storage"), session: "qa" });
      expect((await call<{ snapshot: string }>(client, "snapshot_page", { session: "qa" })).snapshot).toContain("yes");
      expect(await app.capability.browser.namedSessions()).toEqual([expect.objectContaining({ name: "qa", live: true, cookies: 1, origins: 1 })]);
      await app.capability.browser.deleteNamedSession("qa");
      expect(await app.capability.browser.namedSessions()).toEqual([]);
      expect(await call(client, "navigate_to_url", { url: site.url("/account"), session: "qa" })).toMatchObject({ title: "Sign in" });
      await app.close();
    } finally {
      dir.remove();
    }
  }, 90_000);
});

test("without Chromium, /health says unavailable and every tool answers a BrowserError saying how to install it", async () => {
  const app = await startBrowserApp({ PLATFORM_BROWSER__EXECUTABLE: "/nonexistent/chromium" });
  try {
    const health = (await fetch(`${app.base}/health`).then((r) => r.json())) as { status: string; subsystems: Record<string, unknown> };
    expect(health.status).toBe("degraded");
    expect(health.subsystems.browser).toMatchObject({ status: "degraded", browser: "unavailable", reason: "browser.executable /nonexistent/chromium does not exist" });
    const client = await app.mcp();
    const text = await failure(client, "navigate_to_url", { url: site.url("/") });
    expect(text).toMatch(/^\[BrowserError\] Chromium is not available: browser.executable \/nonexistent\/chromium does not exist/);
    expect(text).toContain("apt-get install -y chromium");
  } finally {
    await app.close();
  }
});

test("the session machine: a crashed session restarts while restarts are left, then only closes", () => {
  const actor = createActor(browserSessionMachine, { input: { owner: "mcp:x", idleTimeoutMs: 1000, maxRestarts: 1, at: 0 } }).start();
  actor.send({ type: "LAUNCHED", at: 1, pid: 10, browserVersion: "1" });
  expect(actor.getSnapshot()).toMatchObject({ value: "ready", context: { deadline: 1001 } });
  actor.send({ type: "WORK", operation: "navigate", at: 2 });
  expect(actor.getSnapshot()).toMatchObject({ value: "busy", context: { deadline: undefined, operation: "navigate" } });
  actor.send({ type: "CRASHED", reason: "gone" });
  actor.send({ type: "RESTART" });
  expect(actor.getSnapshot()).toMatchObject({ value: "launching", context: { restarts: 1 } });
  actor.send({ type: "LAUNCHED", at: 3, pid: 11, browserVersion: "1" });
  actor.send({ type: "CRASHED", reason: "gone again" });
  actor.send({ type: "RESTART" });
  expect(actor.getSnapshot().value).toBe("crashed");
  actor.send({ type: "CLOSE", reason: "gave up" });
  actor.send({ type: "CLOSED" });
  expect(actor.getSnapshot()).toMatchObject({ value: "closed", status: "done", context: { reason: "gave up" } });
});
