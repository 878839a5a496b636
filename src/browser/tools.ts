/**
 * The `browser` MCP server's tools: the nine of the original server with their names, parameters and defaults,
 * and the interaction set assistants know from Playwright MCP. Adapters only: each calls one service method and
 * answers a short text, the structured result (matching its output schema) and, for screenshots, the image.
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { Static, TObject } from "@sinclair/typebox";
import type { Logger } from "../log.ts";
import type { ToolFailure } from "../mcp/call.ts";
import { defineTool, type Tool, type ToolContext } from "../mcp/define.ts";
import { errorBody } from "./errors.ts";
import * as model from "./model.ts";
import type { BrowserService, CallContext, Image } from "./service.ts";

/** Which browser session a tool call belongs to: the MCP session's own, unless the input names one. */
export const ownerOf = (context: ToolContext) => `mcp:${context.session ?? "local"}`;

/** Failed calls as `[Type] message`, with details; a fault of ours as an id to quote. */
export const browserFailure =
  (log: Logger): ToolFailure =>
  (error) => {
    const body = errorBody(error, log).body.error;
    const details = body.details && Object.keys(body.details).length ? `\n${JSON.stringify(body.details, null, 2)}` : "";
    return { isError: true, content: [{ type: "text", text: `[${body.type}] ${body.message}${details}` }] };
  };

function callContext(context: ToolContext): CallContext {
  let done = 0;
  return {
    owner: ownerOf(context),
    signal: context.signal,
    onProgress: (update) => void context.progress({ progress: ++done, message: update.message }).catch(() => {}),
  };
}

const answer = (text: string, structured: object, image?: Image): CallToolResult => ({
  content: [{ type: "text", text }, ...(image ? [{ type: "image" as const, data: Buffer.from(image.data).toString("base64"), mimeType: image.mimeType }] : [])],
  structuredContent: structured as Record<string, unknown>,
});

const page = (result: { url: string; title: string }) => `${result.title ? `"${result.title}" ` : ""}(${result.url})`;

const withSnapshot = (text: string, result: model.ActionResult) => (result.snapshot ? `${text}\n\n${result.snapshot}` : text);

/** A tool whose handler gets the service's call context instead of the MCP one. */
function browserTool<I extends TObject, O extends TObject>(spec: {
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  readOnly?: boolean;
  run(args: Static<I>, context: CallContext): Promise<CallToolResult>;
}): Tool {
  return defineTool({
    name: spec.name,
    title: spec.title,
    description: spec.description,
    input: spec.input,
    output: spec.output,
    annotations: { readOnlyHint: spec.readOnly ?? false, openWorldHint: true },
    handler: (args, context) => spec.run(args, callContext(context)),
  }) as unknown as Tool;
}

/** A test result in a few lines: verdict, counts, the most severe findings and where the reports are. */
export function resultText(result: model.TestResult): string {
  const counts = model.severities.map((s) => `${result.findings.filter((f) => f.severity === s).length} ${s}`).join(", ");
  const top = [...result.findings]
    .sort((a, b) => model.severities.indexOf(a.severity) - model.severities.indexOf(b.severity))
    .slice(0, 8)
    .map((f) => `- [${f.severity}] ${f.rule}: ${f.title}${f.selectors?.length ? ` (${f.selectors.slice(0, 2).join(", ")})` : ""}${f.viewport ? ` @${f.viewport}` : ""}`);
  const steps = result.steps ? `\nSteps: ${result.steps.filter((s) => s.status === "passed").length}/${result.steps.length} passed` : "";
  return [
    `${result.test} test of ${result.url}: ${result.status} in ${(result.duration / 1000).toFixed(1)} s; ${result.findings.length} finding(s): ${counts}${steps}`,
    ...top,
    result.findings.length > top.length ? `...and ${result.findings.length - top.length} more in the report` : "",
    `Reports: ${result.reports.html} (HTML), ${result.reports.json}, ${result.reports.junit}, ${result.reports.sarif}`,
  ]
    .filter(Boolean)
    .join("\n");
}

