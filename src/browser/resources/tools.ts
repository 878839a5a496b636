/** The nine tool guides: how to get each job done with this server. */
import type { ResourceDoc } from "./model.ts";

export const toolDocs: ResourceDoc[] = [
  {
    id: "playwright-installer",
    name: "Installing the browser",
    category: "tools",
    path: "tools/cli/install.json",
    description: "Get Chromium in place for the browser server and check that it answers.",
    tags: ["setup", "chromium"],
    sections: [
      { title: "What is needed", body: "The server drives Debian's Chromium through playwright-core; it never downloads a browser. On Debian or Ubuntu: `apt-get install -y chromium`. From a checkout, `bun run tools` installs it with every other tool the tests need." },
      { title: "Another Chromium", body: "Set browser.executable (or PLATFORM_BROWSER__EXECUTABLE) to its path. A missing browser shows in /health as browser: \"unavailable\" with the reason, and every tool answers a BrowserError that says how to install it." },
      { title: "No network needed", body: "Chromium starts with background networking, component updates and sync turned off, so it only fetches the pages you open." },
    ],
    examples: [
      { title: "Check that the browser answers", kind: "tool", tool: "test_browser_connectivity", arguments: {} },
      { title: "The same over REST", kind: "http", method: "POST", path: "/test/connectivity", body: {} },
    ],
  },
  {
    id: "test-runner",
    name: "Running tests",
    category: "tools",
    path: "tools/cli/test-runner.json",
    description: "Run exploratory, accessibility, responsive and security tests and playbooks, and read their results.",
    tags: ["tests", "sse", "results"],
    sections: [
      { title: "Four tests and playbooks", body: "run_exploratory_test crawls a site for errors, run_accessibility_test runs axe-core at a WCAG level, run_responsive_test checks layouts at several screen sizes, run_security_test reads headers and cookies passively, and run_playbook runs your own steps." },
      { title: "Streaming", body: "Over REST the tests stream Server-Sent Events: ProgressUpdate events, then the TestResult. Send Accept: application/json to get only the result. Over MCP, long tools send progress notifications and stop when the call is cancelled." },
      { title: "Results", body: "Every result is stored: GET /results/<id>, and reports at /results/<id>/report.json, report.xml (JUnit), report.sarif (SARIF 2.1.0) and report.html." },
    ],
    examples: [
      { title: "Accessibility of one page", kind: "tool", tool: "run_accessibility_test", arguments: { url: "{{origin}}/a11y-ok", standard: "WCAG2.1-AA" } },
      { title: "Security headers, as JSON over REST", kind: "http", method: "POST", path: "/test/security", body: { url: "{{origin}}/secure-good" } },
    ],
  },
  {
    id: "pom-generator",
    name: "From snapshots to page objects",
    category: "tools",
    path: "tools/scaffolding/pom-generator.json",
    description: "Use the accessibility snapshot to find stable, role-based locators for page objects.",
    tags: ["snapshot", "locators", "page objects"],
    sections: [
      { title: "Read the page as a user does", body: "snapshot_page returns Playwright's aria snapshot: each element's role, accessible name and state, with a ref (e12) that click, type_text, select_option and hover accept. Roles and names make the best locators: getByRole('button', { name: 'Sign in' }) survives a redesign that breaks CSS selectors." },
      { title: "A page object per screen", body: "Group the locators and actions of one screen in a class; tests call its methods, not selectors. Write the locators from the snapshot's roles and names, and keep assertions in the tests." },
      { title: "Refs are short-lived", body: "A ref holds until the next snapshot of that page. Use refs while exploring; put role and name locators in code." },
    ],
    examples: [
      { title: "Open a page and read its snapshot", kind: "playbook", playbook: { base_url: "{{origin}}", steps: [{ action: "navigate", url: "/form" }, { action: "assert_visible", selector: "role=combobox[name='Size']" }, { action: "select", selector: "role=combobox[name='Size']", values: ["Large"] }] } },
      { title: "The snapshot an assistant reads", kind: "tool", tool: "snapshot_page", arguments: {} },
    ],
  },
  {
    id: "project-init",
    name: "Setting up a project",
    category: "tools",
    path: "tools/scaffolding/project-init.json",
    description: "Configure the browser server: sessions, timeouts, host rules, API keys and the extra listener.",
    tags: ["configuration", "platform.yaml"],
    sections: [
      { title: "platform.yaml", body: "browser:\n  max_sessions: 4\n  warm_sessions: 1\n  idle_timeout_seconds: 900\n  action_timeout_ms: 10000\n  navigation_timeout_ms: 30000\n  allowed_hosts: [\"*.staging.example\"]\n  denied_hosts: []\n  api_keys: []\n  listen: \"\"          # e.g. 0.0.0.0:8765 for clients of the original server\n  login_services: []  # vault services fill_login_form may use" },
      { title: "Environment", body: "Any key can come from the environment: PLATFORM_BROWSER__MAX_SESSIONS=8, PLATFORM_BROWSER__ALLOWED_HOSTS=localhost,*.test (lists are comma-separated)." },
      { title: "Assistants", body: "Add the server to an assistant as `platform mcp browser` (stdio), or point it at /mcp/browser on a running server." },
    ],
    examples: [{ title: "Is the browser ready?", kind: "http", method: "GET", path: "/health" }, { title: "Every route", kind: "http", method: "GET", path: "/" }],
  },
  {
    id: "ci-setup",
    name: "Tests in CI",
    category: "tools",
    path: "tools/ci/setup.json",
    description: "Run the server in CI, gate on results, and publish JUnit and SARIF reports.",
    tags: ["ci", "junit", "sarif"],
    sections: [
      { title: "Start it", body: "Install Chromium (apt-get install -y chromium), start `platform serve --port 8443`, and wait for GET /health to answer ok." },
      { title: "Gate on status", body: "A TestResult's status is success (nothing found), warning (findings, none critical or high) or error (a critical or high finding, or a failed playbook step). Fail the job on error." },
      { title: "Publish reports", body: "Download /results/<id>/report.xml for the CI's test view and /results/<id>/report.sarif for code scanning; report.html is one self-contained page to attach to the run." },
    ],
    examples: [
      { title: "A playbook as a smoke test", kind: "playbook", playbook: { name: "Smoke", base_url: "{{origin}}", steps: [{ action: "navigate", url: "/" }, { action: "assert_title", title: "Fixture shop" }, { action: "assert_visible", selector: "nav" }] } },
      { title: "Check a playbook without running it", kind: "http", method: "POST", path: "/playbook/validate", body: { playbook: { steps: [{ action: "navigate", url: "{{origin}}/" }] } } },
    ],
  },
  {
    id: "percy-integration",
    name: "Visual review services",
    category: "tools",
    path: "tools/visual-testing/percy.json",
    description: "Feed screenshots from this server to a visual review service such as Percy.",
    tags: ["visual", "screenshots"],
    sections: [
      { title: "What this server gives you", body: "This server takes screenshots (take_page_screenshot, the responsive test's one per viewport, screenshot steps in playbooks) and serves them as PNG files. It does not upload them anywhere itself." },
      { title: "Uploading", body: "A review service's own client uploads files you give it: download each screenshot from its file path and hand the folder to that client in your CI job, with the service's token kept in the CI's secrets." },
      { title: "Stable pictures", body: "Animations are disabled for screenshots. Fix the viewport, wait for the content you care about (wait_for) and hide moving parts such as clocks before taking them." },
    ],
    examples: [{ title: "Screenshots at fixed viewports", kind: "tool", tool: "run_responsive_test", arguments: { url: "{{origin}}/responsive-ok", viewports: ["mobile", "desktop"] } }],
  },
  {
    id: "screenshot-diff",
    name: "Screenshots to compare",
    category: "tools",
    path: "tools/visual-testing/screenshot-diff.json",
    description: "Take comparable screenshots of a page over time.",
    tags: ["visual", "screenshots"],
    sections: [
      { title: "Same page, same size", body: "Name screenshots after what they show (checkout-mobile), take them at fixed viewports, and keep the files from a known good run as your baseline." },
      { title: "Comparing", body: "Compare a new file with its baseline using an image diff tool of your choice; the server stores each file under its name at /screenshots/<name>, so a later screenshot with the same name replaces the earlier one." },
    ],
    examples: [
      { title: "A named screenshot of a page", kind: "tool", tool: "take_page_screenshot", arguments: { name: "home-baseline", url: "{{origin}}/", full_page: true } },
      { title: "Screenshot steps in a playbook", kind: "playbook", playbook: { base_url: "{{origin}}", steps: [{ action: "navigate", url: "/form" }, { action: "screenshot", name: "form", full_page: true }] } },
    ],
  },
  {
    id: "trace-viewer",
    name: "Traces",
    category: "tools",
    path: "tools/trace/viewer.json",
    description: "Record a Playwright trace of a session and open it in the trace viewer.",
    tags: ["debugging", "trace"],
    sections: [
      { title: "Record", body: "start_trace records every action with DOM snapshots, screenshots and network requests; stop_trace saves a zip and answers its path (/traces/<name>)." },
      { title: "Open", body: "Download the zip and run `npx playwright show-trace trace.zip`, or drop it on trace.playwright.dev (the file stays in your browser)." },
      { title: "Secrets", body: "A trace keeps what was typed. fill_login_form refuses a vault password while a trace records, so the password never lands in a file." },
    ],
    examples: [
      { title: "Start a trace", kind: "tool", tool: "start_trace", arguments: {} },
      { title: "Do something worth tracing", kind: "tool", tool: "navigate_to_url", arguments: { url: "{{origin}}/next" } },
      { title: "Save it", kind: "tool", tool: "stop_trace", arguments: { name: "guide-trace" } },
    ],
  },
  {
    id: "storage-state",
    name: "Named sessions and storage state",
    category: "tools",
    path: "tools/state-management/storage-state.json",
    description: "Sign in once and reuse the cookies and local storage across calls, callers and restarts.",
    tags: ["sessions", "login", "cookies"],
    sections: [
      { title: "Sessions", body: "Each MCP session and each WebSocket client has its own browser context. Pass session: \"<name>\" to share one: every caller naming it gets the same pages and cookies." },
      { title: "Kept across restarts", body: "A named session's cookies and local storage are saved after each call, encrypted with the vault's keys, and restored the next time the name is used. GET /sessions lists them; DELETE /sessions/<name> forgets one." },
      { title: "Passwords", body: "fill_login_form takes password: \"vault:<service>\" to type a password from the vault (when browser.login_services allows that service); the assistant never sees it." },
    ],
    examples: [
      { title: "Sign in under a name", kind: "tool", tool: "fill_login_form", arguments: { url: "{{origin}}/login", username: "guide@example.com", password: "correct horse battery staple", session: "guide" } },
      { title: "The account page in the same session", kind: "tool", tool: "navigate_to_url", arguments: { url: "{{origin}}/account", session: "guide" } },
      { title: "List named sessions", kind: "http", method: "GET", path: "/sessions" },
    ],
  },
];
