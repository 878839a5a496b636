/** Quickstarts, worked examples, documentation and strategies. */
import type { ResourceDoc } from "./model.ts";

const login = [
  { action: "navigate", url: "/login" },
  { action: "fill", selector: "input[name=email]", value: "qa@example.com" },
  { action: "fill", selector: "input[name=password]", value: "correct horse battery staple" },
  { action: "click", selector: "button[type=submit]" },
  { action: "assert_url", url: "/account" },
];

export const quickstartDocs: ResourceDoc[] = [
  {
    id: "web-basic",
    name: "First test of a web page",
    category: "quickstarts",
    path: "quickstarts/web/basic.json",
    description: "Open a page, read it, click, and run the four tests on it.",
    tags: ["quickstart"],
    sections: [
      { title: "1. Look", body: "navigate_to_url opens the page; snapshot_page shows its roles, names and refs." },
      { title: "2. Act", body: "click, type_text, select_option and press_key take a ref from the snapshot (or a selector)." },
      { title: "3. Test", body: "run_exploratory_test, run_accessibility_test, run_responsive_test and run_security_test each return a TestResult with findings and report links." },
    ],
    examples: [
      { title: "Open the page", kind: "tool", tool: "navigate_to_url", arguments: { url: "{{origin}}/" } },
      { title: "Click by selector", kind: "tool", tool: "click", arguments: { selector: "text=Press me", snapshot: true } },
      { title: "Explore the site", kind: "tool", tool: "run_exploratory_test", arguments: { url: "{{origin}}/site/0", max_depth: 1, max_pages: 4 } },
    ],
  },
  {
    id: "mobile-web",
    name: "Mobile web",
    category: "quickstarts",
    path: "quickstarts/mobile/mobile-web.json",
    description: "Check a page on phone and tablet screens.",
    tags: ["quickstart", "responsive", "mobile"],
    sections: [
      { title: "Viewports", body: "run_responsive_test takes viewports as {width, height, deviceScaleFactor?, isMobile?, hasTouch?} or Playwright device names (\"iPhone 13\", \"Pixel 7\"); without them it uses mobile 375x667, tablet 768x1024 and desktop 1440x900." },
      { title: "What it finds", body: "Sideways scrolling, elements past the screen's edge, tap targets under 24x24 CSS px (WCAG 2.5.8), text under 12px and a missing viewport meta tag, with a screenshot per viewport." },
    ],
    examples: [{ title: "A phone and a desktop", kind: "tool", tool: "run_responsive_test", arguments: { url: "{{origin}}/responsive-ok", viewports: ["iPhone 13", { name: "laptop", width: 1366, height: 768 }] } }],
  },
  {
    id: "api-testing",
    name: "Driving the server over its API",
    category: "quickstarts",
    path: "quickstarts/api/api-testing.json",
    description: "Use the REST, SSE and WebSocket interfaces from scripts and other services.",
    tags: ["quickstart", "rest", "websocket"],
    sections: [
      { title: "REST", body: "POST /navigate {url}, POST /screenshot {name, url?, full_page?}, POST /test/<kind> (SSE unless Accept: application/json), POST /playbook/execute {playbook}, and every MCP tool at POST /tools/<name>. GET / lists every route; /openapi.json describes them." },
      { title: "WebSocket", body: "Connect to /ws/<client_id> and send {\"type\":\"command\",\"id\":\"1\",\"action\":\"navigate_to_url\",\"params\":{\"url\":\"...\"}}. Answers are {type: progress|result|error, id, ...}. A client id keeps its browser session; a second socket with the same id replaces the first." },
      { title: "Errors", body: "Always {\"error\":{\"type\",\"message\",\"details\"}}: ValidationError 400, AuthenticationError 401, NotFoundError 404, BrowserError 502, TimeoutError 504, InternalError 500 (with an id to quote)." },
    ],
    examples: [
      { title: "Navigate", kind: "http", method: "POST", path: "/navigate", body: { url: "{{origin}}/next" } },
      { title: "Any tool by name", kind: "http", method: "POST", path: "/tools/console_messages", body: { level: "error" } },
    ],
  },
  {
    id: "e2e-api-hybrid",
    name: "End to end with API checks",
    category: "quickstarts",
    path: "quickstarts/hybrid/e2e-api.json",
    description: "Drive the UI, then check what the page loaded and logged.",
    tags: ["quickstart", "network"],
    sections: [
      { title: "Through the UI", body: "Use a playbook or the interaction tools to do what a user does." },
      { title: "Under the UI", body: "network_requests lists what the tab requested with status and timing (failed_only for problems); console_messages lists errors and uncaught exceptions." },
    ],
    examples: [
      { title: "Sign in through the form", kind: "playbook", playbook: { base_url: "{{origin}}", steps: login } },
      { title: "Open a page that fails a request", kind: "tool", tool: "navigate_to_url", arguments: { url: "{{origin}}/console" } },
      { title: "See the failed request", kind: "tool", tool: "network_requests", arguments: { failed_only: true, include_static: true } },
    ],
  },
];