export function testTools(browser: BrowserService): Tool[] {
  const test = <I extends TObject>(name: string, title: string, description: string, input: I, run: (args: Static<I>, context: CallContext) => Promise<model.TestResult>) =>
    browserTool({
      name,
      title,
      description,
      input,
      output: model.TestResult,
      readOnly: true,
      async run(args, context) {
        const result = await run(args, context);
        return answer(resultText(result), result);
      },
    });
  return [
    test(
      "run_exploratory_test",
      "Explore a site for errors",
      "Crawl same-origin pages from url (depth and page caps, several at once) and report console errors, uncaught exceptions, failed requests, broken links, form fields without labels, missing navigation and slow pages. Uses this session's cookies, so it can explore after fill_login_form.",
      model.ExploratoryInput,
      (args, context) => browser.exploratory(args, context),
    ),
    test(
      "run_accessibility_test",
      "Check accessibility (axe-core)",
      "Run axe-core on url with the rules of a WCAG level (WCAG2.1-A, WCAG2.1-AA (default), WCAG2.1-AAA or WCAG2.2-AA). Each violation comes with its impact, WCAG criteria, selectors, HTML and how to fix it.",
      model.AccessibilityInput,
      (args, context) => browser.accessibility(args, context),
    ),
    test(
      "run_responsive_test",
      "Check layouts at several screen sizes",
      "Open url at each viewport ({width, height, ...} or a device name such as \"iPhone 13\"; default mobile, tablet, desktop) and report sideways scrolling, elements past the edge, tap targets under 24x24 px, text under 12 px and a missing viewport meta tag, with a screenshot per viewport.",
      model.ResponsiveInput,
      (args, context) => browser.responsive(args, context),
    ),
    test(
      "run_security_test",
      "Check security headers and cookies (passive)",
      "Open url once and check, without attacking anything: Content-Security-Policy, HSTS, X-Content-Type-Options, framing protection, Referrer-Policy, cookie flags, mixed content, password forms over http, CORS wildcards with credentials and version-disclosing headers.",
      model.SecurityInput,
      (args, context) => browser.security(args, context),
    ),
    test(
      "run_playbook",
      "Run a playbook",
      "Run a playbook (JSON or YAML, or an object): { name?, base_url?, steps: [{ action, ... }] } with actions navigate, click, fill, type, press, select, check, hover, wait, wait_for, screenshot, assert_text, assert_visible, assert_url, assert_title, accessibility. " +
        "It is checked whole before it runs (every problem with its step); the result gives each step's status, time, error and a screenshot of a failure.",
      model.PlaybookInput,
      (args, context) => browser.playbook(args, context),
    ),
  ];
}

/** start_lsp_server: the playbook language server on a TCP port in this process, or how to start it over stdio. */
export function lspTool(listen: (port: number) => Promise<{ host: string; port: number }>, command: string[]): Tool {
  return defineTool({
    name: "start_lsp_server",
    title: "Start the playbook language server",
    description:
      "Start the language server for playbook files (diagnostics, completion of actions and fields, hover docs). With tcp: true it listens on port (default 2087) and answers where; otherwise it answers the command an editor runs to start it over stdio.",
    input: model.StartLspInput,
    output: model.LspResult,
    annotations: { openWorldHint: false },
    async handler({ tcp = false, port = 2087 }) {
      if (!tcp) return answer(`Start it over stdio with: ${command.join(" ")}`, { status: "success", transport: "stdio", command });
      const at = await listen(port);
      return answer(`The playbook language server listens on ${at.host}:${at.port} (TCP)`, { status: "success", transport: "tcp", ...at });
    },
  }) as unknown as Tool;
}

