/**
 * Playbooks: a named list of browser steps, written as JSON or YAML. The actions, their fields and what each
 * does are declared once here; the validator, the runner, the language server's completion and hover, and
 * the docs all read this table.
 */
export type FieldKind = "string" | "url" | "integer" | "boolean" | "strings" | "severity" | "standard" | "state";

export interface FieldSpec {
  kind: FieldKind;
  doc: string;
}

export interface ActionSpec {
  doc: string;
  required: Record<string, FieldSpec>;
  optional: Record<string, FieldSpec>;
}

const selector: FieldSpec = { kind: "string", doc: "a Playwright selector: CSS, text=..., role=button[name=...], or a test id" };
/** Fields every step may carry. */
export const commonFields: Record<string, FieldSpec> = {
  action: { kind: "string", doc: "what the step does" },
  name: { kind: "string", doc: "how the step is shown in results and reports" },
  timeout_ms: { kind: "integer", doc: "how long the step may take (default: the server's action timeout)" },
  continue_on_error: { kind: "boolean", doc: "go on with the next steps when this one fails" },
};

export const playbookActions: Record<string, ActionSpec> = {
  navigate: { doc: "Open a URL (absolute, or a path under base_url).", required: { url: { kind: "url", doc: "http(s) URL, or a path starting with / under base_url" } }, optional: {} },
  click: { doc: "Click an element.", required: { selector }, optional: {} },
  fill: { doc: "Set a field's value at once.", required: { selector, value: { kind: "string", doc: "the text to put in the field" } }, optional: {} },
  type: { doc: "Type text key by key (fires key handlers).", required: { selector, text: { kind: "string", doc: "the text to type" } }, optional: {} },
  press: { doc: "Press a key, on an element or the focused one.", required: { key: { kind: "string", doc: "a key such as Enter, Tab, ArrowDown or Control+A" } }, optional: { selector } },
  select: { doc: "Choose options in a <select> by value or label.", required: { selector, values: { kind: "strings", doc: "option values or labels" } }, optional: {} },
  check: { doc: "Tick (or untick) a checkbox or radio button.", required: { selector }, optional: { checked: { kind: "boolean", doc: "false unticks (default true)" } } },
  hover: { doc: "Move the mouse over an element.", required: { selector }, optional: {} },
  wait: { doc: "Pause for a number of milliseconds (prefer wait_for).", required: { ms: { kind: "integer", doc: "milliseconds, at most 60000" } }, optional: {} },
  wait_for: {
    doc: "Wait until an element reaches a state, or until text is visible.",
    required: {},
    optional: { selector, text: { kind: "string", doc: "text to wait for" }, state: { kind: "state", doc: "visible (default), hidden, attached or detached" } },
  },
  screenshot: { doc: "Take a screenshot, kept with the result.", required: { name: { kind: "string", doc: "file name (letters, digits, . _ -)" } }, optional: { full_page: { kind: "boolean", doc: "the whole page, not just the view" } } },
  assert_text: { doc: "Fail unless the text is visible (inside selector when given).", required: { text: { kind: "string", doc: "text that must be visible" } }, optional: { selector } },
  assert_visible: { doc: "Fail unless the element is visible.", required: { selector }, optional: {} },
  assert_url: { doc: "Fail unless the page's URL contains (or, with exact, equals) url.", required: { url: { kind: "string", doc: "text the URL must contain" } }, optional: { exact: { kind: "boolean", doc: "the URL must be exactly this" } } },
  assert_title: { doc: "Fail unless the page's title contains (or, with exact, equals) title.", required: { title: { kind: "string", doc: "text the title must contain" } }, optional: { exact: { kind: "boolean", doc: "the title must be exactly this" } } },
  accessibility: {
    doc: "Run axe-core on the current page; its violations become findings, and the step fails on any at or above fail_on.",
    required: {},
    optional: { standard: { kind: "standard", doc: "WCAG2.1-A, WCAG2.1-AA (default), WCAG2.1-AAA or WCAG2.2-AA" }, fail_on: { kind: "severity", doc: "critical, high (default), medium, low or info" } },
  },
};

export const topFields: Record<string, FieldSpec> = {
  name: { kind: "string", doc: "the playbook's name" },
  description: { kind: "string", doc: "what it checks" },
  base_url: { kind: "url", doc: "where paths in navigate steps start" },
  steps: { kind: "string", doc: "the steps, in order" },
};

export interface Step {
  action: string;
  name?: string;
  timeout_ms?: number;
  continue_on_error?: boolean;
  [field: string]: unknown;
}

export interface Playbook {
  name?: string;
  description?: string;
  base_url?: string;
  steps: Step[];
}

/** A problem in a playbook: which step (or the playbook itself) and which field. */
export interface PlaybookProblem {
  step?: number;
  field?: string;
  message: string;
}

/** How a step reads in results: its name, or the action and its main argument. */
export function describeStep(step: Step): string {
  if (step.name) return step.name;
  const main = step.url ?? step.selector ?? step.text ?? step.key ?? step.title ?? step.name ?? step.ms;
  return main === undefined ? step.action : `${step.action} ${typeof main === "string" ? main : JSON.stringify(main)}`;
}
