/** The REST, SSE and WebSocket surfaces on real HTTP, the error model, reports in every format, and API keys. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createParser } from "eventsource-parser";
import type { TestResult } from "../../src/browser/model.ts";
import { stores, storesForFile } from "../support/stores.ts";
import { startSite } from "./site.ts";
import { startBrowserApp, type BrowserApp } from "./support.ts";

const fixture = storesForFile();
const site = startSite();
afterAll(() => site.stop());
const key = "k".repeat(24);

/** The events of an SSE response, in order. */
async function events(response: Response): Promise<{ event?: string; data: unknown }[]> {
  const seen: { event?: string; data: unknown }[] = [];
  const parser = createParser({ onEvent: (e) => void seen.push({ event: e.event, data: JSON.parse(e.data) }) });
  for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) parser.feed(chunk);
  return seen;
}

describe.each(stores)("on %s", (kind) => {
  let app: BrowserApp;
  beforeAll(async () => {
    app = await startBrowserApp({ PLATFORM_BROWSER__WARM_SESSIONS: "1", ...(await fixture.fresh(kind)).env });
  });
  afterAll(() => app?.close());

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${app.base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

  test("GET / describes the API and lists every route; /openapi.json documents them from the same schemas", async () => {
    const info = (await fetch(`${app.base}/`).then((r) => r.json())) as { routes: { method: string; path: string }[]; websocket: { path: string } };
    const routes = info.routes.map((r) => `${r.method} ${r.path}`);
    for (const route of ["POST /navigate", "POST /screenshot", "POST /test/connectivity", "POST /test/exploratory", "POST /test/accessibility", "GET /results/:id", "POST /tools/:name"])
      expect(routes).toContain(route);
    expect(info.websocket.path).toBe("/ws/{client_id}");
    const spec = (await fetch(`${app.base}/openapi.json`).then((r) => r.json())) as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: { properties: object } }> } }>> };
    expect(Object.keys(spec.paths)).toEqual(expect.arrayContaining(["/navigate", "/test/accessibility", "/results/{id}"]));
    expect(spec.paths["/navigate"]!.post!.requestBody!.content["application/json"]!.schema.properties).toHaveProperty("url");
  });

  test("navigate and screenshot over REST; the screenshot downloads", async () => {
    expect(await post("/navigate", { url: site.url("/") }).then((r) => r.json())).toMatchObject({ status: "success", title: "Fixture shop" });
    const shot = (await post("/screenshot", { name: "rest-home" }).then((r) => r.json())) as { status: string; screenshot: { name: string; timestamp: string; file: string } };
    expect(shot).toMatchObject({ status: "success", screenshot: { name: "rest-home", file: "/screenshots/rest-home" } });
    const file = await fetch(`${app.base}${shot.screenshot.file}`);
    expect(file.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await file.arrayBuffer()).subarray(1, 4)).toEqual(new TextEncoder().encode("PNG"));
  });

  test("errors are { error: { type, message, details } } with their status everywhere", async () => {
    const refused = await post("/navigate", { url: "javascript:alert(1)" });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: { type: "ValidationError", message: expect.stringContaining("javascript:") } });
    const invalid = await post("/navigate", { link: "x" });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({ error: { type: "ValidationError" } });
    const malformed = await fetch(`${app.base}/navigate`, { method: "POST", headers: { "content-type": "application/json" }, body: "{" });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ error: { type: "ValidationError" } });
    const missing = await fetch(`${app.base}/results/run_nope`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: "NotFoundError", message: "No test result run_nope" } });
    const timeout = await post("/tools/wait_for", { text: "never", timeout_ms: 200 });
    expect(timeout.status).toBe(504);
    expect(await timeout.json()).toMatchObject({ error: { type: "TimeoutError" } });
    const closedPort = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
    const port = closedPort.port;
    await closedPort.stop(true);
    const unreachable = await post("/navigate", { url: `http://127.0.0.1:${port}/` });
    expect(unreachable.status).toBe(502);
    expect(await unreachable.json()).toMatchObject({ error: { type: "BrowserError", details: { reason: "ERR_CONNECTION_REFUSED" } } });
  });

  test("a test streams ProgressUpdate events then the TestResult; the result is stored and downloadable in four formats", async () => {
    const response = await post("/test/accessibility", { url: site.url("/a11y"), standard: "WCAG2.1-AA" });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    const stream = await events(response);
    const progress = stream.filter((e) => e.event === "progress").map((e) => e.data as { category: string; phase: string; message: string; timestamp: string });
    expect(progress.map((p) => p.phase)).toEqual(["start", "check", "done"]);
    expect(progress[0]).toMatchObject({ category: "accessibility", timestamp: expect.any(String) });
    expect(stream.at(-1)!.event).toBe("result");
    const result = stream.at(-1)!.data as TestResult;
    expect(result).toMatchObject({ status: "error", test: "accessibility", duration: expect.any(Number), screenshots: [] });

    expect(await fetch(`${app.base}/results/${result.id}`).then((r) => r.json())).toEqual(result);
    const json = await fetch(`${app.base}${result.reports.json}`);
    expect(((await json.json()) as TestResult).findings).toHaveLength(5);
    const junit = await fetch(`${app.base}${result.reports.junit}`).then((r) => r.text());
    expect(junit).toContain('<testsuite name="accessibility ' + site.url("/a11y") + '"');
    expect(junit.match(/<failure /g)).toHaveLength(5);
    const sarif = (await fetch(`${app.base}${result.reports.sarif}`).then((r) => r.json())) as { version: string; runs: { tool: { driver: { rules: { id: string }[] } }; results: { ruleId: string; level: string }[] }[] };
    expect(sarif.version).toBe("2.1.0");
    expect(sarif.runs[0]!.tool.driver.rules.map((r) => r.id).sort()).toEqual(["button-name", "color-contrast", "html-has-lang", "image-alt", "label"]);
    expect(sarif.runs[0]!.results.find((r) => r.ruleId === "color-contrast")!.level).toBe("error");
    const page = await fetch(`${app.base}${result.reports.html}`);
    expect(page.headers.get("content-type")).toBe("text/html; charset=utf-8");
    const text = await page.text();
    expect(text).toContain("Failed");
    expect(text).toContain("Elements must meet minimum color contrast ratio thresholds");
    expect(text).not.toMatch(/<(script|link)\b|src="http/);

    const plain = await post("/test/security", { url: site.url("/secure-good") }, { accept: "application/json" });
    expect(await plain.json()).toMatchObject({ test: "security", status: "success" });
  });

  test("the WebSocket protocol: commands, progress, errors, and a second socket with the same client id replacing the first", async () => {
    const url = `${app.base.replace("http", "ws")}/ws/client-1`;
    const first = new WebSocket(url);
    const closed = new Promise<number>((resolve) => (first.onclose = (e) => resolve(e.code)));
    const inbox: Record<string, unknown>[] = [];
    const waiters: ((m: Record<string, unknown>) => void)[] = [];
    first.onmessage = (e) => {
      const message = JSON.parse(String(e.data));
      inbox.push(message);
      for (const wake of waiters.splice(0)) wake(message);
    };
    const until = async (match: (m: Record<string, unknown>) => boolean) => {
      for (;;) {
        const found = inbox.find(match);
        if (found) return found;
        await new Promise<Record<string, unknown>>((resolve) => waiters.push(resolve));
      }
    };
    await new Promise((resolve) => (first.onopen = resolve));
    first.send(JSON.stringify({ type: "command", id: "1", action: "navigate_to_url", params: { url: site.url("/next") } }));
    expect(await until((m) => m.id === "1")).toMatchObject({ type: "result", action: "navigate_to_url", result: { title: "Next page" } });
    first.send(JSON.stringify({ type: "command", id: "2", action: "run_security_test", params: { url: site.url("/secure-bad") } }));
    const done = await until((m) => m.id === "2" && m.type === "result");
    expect(inbox.filter((m) => m.id === "2" && m.type === "progress").length).toBeGreaterThanOrEqual(2);
    expect((done.result as TestResult).findings).toHaveLength(10);
    first.send(JSON.stringify({ type: "command", id: "3", action: "fly", params: {} }));
    expect(await until((m) => m.id === "3")).toMatchObject({ type: "error", error: { type: "NotFoundError", message: "No action fly" } });
    first.send(JSON.stringify({ type: "command", id: "4", action: "navigate_to_url", params: { url: 42 } }));
    expect(await until((m) => m.id === "4")).toMatchObject({ type: "error", error: { type: "ValidationError" } });

    const second = new WebSocket(url);
    const opened = new Promise((resolve) => (second.onopen = resolve));
    const reply = new Promise<Record<string, unknown>>((resolve) => (second.onmessage = (e) => resolve(JSON.parse(String(e.data)))));
    expect(await closed).toBe(4000);
    await opened;
    // Same client id, same browser session: the page opened by the first socket is still there.
    second.send(JSON.stringify({ type: "command", id: "5", action: "snapshot_page", params: {} }));
    expect(await reply).toMatchObject({ type: "result", result: { title: "Next page" } });
    second.close();
  });
});

