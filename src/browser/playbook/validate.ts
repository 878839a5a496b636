/**
 * Reading and checking a playbook before anything runs: JSON or YAML text (or an object), every problem found at
 * once, each with its step index and field: unknown actions and fields, missing or mistyped fields, bad URLs.
 */
import { severities } from "../model.ts";
import { commonFields, type FieldSpec, type Playbook, playbookActions, type PlaybookProblem, topFields } from "./model.ts";

const states = ["visible", "hidden", "attached", "detached"];
const standards = ["WCAG2.1-A", "WCAG2.1-AA", "WCAG2.1-AAA", "WCAG2.2-AA"];
export const maxSteps = 500;

/** Parses JSON or YAML text; a syntax error is one problem. The YAML library loads with the first text to read. */
export async function readPlaybook(source: unknown): Promise<{ value?: unknown; problems: PlaybookProblem[] }> {
  if (typeof source !== "string") return { value: source, problems: [] };
  const { parse } = await import("yaml");
  try {
    return { value: parse(source), problems: [] };
  } catch (error) {
    return { problems: [{ message: `Not valid JSON or YAML: ${(error as Error).message.split("\n")[0]}` }] };
  }
}

function fieldProblem(value: unknown, spec: FieldSpec, baseUrl: string | undefined): string | undefined {
  switch (spec.kind) {
    case "string":
      return typeof value === "string" ? undefined : "must be text";
    case "integer":
      return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 600_000 ? undefined : "must be a whole number from 0 to 600000";
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false";
    case "strings":
      return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string") ? undefined : "must be a list of text values";
    case "state":
      return states.includes(value as string) ? undefined : `must be one of ${states.join(", ")}`;
    case "standard":
      return standards.includes(value as string) ? undefined : `must be one of ${standards.join(", ")}`;
    case "severity":
      return severities.includes(value as never) ? undefined : `must be one of ${severities.join(", ")}`;
    case "url": {
      if (typeof value !== "string") return "must be a URL";
      if (value.startsWith("/") && baseUrl) return undefined;
      if (value.startsWith("/")) return "is a path, so the playbook needs a base_url";
      if (!URL.canParse(value)) return `is not a URL: ${value}`;
      const scheme = new URL(value).protocol;
      return scheme === "http:" || scheme === "https:" ? undefined : `must be http or https, not ${scheme}`;
    }
  }
}

export function validatePlaybook(value: unknown): { playbook?: Playbook; problems: PlaybookProblem[] } {
  const problems: PlaybookProblem[] = [];
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { problems: [{ message: "A playbook is an object with a steps list" }] };
  const top = value as Record<string, unknown>;
  for (const key of Object.keys(top)) if (!(key in topFields)) problems.push({ field: key, message: `Unknown field ${key}; a playbook has ${Object.keys(topFields).join(", ")}` });
  for (const key of ["name", "description"] as const) if (top[key] !== undefined && typeof top[key] !== "string") problems.push({ field: key, message: `${key} must be text` });
  const baseUrl = typeof top.base_url === "string" ? top.base_url : undefined;
  if (top.base_url !== undefined) {
    const problem = fieldProblem(top.base_url, topFields.base_url!, undefined);
    if (problem) problems.push({ field: "base_url", message: `base_url ${problem}` });
  }
  if (!Array.isArray(top.steps) || top.steps.length === 0) {
    problems.push({ field: "steps", message: "steps must be a list with at least one step" });
    return { problems };
  }
  if (top.steps.length > maxSteps) problems.push({ field: "steps", message: `A playbook has at most ${maxSteps} steps` });
  top.steps.forEach((raw, step) => {
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return void problems.push({ step, message: "A step is an object with an action" });
    const fields = raw as Record<string, unknown>;
    const action = fields.action;
    if (typeof action !== "string") return void problems.push({ step, field: "action", message: `Step ${step + 1} has no action; one of ${Object.keys(playbookActions).join(", ")}` });
    const spec = playbookActions[action];
    if (!spec) return void problems.push({ step, field: "action", message: `Unknown action ${action}; one of ${Object.keys(playbookActions).join(", ")}` });
    for (const [name, field] of Object.entries(spec.required)) {
      if (fields[name] === undefined) problems.push({ step, field: name, message: `${action} needs ${name} (${field.doc})` });
    }
    if (action === "wait_for" && fields.selector === undefined && fields.text === undefined) problems.push({ step, field: "selector", message: "wait_for needs a selector or a text" });
    for (const [name, given] of Object.entries(fields)) {
      const field = spec.required[name] ?? spec.optional[name] ?? commonFields[name];
      if (!field) {
        problems.push({ step, field: name, message: `${action} has no field ${name}; it takes ${[...Object.keys(spec.required), ...Object.keys(spec.optional)].join(", ") || "no fields"}` });
        continue;
      }
      const problem = name === "action" ? undefined : fieldProblem(given, field, baseUrl);
      if (problem) problems.push({ step, field: name, message: `${name} ${problem}` });
    }
  });
  return problems.length ? { problems } : { playbook: value as Playbook, problems };
}
