/** The three prompt resources; each is also an MCP prompt of the browser server. */
import type { ResourceDoc } from "./model.ts";

export const promptDocs: ResourceDoc[] = [
  {
    id: "test-generator",
    name: "Generate a playbook",
    category: "prompts",
    path: "prompts/test-generator.json",
    description: "Have an assistant explore a page and write a playbook for a journey on it.",
    tags: ["prompt", "playbook"],
    sections: [{ title: "Use", body: "Give the start URL and the journey in words; the assistant explores with snapshot_page, writes a playbook, checks it with run_playbook and fixes it until it passes." }],
    prompt: {
      arguments: [
        { name: "url", description: "where the journey starts", required: true },
        { name: "journey", description: "what a user does, in words", required: true },
      ],
      template:
        "Write a playbook (YAML) for this journey on {{url}}: {{journey}}.\n" +
        "1. Open the page with navigate_to_url and read it with snapshot_page.\n" +
        "2. Walk the journey with click, type_text and select_option, taking a snapshot after each page change.\n" +
        "3. Write the steps with role-based selectors (role=button[name='...']) and an assertion after each page change; no fixed waits.\n" +
        "4. Run it with run_playbook and fix it until every step passes. Answer with the playbook.",
    },
    examples: [{ title: "A generated playbook checks out", kind: "playbook", playbook: { base_url: "{{origin}}", steps: [{ action: "navigate", url: "/" }, { action: "click", selector: "role=link[name='Next page']" }, { action: "assert_title", title: "Next page", exact: true }] } }],
  },
  {
    id: "code-reviewer",
    name: "Review a test",
    category: "prompts",
    path: "prompts/code-reviewer.json",
    description: "Have an assistant review a playbook or Playwright test for flakiness and gaps.",
    tags: ["prompt", "review"],
    sections: [{ title: "Use", body: "Paste the test; the review looks for brittle selectors, sleeps, missing assertions and shared state." }],
    prompt: {
      arguments: [{ name: "test", description: "the playbook or test code", required: true }],
      template:
        "Review this browser test for reliability:\n\n{{test}}\n\n" +
        "Point out selectors tied to layout instead of roles and names, fixed waits, steps without an assertion after them, and state shared between tests. " +
        "If it is a playbook, check it with POST /playbook/validate (or run_playbook) and quote any problem with its step. Suggest the corrected steps.",
    },
    examples: [{ title: "Validate the playbook under review", kind: "http", method: "POST", path: "/playbook/validate", body: { playbook: { steps: [{ action: "navigate", url: "{{origin}}/" }, { action: "assert_title", title: "Fixture shop" }] } } }],
  },
  {
    id: "debug-assistant",
    name: "Debug a failing test",
    category: "prompts",
    path: "prompts/debug-assistant.json",
    description: "Have an assistant find out why a page or test fails.",
    tags: ["prompt", "debugging"],
    sections: [{ title: "Use", body: "Give the URL and the symptom; the assistant reproduces it and reads the console, the network and, if needed, a trace." }],
    prompt: {
      arguments: [
        { name: "url", description: "the failing page", required: true },
        { name: "symptom", description: "what goes wrong", required: false },
      ],
      template:
        "Find out why {{url}} fails ({{symptom}}).\n" +
        "Open it with navigate_to_url, then read console_messages (level error) and network_requests (failed_only). " +
        "Reproduce the steps with the interaction tools while a trace records (start_trace / stop_trace). Report the cause, the evidence and the fix.",
    },
    examples: [
      { title: "Open the failing page", kind: "tool", tool: "navigate_to_url", arguments: { url: "{{origin}}/console" } },
      { title: "Its console errors", kind: "tool", tool: "console_messages", arguments: { level: "error" } },
    ],
  },
];