test("the extra listener (browser.listen) serves the same routes and /health for clients of the original server", async () => {
  const extra = await startBrowserApp({ PLATFORM_BROWSER__LISTEN: "127.0.0.1:0" });
  try {
    const base = extra.capability.extraListener()!;
    expect(base).toMatch(/^http:\/\/127.0.0.1:\d+$/);
    expect(await fetch(`${base}/health`).then((r) => r.json())).toMatchObject({ subsystems: { browser: { browser: "available" } } });
    expect(await fetch(`${base}/navigate`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: site.url("/") }) }).then((r) => r.json())).toMatchObject({ title: "Fixture shop" });
    const missing = await fetch(`${base}/nowhere`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ error: { type: "NotFoundError" } });
  } finally {
    await extra.close();
  }
});

test("with api_keys set, REST, WebSocket and MCP over HTTP want the bearer key", async () => {
  const guarded = await startBrowserApp({ PLATFORM_BROWSER__API_KEYS: key });
  try {
    const denied = await fetch(`${guarded.base}/results`);
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ error: { type: "AuthenticationError" } });
    expect((await fetch(`${guarded.base}/results`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect((await fetch(`${guarded.base}/results`, { headers: { authorization: "Bearer wrong-key-of-some-length" } })).status).toBe(401);
    await expect(guarded.mcp()).rejects.toThrow();
    const client = await guarded.mcp({ authorization: `Bearer ${key}` });
    expect((await client.listTools()).tools.length).toBeGreaterThan(20);
    const socket = new WebSocket(`${guarded.base.replace("http", "ws")}/ws/x`);
    expect(await new Promise((resolve) => ((socket.onerror = () => resolve("refused")), (socket.onopen = () => resolve("open"))))).toBe("refused");
  } finally {
    await guarded.close();
  }
});