export const exampleDocs: ResourceDoc[] = [
  {
    id: "standard-login",
    name: "A login flow",
    category: "examples",
    path: "examples/login/standard-login.json",
    description: "Sign in, check the result, and keep the session.",
    tags: ["example", "login"],
    sections: [{ title: "Two ways", body: "A playbook for CI, or fill_login_form for an assistant (it finds the fields by itself and tells whether the form went away)." }],
    examples: [
      { title: "Playbook", kind: "playbook", playbook: { name: "Login", base_url: "{{origin}}", steps: [...login, { action: "assert_text", text: "Welcome, qa@example.com" }] } },
      { title: "One tool call", kind: "tool", tool: "fill_login_form", arguments: { url: "{{origin}}/login", username: "qa@example.com", password: "correct horse battery staple" } },
    ],
  },
  {
    id: "crud-forms",
    name: "Forms",
    category: "examples",
    path: "examples/crud/form-testing.json",
    description: "Fill text fields, choose options, and check what the form shows.",
    tags: ["example", "forms"],
    sections: [{ title: "Checks worth making", body: "Every field has a label (the exploratory test reports those that do not), the form submits with Enter, and errors are announced (role=alert)." }],
    examples: [
      { title: "Fill and choose", kind: "playbook", playbook: { base_url: "{{origin}}", steps: [{ action: "navigate", url: "/form" }, { action: "fill", selector: "#name", value: "Ada" }, { action: "select", selector: "#size", values: ["m"] }, { action: "type", selector: "#note", text: "hi" }, { action: "assert_text", text: "Keys: 2" }] } },
    ],
  },
  {
    id: "shopping-cart",
    name: "A checkout journey",
    category: "examples",
    path: "examples/shopping/cart-checkout.json",
    description: "Walk a journey step by step and check each page as you go.",
    tags: ["example", "journey"],
    sections: [{ title: "Journeys", body: "Name each step (name:) so reports read like the journey. Add an accessibility step on each important page; fail_on sets which findings fail the step." }],
    examples: [
      { title: "Home to the next page, checked", kind: "playbook", playbook: { name: "Journey", base_url: "{{origin}}", steps: [{ action: "navigate", url: "/", name: "Open the shop" }, { action: "click", selector: "text=Next page", name: "Go on" }, { action: "assert_title", title: "Next page" }, { action: "accessibility", fail_on: "critical" }] } },
    ],
  },
  {
    id: "analytics-dashboard",
    name: "A dashboard that loads late",
    category: "examples",
    path: "examples/dashboard/analytics-dashboard.json",
    description: "Wait for content that appears after the page loads, instead of sleeping.",
    tags: ["example", "waiting"],
    sections: [{ title: "Wait for the thing, not the time", body: "wait_for waits for text or for an element's state; a fixed wait is slow on a fast day and flaky on a slow one." }],
    examples: [
      { title: "Wait for late text", kind: "playbook", playbook: { base_url: "{{origin}}", steps: [{ action: "navigate", url: "/form" }, { action: "click", selector: "#later" }, { action: "wait_for", text: "Ready now" }] } },
    ],
  },
];

