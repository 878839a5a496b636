/**
 * The browser server over HTTP, on the original's paths: API information, connectivity, navigation, screenshots,
 * tests streamed as SSE (ProgressUpdate events, then the TestResult), stored results and their reports, named
 * sessions, every tool at POST /tools/<name>, the WebSocket protocol at /ws/<client_id>, and the OpenAPI document.
 * Errors are `{ error: { type, message, details } }`; when api_keys are set, every route wants a bearer key.
 */
import { Elysia, t } from "elysia";
import { toOpenAPISchema } from "@elysiajs/openapi/openapi";
import { checked } from "../mcp/call.ts";
import type { Logger } from "../log.ts";
import { constantTimeEqual } from "../vault/crypto.ts";
import { version } from "../version.ts";
import { actions } from "./actions.ts";
import { BrowserServiceError, errorBody, statusOf } from "./errors.ts";
import * as model from "./model.ts";
import { resourceAt } from "./resources/registry.ts";
import { reportFormats, type ReportFormat } from "./reports/render.ts";
import type { BrowserService, CallContext } from "./service.ts";
import { browserSocket } from "./socket.ts";

/** The first path segments this plugin owns; failures on them are answered in the browser's error shape. */
export const browserPrefixes = ["/navigate", "/screenshot", "/screenshots", "/test", "/playbook", "/results", "/sessions", "/traces", "/tools", "/ws", "/resources", "/openapi.json"];