export function interactionTools(browser: BrowserService): Tool[] {
  return [
    browserTool({
      name: "test_browser_connectivity",
      title: "Check the browser",
      description: "Start (or reuse) this session's Chromium and run a script in it; reports the browser version and the round trip.",
      input: model.ConnectivityInput,
      output: model.ConnectivityResult,
      readOnly: true,
      async run(args, context) {
        const result = await browser.connectivity(args, context);
        return answer(`Chromium ${result.browser.version} answered in ${result.round_trip_ms} ms (session ${result.session.id}, ${result.session.state})`, result);
      },
    }),
    browserTool({
      name: "navigate_to_url",
      title: "Open a URL",
      description: "Open an http(s) URL in this session's current tab and wait for it to load. Returns the final URL, title and HTTP status.",
      input: model.NavigateInput,
      output: model.NavigateResult,
      async run(args, context) {
        const result = await browser.navigate(args, context);
        return answer(`Opened ${page(result)}: HTTP ${result.status_code ?? "none"} in ${result.load_time_ms} ms`, result);
      },
    }),
    browserTool({
      name: "take_page_screenshot",
      title: "Take a screenshot",
      description:
        "Screenshot the current page (or `url`, opened first; or one element by ref/selector) and save it under `name`. The image is returned too, as a smaller JPEG when large.",
      input: model.ScreenshotInput,
      output: model.ScreenshotResult,
      readOnly: true,
      async run(args, context) {
        const { result, image } = await browser.screenshot(args, context);
        const note = image ? "" : " (too large to show here; download it)";
        return answer(`Saved ${result.screenshot.name} of ${page(result.page)}, ${result.screenshot.bytes} bytes at ${result.screenshot.file}${note}`, result, image);
      },
    }),
    browserTool({
      name: "fill_login_form",
      title: "Fill and submit a login form",
      description:
        "Fill the username and password fields of the current page (or `url`) and submit. Fields are found by themselves when no selectors are given. " +
        "Pass password as `vault:<service>` to have it typed from the platform's vault without it ever reaching you.",
      input: model.LoginInput,
      output: model.LoginResult,
      async run(args, context) {
        const result = await browser.login(args, context);
        const outcome = result.login_form_gone ? "the login form is gone" : "the login form is still shown";
        const messages = result.messages.length ? `; the page says: ${result.messages.join(" | ")}` : "";
        return answer(`Submitted the login form as ${args.username}; now at ${page(result)}: ${outcome}${messages}`, result);
      },
    }),
    browserTool({
      name: "snapshot_page",
      title: "Snapshot the page",
      description:
        "The page's accessibility snapshot (Playwright's aria snapshot): roles, names and states, each element with a ref (e.g. e12) that click, type, select_option and hover accept. Refs hold until the next snapshot.",
      input: model.SnapshotInput,
      output: model.SnapshotResult,
      readOnly: true,
      async run(args, context) {
        const result = await browser.snapshot(args, context);
        return answer(`Page ${page(result)}, tab 1 of ${result.tabs}:\n\n${result.snapshot}`, result);
      },
    }),
    browserTool({
      name: "click",
      title: "Click an element",
      description: "Click an element given by its snapshot ref (or a selector). Set double_click or button for other clicks; snapshot: true returns the page after.",
      input: model.ClickInput,
      output: model.ActionResult,
      async run(args, context) {
        const result = await browser.click(args, context);
        return answer(withSnapshot(`Clicked ${args.element ?? args.ref ?? args.selector}; now at ${page(result)}`, result), result);
      },
    }),
    browserTool({
      name: "type_text",
      title: "Type into a field",
      description: "Fill a text field given by ref or selector (slowly: key by key). submit: true presses Enter afterwards.",
      input: model.TypeInput,
      output: model.ActionResult,
      async run(args, context) {
        const result = await browser.type(args, context);
        return answer(withSnapshot(`Typed ${args.text.length} characters into ${args.element ?? args.ref ?? args.selector}; now at ${page(result)}`, result), result);
      },
    }),
    browserTool({
      name: "press_key",
      title: "Press a key",
      description: "Press a key or chord on the focused element, e.g. Enter, Escape, ArrowDown, Control+A.",
      input: model.PressKeyInput,
      output: model.ActionResult,
      async run(args, context) {
        const result = await browser.pressKey(args, context);
        return answer(withSnapshot(`Pressed ${args.key}; now at ${page(result)}`, result), result);
      },
    }),
    browserTool({
      name: "select_option",
      title: "Choose options in a select",
      description: "Select one or more options (by value or label) in a <select> given by ref or selector.",
      input: model.SelectInput,
      output: model.ActionResult,
      async run(args, context) {
        const result = await browser.selectOption(args, context);
        return answer(withSnapshot(`${result.detail} in ${args.element ?? args.ref ?? args.selector}`, result), result);
      },
    }),
    browserTool({
      name: "hover",
      title: "Hover over an element",
      description: "Move the mouse over an element given by ref or selector (menus, tooltips).",
      input: model.HoverInput,
      output: model.ActionResult,
      async run(args, context) {
        const result = await browser.hover(args, context);
        return answer(withSnapshot(`Hovering over ${args.element ?? args.ref ?? args.selector}`, result), result);
      },
    }),
    browserTool({
      name: "wait_for",
      title: "Wait for text or an element",
      description: "Wait until text appears, text disappears, or a selector reaches a state (visible by default).",
      input: model.WaitForInput,
      output: model.WaitResult,
      readOnly: true,
      async run(args, context) {
        const result = await browser.waitFor(args, context);
        return answer(`Done waiting after ${result.waited_ms} ms on ${page(result)}`, result);
      },
    }),
    browserTool({
      name: "manage_tabs",
      title: "List, open, select or close tabs",
      description: "Tabs of this session: action list (default), new (optionally opening url), select (index) or close (index, or the current tab).",
      input: model.TabsInput,
      output: model.TabsResult,
      async run(args, context) {
        const result = await browser.tabs(args, context);
        const lines = result.tabs.map((tab) => `${tab.current ? "*" : " "} ${tab.index}: ${page(tab)}`);
        return answer(`${result.tabs.length} tab(s):\n${lines.join("\n")}`, result);
      },
    }),
    browserTool({
      name: "go_back",
      title: "Go back",
      description: "Go back in the current tab's history.",
      input: model.HistoryInput,
      output: model.ActionResult,
      async run(args, context) {
        const result = await browser.back(args, context);
        return answer(withSnapshot(`Back at ${page(result)}${result.detail ? ` (${result.detail})` : ""}`, result), result);
      },
    }),
    browserTool({
      name: "go_forward",
      title: "Go forward",
      description: "Go forward in the current tab's history.",
      input: model.HistoryInput,
      output: model.ActionResult,
      async run(args, context) {
        const result = await browser.forward(args, context);
        return answer(withSnapshot(`Forward at ${page(result)}${result.detail ? ` (${result.detail})` : ""}`, result), result);
      },
    }),
    browserTool({
      name: "console_messages",
      title: "Read console messages",
      description: "Console messages and uncaught exceptions of the current tab, oldest first (level filters; clear forgets them).",
      input: model.ConsoleInput,
      output: model.ConsoleResult,
      readOnly: true,
      async run(args, context) {
        const result = await browser.consoleMessages(args, context);
        const lines = result.messages.map((m) => `[${m.level}] ${m.text}${m.location ? ` (${m.location})` : ""}`);
        return answer(`${result.messages.length} message(s)${result.dropped ? `, ${result.dropped} older dropped` : ""}${lines.length ? `:\n${lines.join("\n")}` : ""}`, result);
      },
    }),
    browserTool({
      name: "network_requests",
      title: "List network requests",
      description: "Requests the current tab made, with status, failure and duration; static assets only with include_static.",
      input: model.NetworkInput,
      output: model.NetworkResult,
      readOnly: true,
      async run(args, context) {
        const result = await browser.networkRequests(args, context);
        const lines = result.requests.map((r) => `${r.method} ${r.url} -> ${r.failure ?? r.status ?? "pending"}`);
        return answer(`${result.requests.length} request(s)${lines.length ? `:\n${lines.join("\n")}` : ""}`, result);
      },
    }),
    browserTool({
      name: "close_session",
      title: "Close the browser session",
      description: "Close this session's browser (or the named session's). A named session keeps its stored cookies; the next call starts afresh.",
      input: model.CloseSessionInput,
      output: model.CloseResult,
      async run(args, context) {
        const result = await browser.closeSession(args, context);
        return answer(result.closed ? `Closed session ${result.session}` : `No open session ${result.session}`, result);
      },
    }),
    browserTool({
      name: "start_trace",
      title: "Start recording a trace",
      description: "Record a Playwright trace of this session (actions, DOM snapshots, screenshots, network) until stop_trace.",
      input: model.TraceStartInput,
      output: model.TraceResult,
      async run(args, context) {
        const result = await browser.traceStart(args, context);
        return answer("Recording a trace; call stop_trace to save it", result);
      },
    }),
    browserTool({
      name: "stop_trace",
      title: "Stop recording and save the trace",
      description: "Save the trace as a zip a person opens with `npx playwright show-trace <file>` or at trace.playwright.dev.",
      input: model.TraceStopInput,
      output: model.TraceResult,
      async run(args, context) {
        const result = await browser.traceStop(args, context);
        return answer(`Saved the trace (${result.bytes} bytes) at ${result.file}`, result);
      },
    }),
  ];
}
