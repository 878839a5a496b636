/** The `browser` MCP server over Streamable HTTP with the real MCP client, driving Chromium against a local site. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { password, startSite, type Site } from "./site.ts";
import { call, failure, startBrowserApp, type BrowserApp } from "./support.ts";

let app: BrowserApp;
let site: Site;
beforeAll(async () => {
  site = startSite();
  app = await startBrowserApp({ PLATFORM_BROWSER__DENIED_HOSTS: "blocked.example", PLATFORM_BROWSER__WARM_SESSIONS: "1" });
});
afterAll(async () => {
  await app?.close();
  site?.stop();
});

const refOf = (snapshot: string, line: RegExp) => {
  const found = snapshot.split("\n").find((l) => line.test(l));
  const ref = found && /\[ref=(e\d+)\]/.exec(found)?.[1];
  if (!ref) throw new Error(`no element matching ${line} in:\n${snapshot}`);
  return ref;
};

test("the server lists the original tools and the interaction set, each with an output schema", async () => {
  const client = await app.mcp();
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const name of [
    "start_lsp_server",
    "run_exploratory_test",
    "run_accessibility_test",
    "run_responsive_test",
    "run_security_test",
    "run_playbook",
    "test_browser_connectivity",
    "navigate_to_url",
    "take_page_screenshot",
    "fill_login_form",
    "snapshot_page",
    "click",
    "type_text",
    "press_key",
    "select_option",
    "hover",
    "wait_for",
    "manage_tabs",
    "go_back",
    "go_forward",
    "console_messages",
    "network_requests",
    "close_session",
    "start_trace",
    "stop_trace",
  ])
    expect(names).toContain(name);
  for (const tool of tools) expect(tool.outputSchema).toMatchObject({ type: "object" });
  const login = tools.find((t) => t.name === "fill_login_form")!;
  expect(login.inputSchema.required).toEqual(["username", "password"]);
  const explore = tools.find((t) => t.name === "run_exploratory_test")!.inputSchema.properties as Record<string, { default?: unknown }>;
  expect([explore.max_depth!.default, explore.max_pages!.default, explore.include_forms!.default, explore.include_navigation!.default, explore.check_errors!.default]).toEqual([3, 10, true, true, true]);
  const a11y = tools.find((t) => t.name === "run_accessibility_test")!.inputSchema.properties as Record<string, { anyOf?: { const: string }[] }>;
  expect(a11y.standard!.anyOf!.map((s) => s.const)).toEqual(["WCAG2.1-A", "WCAG2.1-AA", "WCAG2.1-AAA", "WCAG2.2-AA"]);
});

test("connectivity reports the Chromium version and this session", async () => {
  const client = await app.mcp();
  const result = await call<{ browser: { version: string; user_agent: string }; session: { state: string } }>(client, "test_browser_connectivity");
  expect(result.browser.version).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
  expect(result.browser.user_agent).toContain("Chrome/");
  expect(result.session.state).toBe("idle");
});

test("navigate, snapshot and click by ref: the click changes the page, and refs name elements by role", async () => {
  const client = await app.mcp();
  const opened = await call(client, "navigate_to_url", { url: site.url("/") });
  expect(opened).toMatchObject({ status: "success", title: "Fixture shop", status_code: 200 });
  const { snapshot } = await call<{ snapshot: string }>(client, "snapshot_page");
  expect(snapshot).toContain('heading "Fixture shop" [level=1]');
  const clicked = await call<{ snapshot: string }>(client, "click", { ref: refOf(snapshot, /button "Press me"/), element: "Press me button", snapshot: true });
  expect(clicked.snapshot).toContain("paragraph [ref=e12]: clicked");
  const followed = await call(client, "click", { ref: refOf(clicked.snapshot, /link "Next page"/) });
  expect(followed).toMatchObject({ url: site.url("/next"), title: "Next page" });
  expect(await call(client, "go_back")).toMatchObject({ url: site.url("/") });
  expect(await call(client, "go_forward")).toMatchObject({ url: site.url("/next") });
  // A ref from a snapshot of another page no longer resolves: the error says so instead of clicking elsewhere.
  expect(await failure(client, "click", { ref: "e999" })).toMatch(/^\[NotFoundError\] No element e999 in the latest snapshot/);
});

test("type, select, press keys, hover and wait on a form", async () => {
  const client = await app.mcp();
  await call(client, "navigate_to_url", { url: site.url("/form") });
  const { snapshot } = await call<{ snapshot: string }>(client, "snapshot_page");
  await call(client, "type_text", { ref: refOf(snapshot, /textbox "Name"/), text: "Ada" });
  await call(client, "select_option", { ref: refOf(snapshot, /combobox "Size"/), values: ["Large"] });
  await call(client, "type_text", { selector: "#note", text: "abc", slowly: true });
  await call(client, "press_key", { key: "Shift+Tab" });
  await call(client, "hover", { selector: "#tip" });
  await call(client, "click", { selector: "#later" });
  const waited = await call<{ waited_ms: number }>(client, "wait_for", { text: "Ready now" });
  expect(waited.waited_ms).toBeGreaterThanOrEqual(0);
  const after = await call<{ snapshot: string }>(client, "snapshot_page");
  expect(after.snapshot).toContain('textbox "Name" [ref=');
  expect(after.snapshot).toMatch(/textbox "Name" \[ref=e\d+\]: Ada/);
  expect(after.snapshot).toMatch(/combobox "Size" \[ref=e\d+\]:\n(.*\n)*\s+- option "Large" \[selected\]/);
  // a, b, c typed key by key, then Shift and Tab.
  expect(after.snapshot).toContain("Keys: 5");
  expect(after.snapshot).toContain("Tip shown");
  expect(await failure(client, "wait_for", { text: "never there", timeout_ms: 300 })).toMatch(/^\[TimeoutError\] .*300ms/);
});

test("fill_login_form finds the fields itself, signs in, and says when the form stays", async () => {
  const client = await app.mcp();
  const wrong = await call(client, "fill_login_form", { url: site.url("/login"), username: "ada@example.com", password: "nope" });
  expect(wrong).toMatchObject({
    status: "warning",
    login_form_gone: false,
    messages: ["Wrong email or password"],
    fields: { username: 'input[name="email"]', password: 'input[name="password"]', submit: "button[type=\"submit\"]" },
  });
  const result = await client.callTool({ name: "fill_login_form", arguments: { username: "ada@example.com", password } });
  expect(result.structuredContent).toMatchObject({ status: "success", title: "Your account", login_form_gone: true, password_source: "text" });
  expect(JSON.stringify(result)).not.toContain(password);
  const { snapshot } = await call<{ snapshot: string }>(client, "snapshot_page");
  expect(snapshot).toContain('heading "Welcome, ada@example.com"');
});

test("each MCP session has its own browser context; a session name shares one", async () => {
  const [a, b] = [await app.mcp(), await app.mcp()];
  await call(a, "fill_login_form", { url: site.url("/login"), username: "a@example.com", password });
  expect(await call(a, "navigate_to_url", { url: site.url("/account") })).toMatchObject({ title: "Your account" });
  expect(await call(b, "navigate_to_url", { url: site.url("/account") })).toMatchObject({ title: "Sign in" });

  await call(a, "fill_login_form", { url: site.url("/login"), username: "shared@example.com", password, session: "team" });
  expect(await call(b, "navigate_to_url", { url: site.url("/account"), session: "team" })).toMatchObject({ title: "Your account" });
  const views = app.capability.browser.pool.views();
  expect(views.filter((v) => v.name === "team")).toHaveLength(1);
});

test("only http(s) URLs on allowed hosts are opened", async () => {
  const client = await app.mcp();
  for (const url of ["file:///etc/passwd", "javascript:alert(1)", "data:text/html,<h1>x</h1>", "chrome://settings"])
    expect(await failure(client, "navigate_to_url", { url })).toMatch(/^\[ValidationError\] Only http and https URLs may be opened/);
  expect(await failure(client, "navigate_to_url", { url: "http://blocked.example/" })).toMatch(/^\[ValidationError\] Navigation to blocked.example is not allowed/);
  expect(await failure(client, "navigate_to_url", { url: "not a url" })).toMatch(/^\[ValidationError\] Not a URL/);
  expect(await failure(client, "navigate_to_url", {})).toMatch(/^\[ValidationError\] Invalid arguments for tool navigate_to_url: url/);
});

test("console messages and network requests of the current tab are read back", async () => {
  const client = await app.mcp();
  await call(client, "navigate_to_url", { url: site.url("/console") });
  await call(client, "wait_for", { selector: "h1" });
  const errors = await call<{ messages: { level: string; text: string }[] }>(client, "console_messages", { level: "error" });
  expect(errors.messages.map((m) => m.text)).toEqual(expect.arrayContaining(["boom from the page"]));
  const requests = await call<{ requests: { url: string; status: number }[] }>(client, "network_requests", { failed_only: true, include_static: true });
  expect(requests.requests).toEqual([expect.objectContaining({ url: site.url("/missing.png"), status: 404 })]);
});

test("tabs open, switch and close", async () => {
  const client = await app.mcp();
  await call(client, "navigate_to_url", { url: site.url("/") });
  const opened = await call<{ tabs: { index: number; current: boolean; title: string }[] }>(client, "manage_tabs", { action: "new", url: site.url("/form") });
  expect(opened.tabs).toEqual([expect.objectContaining({ index: 0, current: false }), expect.objectContaining({ index: 1, current: true, title: "Order form" })]);
  expect((await call<{ tabs: unknown[] }>(client, "manage_tabs", { action: "select", index: 0 })).tabs).toHaveLength(2);
  expect(await call(client, "snapshot_page")).toMatchObject({ title: "Fixture shop", tabs: 2 });
  const closed = await call<{ tabs: unknown[] }>(client, "manage_tabs", { action: "close", index: 1 });
  expect(closed.tabs).toHaveLength(1);
  expect(await failure(client, "manage_tabs", { action: "select", index: 5 })).toMatch(/^\[NotFoundError\] No tab 5/);
});

test("a screenshot comes back as an image and is saved; a trace is saved as a zip", async () => {
  const client = await app.mcp();
  await call(client, "navigate_to_url", { url: site.url("/") });
  await call(client, "start_trace");
  const shot = (await client.callTool({ name: "take_page_screenshot", arguments: { name: "home-page", full_page: true } })) as CallToolResult;
  const image = shot.content.find((c) => c.type === "image") as { data: string; mimeType: string };
  expect(image.mimeType).toBe("image/png");
  expect(Buffer.from(image.data, "base64").subarray(1, 4).toString()).toBe("PNG");
  expect(existsSync(join(app.capability.browser.artifactsDir, "screenshots", "home-page.png"))).toBe(true);
  const trace = await call<{ file: string; bytes: number }>(client, "stop_trace", { name: "home-trace" });
  expect(trace.file).toBe("/traces/home-trace");
  const zip = await Bun.file(join(app.capability.browser.artifactsDir, "traces", "home-trace.zip")).bytes();
  expect(zip.subarray(0, 2).toString()).toBe("80,75"); // "PK"
  expect(await failure(client, "stop_trace")).toMatch(/^\[ValidationError\] No trace is being recorded/);
});

test("close_session ends the browser; ending the MCP session ends its browser too", async () => {
  const client = await app.mcp();
  await call(client, "navigate_to_url", { url: site.url("/") });
  const before = app.capability.browser.pool.views().length;
  expect(await call(client, "close_session")).toMatchObject({ closed: true });
  expect(app.capability.browser.pool.views().length).toBe(before - 1);
  await call(client, "navigate_to_url", { url: site.url("/") });
  expect(app.capability.browser.pool.views().length).toBe(before);
  // The session ends when the client says so (DELETE); its browser ends with it.
  await (client.transport as StreamableHTTPClientTransport).terminateSession();
  expect(app.capability.browser.pool.views().length).toBe(before - 1);
});