const wantsStream = (request: Request) => !/application\/json/.test(request.headers.get("accept") ?? "") || /text\/event-stream/.test(request.headers.get("accept") ?? "");

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export function browserHttp(browser: BrowserService, log: Logger, apiKeys: string[]) {
  const owner = "rest";
  const authorized = (request: Request) => {
    if (!apiKeys.length) return true;
    const given = /^Bearer\s+(.+)$/i.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
    return apiKeys.some((key) => constantTimeEqual(key, given));
  };
  const unauthorized = () =>
    Response.json(
      { error: { type: "AuthenticationError", message: "Send Authorization: Bearer <api key>", details: {} } },
      { status: statusOf.AuthenticationError, headers: { "www-authenticate": "Bearer" } },
    );
  const context = (request: Request): CallContext => ({ owner, signal: request.signal });

  /** A test as an SSE stream (the default) or, for `Accept: application/json`, one JSON answer. */
  const streamed = (request: Request, run: (context: CallContext) => Promise<unknown>) => {
    if (!wantsStream(request)) return run(context(request));
    const encoder = new TextEncoder();
    const aborted = new AbortController();
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        const send = (event: string, data: unknown) => {
          if (!aborted.signal.aborted) controller.enqueue(encoder.encode(sse(event, data)));
        };
        void run({ owner, signal: aborted.signal, onProgress: (update) => send("progress", update) })
          .then(
            (result) => send("result", result),
            (error) => send("error", errorBody(error, log).body),
          )
          .finally(() => {
            if (!aborted.signal.aborted) controller.close();
          });
      },
      // The client went away: the run is cancelled in its browser.
      cancel: () => aborted.abort(),
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" } });
  };

  const file = async (handle: Bun.BunFile, type: string, what: string) => {
    if (!(await handle.exists())) throw BrowserServiceError.notFound(`No ${what}`);
    return new Response(handle, { headers: { "content-type": type } });
  };

  const app: Elysia<any, any, any, any, any, any, any> = new Elysia({ name: "browser.http" })
    .onError(({ error }) => {
      const { status, body } = errorBody(error, log);
      return Response.json(body, { status });
    })
    .onBeforeHandle(({ request }) => {
      if (!authorized(request)) return unauthorized();
    })
    // MCP over HTTP is the runtime's route; the browser's server on it wants the same key.
    .onRequest(({ request }) => {
      const path = new URL(request.url).pathname;
      if ((path === "/mcp/browser" || path.startsWith("/mcp/browser/")) && !authorized(request)) return unauthorized();
    })
    .get("/", () => ({
      name: "platform browser-testing server",
      version,
      documentation: "/openapi.json",
      mcp: { http: "/mcp/browser", stdio: "platform mcp browser" },
      websocket: { path: "/ws/{client_id}", command: { type: "command", id: "string", action: Object.keys(actions).join(" | "), params: "the tool's input" }, replies: ["result", "progress", "error"] },
      routes: routeList(),
    }), { detail: { summary: "API information and every route" } })
    .post("/test/connectivity", ({ body, request }) => browser.connectivity(body ?? {}, context(request)), { body: t.Optional(model.ConnectivityInput), detail: { summary: "Start (or reuse) the browser and check it answers" } })
    .post("/navigate", ({ body, request }) => browser.navigate(body, context(request)), { body: model.NavigateInput, response: { 200: model.NavigateResult }, detail: { summary: "Open a URL" } })
    .post("/screenshot", async ({ body, request }) => (await browser.screenshot(body, context(request))).result, { body: model.ScreenshotInput, response: { 200: model.ScreenshotResult }, detail: { summary: "Screenshot the page (or url) and save it under name" } })
    .get("/screenshots/:name", ({ params }) => file(browser.screenshotFile(params.name), "image/png", `screenshot named ${params.name}`), { params: t.Object({ name: model.ScreenshotInput.properties.name }), detail: { summary: "Download a saved screenshot" } })
    .get("/traces/:name", ({ params }) => file(browser.traceFile(params.name), "application/zip", `trace named ${params.name}`), { params: t.Object({ name: t.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$" }) }), detail: { summary: "Download a saved Playwright trace" } })
    .post("/test/exploratory", ({ body, request }) => streamed(request, (c) => browser.exploratory(body, c)), { body: model.ExploratoryInput, detail: { summary: "Exploratory crawl; SSE progress then the TestResult (JSON with Accept: application/json)" } })
    .post("/test/accessibility", ({ body, request }) => streamed(request, (c) => browser.accessibility(body, c)), { body: model.AccessibilityInput, detail: { summary: "axe-core at a WCAG level; SSE progress then the TestResult" } })
    .post("/test/responsive", ({ body, request }) => streamed(request, (c) => browser.responsive(body, c)), { body: model.ResponsiveInput, detail: { summary: "Layout at several viewports; SSE progress then the TestResult" } })
    .post("/test/security", ({ body, request }) => streamed(request, (c) => browser.security(body, c)), { body: model.SecurityInput, detail: { summary: "Passive security checks; SSE progress then the TestResult" } })
    .post("/playbook/execute", ({ body, request }) => (/text\/event-stream/.test(request.headers.get("accept") ?? "") ? streamed(request, (c) => browser.playbook(body, c)) : browser.playbook(body, context(request))), {
      body: model.PlaybookInput,
      detail: { summary: "Validate, then run a playbook; the TestResult with each step (SSE with Accept: text/event-stream)" },
    })
    .post("/playbook/validate", ({ body }) => browser.validatePlaybook(body.playbook), { body: model.PlaybookInput, detail: { summary: "Check a playbook without running it" } })
    .get("/resources/*", ({ params }) => {
      const resource = resourceAt(params["*"]);
      if (!resource) throw BrowserServiceError.notFound(`No resource ${params["*"]}; see /resources/index.json`);
      return resource;
    }, { detail: { summary: "The resource registry (/resources/index.json) and its documents" } })
    .get("/results", async () => ({ results: await browser.results() }), { detail: { summary: "Stored test results, newest first" } })
    .get("/results/:id", ({ params }) => browser.result(params.id), { response: { 200: model.TestResult }, detail: { summary: "One stored test result" } })
    .get("/results/:id/:report", async ({ params }) => {
      const format = /^report\.(\w+)$/.exec(params.report)?.[1] as ReportFormat | undefined;
      if (!format || !reportFormats.includes(format)) throw BrowserServiceError.notFound(`Reports are ${reportFormats.map((f) => `report.${f}`).join(", ")}`);
      const { body, type } = await browser.report(params.id, format);
      return new Response(body, { headers: { "content-type": type } });
    }, { detail: { summary: "A result as report.json, report.xml (JUnit), report.sarif (SARIF 2.1.0) or report.html" } })
    .get("/results/:id/screenshots/:name", async ({ params }) => file(await browser.resultScreenshot(params.id, params.name), "image/png", `screenshot ${params.name} in ${params.id}`), { detail: { summary: "A screenshot a test run took" } })
    .get("/sessions", async () => ({ live: browser.pool.views(), named: await browser.namedSessions() }), { detail: { summary: "Live browser sessions and stored named sessions" } })
    .delete("/sessions/:name", async ({ params }) => {
      await browser.deleteNamedSession(params.name);
      return new Response(null, { status: 204 });
    }, { params: t.Object({ name: model.SessionName }), detail: { summary: "Close a named session and delete its stored cookies and local storage" } })
    .post("/tools/:name", ({ params, body, request }) => {
      const action = actions[params.name];
      if (!action) throw BrowserServiceError.notFound(`No tool ${params.name}; see GET /`, { tools: Object.keys(actions) });
      const args = checked(action.input, body ?? {}, `tool ${params.name}`);
      return action.long ? streamed(request, (c) => action.run(browser, args, c)) : action.run(browser, args, context(request));
    }, { detail: { summary: "Run any tool by its MCP name with its input as the body" } })
    .use(browserSocket(browser, log, authorized))
    .get("/openapi.json", () => (spec ??= describe()), { detail: { hide: true } });

  let spec: object | undefined;
  const describe = (): object => {
    const { paths, components } = toOpenAPISchema(app, { paths: [/^\/(mcp|health|v2|vault|rpc|tasks|\.well-known)/, "/openapi.json"] }, undefined, undefined, "3.1.2");
    return {
      openapi: "3.1.2",
      info: { title: "Browser-testing server", version, description: "Errors are `{ error: { type, message, details } }`. Tests stream Server-Sent Events unless asked for JSON." },
      paths,
      components: { ...components, schemas: { ErrorBody: model.ErrorBody, ProgressUpdate: model.ProgressUpdate, TestResult: model.TestResult } },
      ...(apiKeys.length ? { security: [{ bearer: [] }] } : {}),
    };
  };
  const routeList = (): { method: string; path: string; summary?: string }[] => app.routes.filter((r: { hooks?: { detail?: unknown } }) => !(r.hooks?.detail as { hide?: boolean } | undefined)?.hide).map((r: { method: string; path: string; hooks?: { detail?: unknown } }) => ({ method: r.method, path: r.path, summary: (r.hooks?.detail as { summary?: string } | undefined)?.summary }));
  return app;
}
