/**
 * The browser server's shapes, declared once in TypeBox: MCP tool inputs and outputs, REST bodies, WebSocket
 * command params and the OpenAPI document all come from these values.
 */
import { type Static, type TSchema, Type } from "@sinclair/typebox";

const Optional = Type.Optional;

export const SessionName = Type.String({
  pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$",
  description: "a name to share one browser session between calls and callers; a named session keeps its cookies and local storage across restarts",
});

/** Every input may name a session; without one, each MCP session or WebSocket client has its own. */
const withSession = <P extends Record<string, TSchema>>(properties: P) => Type.Object({ ...properties, session: Optional(SessionName) });

export const HttpUrl = Type.String({ minLength: 1, maxLength: 4096, description: "an http or https URL" });
const Snapshot = Optional(Type.Boolean({ default: false, description: "also return the page's accessibility snapshot after the action" }));

/** An element: a ref from the latest page snapshot (`e12`), or a Playwright selector. */
const targetFields = {
  ref: Optional(Type.String({ pattern: "^[a-z]?[0-9a-z]{1,16}$", description: "element ref from the latest snapshot, e.g. e12" })),
  selector: Optional(Type.String({ minLength: 1, maxLength: 1000, description: "a Playwright selector, used when no ref is given" })),
  element: Optional(Type.String({ maxLength: 200, description: "what the element is, in words (for the log and errors)" })),
};
export type Target = { ref?: string; selector?: string; element?: string };

export const Standard = Type.Union(
  [Type.Literal("WCAG2.1-A"), Type.Literal("WCAG2.1-AA"), Type.Literal("WCAG2.1-AAA"), Type.Literal("WCAG2.2-AA")],
  { default: "WCAG2.1-AA" },
);
export type Standard = Static<typeof Standard>;

export const Viewport = Type.Object({
  name: Optional(Type.String({ maxLength: 64 })),
  width: Type.Integer({ minimum: 200, maximum: 7680 }),
  height: Type.Integer({ minimum: 200, maximum: 4320 }),
  deviceScaleFactor: Optional(Type.Number({ minimum: 0.5, maximum: 4 })),
  isMobile: Optional(Type.Boolean()),
  hasTouch: Optional(Type.Boolean()),
});
export type Viewport = Static<typeof Viewport>;

// --- inputs ---

export const ConnectivityInput = withSession({});
export const NavigateInput = withSession({
  url: HttpUrl,
  wait_until: Optional(Type.Union([Type.Literal("load"), Type.Literal("domcontentloaded"), Type.Literal("networkidle"), Type.Literal("commit")], { default: "load" })),
});
export const ScreenshotInput = withSession({
  name: Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$", description: "file name to save under (letters, digits, . _ -)" }),
  url: Optional(HttpUrl),
  full_page: Optional(Type.Boolean({ default: false })),
  ...targetFields,
});
export const LoginInput = withSession({
  username: Type.String({ minLength: 1, maxLength: 512 }),
  password: Type.String({
    minLength: 1,
    maxLength: 4096,
    description: "the password, or `vault:<service>` to have it typed from the platform's vault without you ever seeing it",
  }),
  username_selector: Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  password_selector: Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  submit_selector: Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  url: Optional(Type.String({ ...HttpUrl, description: "open this login page first; otherwise the current page is used" })),
});
export const ExploratoryInput = withSession({
  url: HttpUrl,
  max_depth: Optional(Type.Integer({ minimum: 0, maximum: 10, default: 3 })),
  max_pages: Optional(Type.Integer({ minimum: 1, maximum: 500, default: 10 })),
  include_forms: Optional(Type.Boolean({ default: true })),
  include_navigation: Optional(Type.Boolean({ default: true })),
  check_errors: Optional(Type.Boolean({ default: true })),
});
export const AccessibilityInput = withSession({ url: HttpUrl, standard: Optional(Standard) });
export const ResponsiveInput = withSession({
  url: HttpUrl,
  viewports: Optional(
    Type.Array(Type.Union([Viewport, Type.String({ minLength: 1, maxLength: 64, description: "a Playwright device name, e.g. iPhone 13" })]), {
      minItems: 1,
      maxItems: 12,
      description: "viewports or device names; default mobile (375x667), tablet (768x1024) and desktop (1440x900)",
    }),
  ),
});
export const SecurityInput = withSession({ url: HttpUrl });