export const documentationDocs: ResourceDoc[] = [
  {
    id: "best-practices",
    name: "Best practices",
    category: "documentation",
    path: "docs/best-practices.json",
    description: "How to write browser tests that stay green for the right reasons.",
    tags: ["docs"],
    sections: [
      { title: "Locate like a user", body: "Prefer roles and names (role=button[name='Sign in']) and visible text over CSS structure." },
      { title: "Wait for state", body: "Use wait_for or assertions that wait; never sleep." },
      { title: "Isolate", body: "Each MCP session has its own browser context. Share state only on purpose, with a named session." },
      { title: "Keep secrets out", body: "Use vault:<service> passwords; do not trace while typing secrets." },
    ],
    examples: [{ title: "Role-based steps", kind: "playbook", playbook: { base_url: "{{origin}}", steps: [{ action: "navigate", url: "/" }, { action: "click", selector: "role=button[name='Press me']" }, { action: "assert_text", text: "clicked" }] } }],
  },
  {
    id: "troubleshooting",
    name: "Troubleshooting",
    category: "documentation",
    path: "docs/troubleshooting.json",
    description: "What the errors mean and what to do about them.",
    tags: ["docs", "errors"],
    sections: [
      { title: "BrowserError: Chromium is not available", body: "Install it (apt-get install -y chromium) or set browser.executable." },
      { title: "TimeoutError", body: "A step waited longer than its timeout: the element never appeared or the page never loaded. The details hold Playwright's call log. If the browser itself stood still, the session is restarted and the message says so." },
      { title: "NotFoundError: No element e12", body: "Refs belong to the latest snapshot; take a new one." },
      { title: "ValidationError: Navigation ... is not allowed", body: "browser.allowed_hosts / denied_hosts keep the browser away from that host; only http and https URLs are opened." },
      { title: "All N browser sessions are busy", body: "Raise browser.max_sessions, or close sessions you no longer need (close_session)." },
    ],
    examples: [{ title: "Read console errors", kind: "tool", tool: "console_messages", arguments: { level: "error" } }],
  },
  {
    id: "design-patterns",
    name: "Design patterns",
    category: "documentation",
    path: "docs/patterns.json",
    description: "Structures that keep a suite of browser tests maintainable.",
    tags: ["docs", "patterns"],
    sections: [
      { title: "Page objects", body: "One class per screen holding its locators and actions; tests speak in journeys." },
      { title: "Playbooks as data", body: "Journeys as JSON or YAML playbooks are reviewed like code, validated before they run, and edited with completion in any LSP editor (platform lsp browser)." },
      { title: "Sign in once", body: "Log in in a named session, then run tests in it: its cookies carry over." },
    ],
    examples: [{ title: "Validate a playbook", kind: "http", method: "POST", path: "/playbook/validate", body: { playbook: "steps:\n  - action: navigate\n    url: {{origin}}/\n" } }],
  },
];

export const strategyDocs: ResourceDoc[] = [
  {
    id: "testing-strategies",
    name: "Testing strategies",
    category: "additional",
    path: "strategies/testing-strategies.json",
    description: "Which test to run when, and how the tests fit together.",
    tags: ["strategy"],
    sections: [
      { title: "On every change", body: "A smoke playbook of the main journeys, and the exploratory test of the start page (depth 1) to catch console errors and broken links." },
      { title: "Before a release", body: "The accessibility test at your target level on each key page, the responsive test on phone, tablet and desktop, and the security test on the login and account pages." },
      { title: "When something breaks", body: "Record a trace, reproduce with the interaction tools, and read console_messages and network_requests." },
    ],
    examples: [{ title: "Security of a page", kind: "tool", tool: "run_security_test", arguments: { url: "{{origin}}/secure-good" } }],
  },
];
