/**
 * What the language server knows about a playbook file, as plain functions over its text: problems with their
 * ranges (the validator's, placed on the step or field they name, and YAML/JSON syntax errors), completions for
 * the cursor's place (actions, the fields of the step's action, top-level fields), and hover docs.
 */
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from "yaml";
import { commonFields, playbookActions, topFields } from "../playbook/model.ts";
import { validatePlaybook } from "../playbook/validate.ts";

export interface Range {
  start: { line: number; character: number };
  end: { line: number; character: number };
}

export interface Problem {
  range: Range;
  message: string;
}

export interface Completion {
  label: string;
  kind: "action" | "field";
  detail: string;
}

function positions(text: string) {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, keepSourceTokens: true });
  const at = (offset: number) => {
    const { line, col } = lines.linePos(offset);
    return { line: line - 1, character: col - 1 };
  };
  const range = (node: Node | null | undefined): Range => {
    const [start, end] = node?.range ?? [0, 0];
    return { start: at(start), end: at(Math.max(start, end)) };
  };
  return { document, at, range };
}

export function diagnose(text: string): Problem[] {
  const { document, at, range } = positions(text);
  if (document.errors.length) return document.errors.map((error) => ({ range: { start: at(error.pos[0]), end: at(error.pos[1]) }, message: error.message.split("\n")[0]! }));
  return validatePlaybook(document.toJS()).problems.map((problem) => {
    const path: (string | number)[] = problem.step === undefined ? [] : ["steps", problem.step];
    const step = path.length ? (document.getIn(path, true) as Node | undefined) : document.contents;
    const map = isMap(step) ? step : undefined;
    // The field's key when it is there (an unknown field, a bad value), else the whole step (a missing field).
    const pair = problem.field ? map?.items.find((item) => isScalar(item.key) && item.key.value === problem.field) : undefined;
    const target = (pair?.key as Node | undefined) ?? (problem.field === "steps" ? (document.get("steps", true) as Node | undefined) : undefined) ?? step ?? document.contents;
    return { range: range(target), message: problem.message };
  });
}

export function complete(text: string, line: number, character: number): Completion[] {
  const { document } = positions(text);
  const lines = text.split("\n");
  const before = (lines[line] ?? "").slice(0, character);
  const offset = lines.slice(0, line).reduce((sum, l) => sum + l.length + 1, 0) + character;
  if (/action:\s*["']?[\w-]*$/.test(before))
    return Object.entries(playbookActions).map(([label, spec]) => ({ label, kind: "action", detail: spec.doc }));
  const steps = document.get("steps", true);
  const step = isSeq(steps) ? steps.items.find((item) => isMap(item) && item.range && offset >= item.range[0] && offset <= item.range[2] + 1) : undefined;
  if (isMap(step)) {
    const given = new Set(step.items.map((item) => (isScalar(item.key) ? String(item.key.value) : "")));
    const action = step.get("action");
    const spec = typeof action === "string" ? playbookActions[action] : undefined;
    const fields = spec ? { ...spec.required, ...spec.optional, ...commonFields } : commonFields;
    return Object.entries(fields)
      .filter(([name]) => !given.has(name))
      .map(([label, field]) => ({ label, kind: "field", detail: `${spec?.required[label] ? "required: " : ""}${field.doc}` }));
  }
  return Object.entries(topFields).map(([label, field]) => ({ label, kind: "field", detail: field.doc }));
}

export function hover(text: string, line: number, character: number): string | undefined {
  const source = text.split("\n")[line] ?? "";
  const word = /[\w-]+/g;
  let match: RegExpExecArray | null;
  while ((match = word.exec(source))) {
    if (character < match.index || character > match.index + match[0].length) continue;
    const name = match[0];
    const action = playbookActions[name];
    if (action) {
      const fields = [
        ...Object.entries(action.required).map(([field, spec]) => `- \`${field}\` (required): ${spec.doc}`),
        ...Object.entries(action.optional).map(([field, spec]) => `- \`${field}\`: ${spec.doc}`),
      ];
      return `**${name}**: ${action.doc}${fields.length ? `\n\n${fields.join("\n")}` : ""}`;
    }
    const field = Object.values(playbookActions).map((a) => a.required[name] ?? a.optional[name]).find(Boolean) ?? commonFields[name] ?? topFields[name];
    return field ? `**${name}**: ${field.doc}` : undefined;
  }
  return undefined;
}