export const SnapshotInput = withSession({});
export const ClickInput = withSession({
  ...targetFields,
  button: Optional(Type.Union([Type.Literal("left"), Type.Literal("right"), Type.Literal("middle")], { default: "left" })),
  double_click: Optional(Type.Boolean({ default: false })),
  snapshot: Snapshot,
});
export const TypeInput = withSession({
  ...targetFields,
  text: Type.String({ maxLength: 100_000 }),
  submit: Optional(Type.Boolean({ default: false, description: "press Enter afterwards" })),
  slowly: Optional(Type.Boolean({ default: false, description: "type key by key (fires key handlers) instead of filling at once" })),
  snapshot: Snapshot,
});
export const PressKeyInput = withSession({
  key: Type.String({ minLength: 1, maxLength: 64, description: "a key name such as Enter, ArrowDown, Control+A" }),
  snapshot: Snapshot,
});
export const SelectInput = withSession({
  ...targetFields,
  values: Type.Array(Type.String({ maxLength: 1000 }), { minItems: 1, maxItems: 100, description: "option values or labels" }),
  snapshot: Snapshot,
});
export const HoverInput = withSession({ ...targetFields, snapshot: Snapshot });
export const WaitForInput = withSession({
  text: Optional(Type.String({ minLength: 1, maxLength: 1000, description: "wait until this text is visible" })),
  text_gone: Optional(Type.String({ minLength: 1, maxLength: 1000, description: "wait until this text is gone" })),
  selector: Optional(Type.String({ minLength: 1, maxLength: 1000 })),
  state: Optional(Type.Union([Type.Literal("visible"), Type.Literal("hidden"), Type.Literal("attached"), Type.Literal("detached")], { default: "visible" })),
  timeout_ms: Optional(Type.Integer({ minimum: 0, maximum: 120_000 })),
});
export const TabsInput = withSession({
  action: Type.Union([Type.Literal("list"), Type.Literal("new"), Type.Literal("select"), Type.Literal("close")], { default: "list" }),
  index: Optional(Type.Integer({ minimum: 0, maximum: 100 })),
  url: Optional(HttpUrl),
});
export const HistoryInput = withSession({ snapshot: Snapshot });
export const ConsoleInput = withSession({
  level: Optional(Type.Union([Type.Literal("all"), Type.Literal("error"), Type.Literal("warning"), Type.Literal("info")], { default: "all" })),
  clear: Optional(Type.Boolean({ default: false, description: "forget the messages once returned" })),
});
export const NetworkInput = withSession({
  failed_only: Optional(Type.Boolean({ default: false })),
  include_static: Optional(Type.Boolean({ default: false, description: "include images, fonts, stylesheets and scripts" })),
  clear: Optional(Type.Boolean({ default: false })),
});
export const CloseSessionInput = withSession({});
export const TraceStartInput = withSession({
  screenshots: Optional(Type.Boolean({ default: true })),
  snapshots: Optional(Type.Boolean({ default: true })),
});
export const TraceStopInput = withSession({
  name: Optional(Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$", description: "file name for the trace (.zip added)" })),
});
export const PlaybookInput = withSession({
  playbook: Type.Union([Type.String({ minLength: 1, maxLength: 1_000_000, description: "the playbook as JSON or YAML text" }), Type.Object({}, { additionalProperties: true, description: "the playbook as an object: { name?, base_url?, steps: [{ action, ... }] }" })]),
});
export type PlaybookInput = Static<typeof PlaybookInput>;
export const StartLspInput = Type.Object({
  tcp: Optional(Type.Boolean({ default: false, description: "listen on TCP; otherwise say how to start it over stdio" })),
  port: Optional(Type.Integer({ minimum: 0, maximum: 65535, default: 2087, description: "TCP port (0 picks a free one)" })),
});

export type NavigateInput = Static<typeof NavigateInput>;
export type ScreenshotInput = Static<typeof ScreenshotInput>;
export type LoginInput = Static<typeof LoginInput>;
export type ExploratoryInput = Static<typeof ExploratoryInput>;
export type AccessibilityInput = Static<typeof AccessibilityInput>;
export type ResponsiveInput = Static<typeof ResponsiveInput>;
export type SecurityInput = Static<typeof SecurityInput>;
export type ClickInput = Static<typeof ClickInput>;
export type TypeInput = Static<typeof TypeInput>;
export type PressKeyInput = Static<typeof PressKeyInput>;
export type SelectInput = Static<typeof SelectInput>;
export type HoverInput = Static<typeof HoverInput>;
export type WaitForInput = Static<typeof WaitForInput>;
export type TabsInput = Static<typeof TabsInput>;
export type ConsoleInput = Static<typeof ConsoleInput>;
export type NetworkInput = Static<typeof NetworkInput>;
export type TraceStartInput = Static<typeof TraceStartInput>;

// --- outputs ---

const PageState = { url: Type.String(), title: Type.String() };

export const ConnectivityResult = Type.Object({
  status: Type.Literal("success"),
  browser: Type.Object({ version: Type.String(), executable: Type.String(), user_agent: Type.String() }),
  session: Type.Object({ id: Type.String(), name: Type.Optional(Type.String()), state: Type.String() }),
  round_trip_ms: Type.Number(),
});
export const NavigateResult = Type.Object({
  status: Type.Literal("success"),
  ...PageState,
  status_code: Type.Union([Type.Integer(), Type.Null()]),
  load_time_ms: Type.Number(),
});
export type NavigateResult = Static<typeof NavigateResult>;
export const ScreenshotResult = Type.Object({
  status: Type.Literal("success"),
  screenshot: Type.Object({
    name: Type.String(),
    timestamp: Type.String({ format: "date-time" }),
    file: Type.String({ description: "where to download it: GET <this path>" }),
    bytes: Type.Integer(),
  }),
  page: Type.Object(PageState),
});
export const SnapshotResult = Type.Object({ ...PageState, snapshot: Type.String(), tabs: Type.Integer() });
export type SnapshotResult = Static<typeof SnapshotResult>;
export const ActionResult = Type.Object({
  status: Type.Literal("success"),
  action: Type.String(),
  ...PageState,
  detail: Type.Optional(Type.String()),
  snapshot: Type.Optional(Type.String()),
});
export type ActionResult = Static<typeof ActionResult>;
export const LoginResult = Type.Object({
  status: Type.Union([Type.Literal("success"), Type.Literal("warning")]),
  ...PageState,
  fields: Type.Object({ username: Type.String(), password: Type.String(), submit: Type.Union([Type.String(), Type.Null()]) }),
  password_source: Type.Union([Type.Literal("text"), Type.Literal("vault")]),
  login_form_gone: Type.Boolean({ description: "the password field is no longer shown: usually a sign the login worked" }),
  messages: Type.Array(Type.String(), { description: "alerts or error texts shown after submitting" }),
});
export type LoginResult = Static<typeof LoginResult>;
export const WaitResult = Type.Object({ status: Type.Literal("success"), ...PageState, waited_ms: Type.Number() });
export const TabsResult = Type.Object({
  tabs: Type.Array(Type.Object({ index: Type.Integer(), ...PageState, current: Type.Boolean() })),
});
export type TabsResult = Static<typeof TabsResult>;
export const ConsoleMessage = Type.Object({
  level: Type.String(),
  text: Type.String(),
  url: Type.String(),
  location: Type.Optional(Type.String()),
  timestamp: Type.String(),
});
export type ConsoleMessage = Static<typeof ConsoleMessage>;
export const ConsoleResult = Type.Object({ messages: Type.Array(ConsoleMessage), dropped: Type.Integer() });
export const NetworkRequest = Type.Object({
  method: Type.String(),
  url: Type.String(),
  resource_type: Type.String(),
  status: Type.Union([Type.Integer(), Type.Null()]),
  failure: Type.Optional(Type.String()),
  duration_ms: Type.Union([Type.Number(), Type.Null()]),
});
export type NetworkRequest = Static<typeof NetworkRequest>;
export const NetworkResult = Type.Object({ requests: Type.Array(NetworkRequest), dropped: Type.Integer() });
export const CloseResult = Type.Object({ status: Type.Literal("success"), closed: Type.Boolean(), session: Type.String() });
export const TraceResult = Type.Object({
  status: Type.Literal("success"),
  tracing: Type.Boolean(),
  file: Type.Optional(Type.String({ description: "where to download the trace; open it with `npx playwright show-trace <file>`" })),
  bytes: Type.Optional(Type.Integer()),
});
export const LspResult = Type.Object({
  status: Type.Literal("success"),
  transport: Type.Union([Type.Literal("tcp"), Type.Literal("stdio")]),
  host: Type.Optional(Type.String()),
  port: Type.Optional(Type.Integer()),
  command: Type.Optional(Type.Array(Type.String())),
});

// --- test runs ---

export const Severity = Type.Union([Type.Literal("critical"), Type.Literal("high"), Type.Literal("medium"), Type.Literal("low"), Type.Literal("info")]);
export type Severity = Static<typeof Severity>;
export const severities: Severity[] = ["critical", "high", "medium", "low", "info"];

export const Finding = Type.Object({
  /** A stable rule id: an axe rule (`color-contrast`) or ours (`console-error`, `missing-csp`). */
  rule: Type.String(),
  category: Type.String(),
  severity: Severity,
  title: Type.String(),
  description: Type.String(),
  url: Type.String(),
  selectors: Type.Optional(Type.Array(Type.String())),
  html: Type.Optional(Type.String()),
  impact: Type.Optional(Type.String()),
  wcag: Type.Optional(Type.Array(Type.String(), { description: "WCAG success criteria, e.g. 1.4.3" })),
  recommendation: Type.Optional(Type.String()),
  help_url: Type.Optional(Type.String()),
  viewport: Type.Optional(Type.String()),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type Finding = Static<typeof Finding>;

export const TestKind = Type.Union([
  Type.Literal("exploratory"),
  Type.Literal("accessibility"),
  Type.Literal("responsive"),
  Type.Literal("security"),
  Type.Literal("playbook"),
]);
export type TestKind = Static<typeof TestKind>;

export const ScreenshotRef = Type.Object({
  name: Type.String(),
  file: Type.String({ description: "download path" }),
  url: Type.String(),
  viewport: Type.Optional(Type.String()),
  width: Type.Optional(Type.Integer()),
  height: Type.Optional(Type.Integer()),
});
export type ScreenshotRef = Static<typeof ScreenshotRef>;

export const StepResult = Type.Object({
  index: Type.Integer(),
  action: Type.String(),
  description: Type.String(),
  status: Type.Union([Type.Literal("passed"), Type.Literal("failed"), Type.Literal("skipped")]),
  duration_ms: Type.Number(),
  error: Type.Optional(Type.String()),
  screenshot: Type.Optional(Type.String({ description: "download path of the failure screenshot" })),
});
export type StepResult = Static<typeof StepResult>;

export const TestResult = Type.Object({
  id: Type.String(),
  test: TestKind,
  status: Type.Union([Type.Literal("success"), Type.Literal("warning"), Type.Literal("error")], {
    description: "success: nothing found; warning: findings, none critical or high; error: a critical or high finding, or a failed step",
  }),
  url: Type.String(),
  started_at: Type.String({ format: "date-time" }),
  duration: Type.Number({ description: "milliseconds" }),
  summary: Type.Record(Type.String(), Type.Unknown()),
  findings: Type.Array(Finding),
  screenshots: Type.Array(ScreenshotRef),
  steps: Type.Optional(Type.Array(StepResult)),
  reports: Type.Object({ json: Type.String(), junit: Type.String(), sarif: Type.String(), html: Type.String() }),
});
export type TestResult = Static<typeof TestResult>;

export const ProgressUpdate = Type.Object({
  category: Type.String({ description: "the test kind, e.g. exploratory" }),
  phase: Type.String({ description: "e.g. start, page, check, step, done" }),
  message: Type.String(),
  data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  timestamp: Type.String({ format: "date-time" }),
});
export type ProgressUpdate = Static<typeof ProgressUpdate>;

export const ErrorBody = Type.Object({
  error: Type.Object({
    type: Type.String(),
    message: Type.String(),
    details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  }),
});

export const SessionView = Type.Object({
  id: Type.String(),
  owner: Type.String(),
  name: Type.Optional(Type.String()),
  state: Type.String(),
  restarts: Type.Integer(),
  created_at: Type.String(),
  last_used_at: Type.String(),
  operation: Type.Optional(Type.String()),
});
export type SessionView = Static<typeof SessionView>;

export const NamedSessionView = Type.Object({
  name: Type.String(),
  live: Type.Boolean(),
  cookies: Type.Integer(),
  origins: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type NamedSessionView = Static<typeof NamedSessionView>;
