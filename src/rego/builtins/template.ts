/**
 * strings.render_template: the part of Go's text/template that policies use, over Rego values: fields
 * (`{{.a.b}}`), variables (`{{$x}}`), `if`/`else`, `range` with `$i, $v :=`, `with`, and `{{- -}}` trimming.
 * A missing key prints `<undefined>`, as OPA's template does (it renders with missingkey=default).
 */
import { BuiltinError } from "../values/errors.ts";
import { isNumber, lookup, RObject, RSet, type Value } from "../values/values.ts";
import { numText } from "../values/numbers.ts";

type Node =
  | { kind: "text"; text: string }
  | { kind: "print"; expr: string }
  | { kind: "if" | "with"; expr: string; then: Node[]; otherwise: Node[] }
  | { kind: "range"; expr: string; key?: string; value?: string; body: Node[]; otherwise: Node[] };

const ACTION = /\{\{(-?)\s*([\s\S]*?)\s*(-?)\}\}/g;

function parse(template: string): Node[] {
  const tokens: ({ text: string } | { action: string })[] = [];
  let at = 0;
  for (const m of template.matchAll(ACTION)) {
    let text = template.slice(at, m.index);
    if (m[1]) text = text.trimEnd();
    tokens.push({ text });
    tokens.push({ action: m[2]! });
    at = m.index + m[0].length;
    if (m[3]) while (at < template.length && /\s/.test(template[at]!)) at++;
  }
  tokens.push({ text: template.slice(at) });
  let i = 0;
  const block = (enders: string[]): [Node[], string] => {
    const nodes: Node[] = [];
    while (i < tokens.length) {
      const t = tokens[i++]!;
      if ("text" in t) {
        if (t.text) nodes.push({ kind: "text", text: t.text });
        continue;
      }
      const [word, rest] = splitWord(t.action);
      if (enders.includes(word)) return [nodes, t.action];
      if (word === "if" || word === "with") {
        const [then, end] = block(["else", "end"]);
        const otherwise = end.startsWith("else") ? block(["end"])[0] : [];
        nodes.push({ kind: word, expr: rest, then, otherwise });
      } else if (word === "range") {
        const decl = /^(\$\w+)\s*(?:,\s*(\$\w+))?\s*:=\s*(.*)$/.exec(rest);
        const [body, end] = block(["else", "end"]);
        const otherwise = end.startsWith("else") ? block(["end"])[0] : [];
        if (decl) nodes.push({ kind: "range", key: decl[2] ? decl[1] : undefined, value: decl[2] ?? decl[1], expr: decl[3]!, body, otherwise });
        else nodes.push({ kind: "range", expr: rest, body, otherwise });
      } else if (word.startsWith("/*")) continue;
      else nodes.push({ kind: "print", expr: t.action });
    }
    if (enders.length) throw new BuiltinError(`template: unexpected EOF, expected {{${enders.join("}} or {{")}}}`);
    return [nodes, ""];
  };
  return block([])[0];
}

const splitWord = (action: string): [string, string] => {
  const m = /^(\S+)\s*([\s\S]*)$/.exec(action);
  return m ? [m[1]!, m[2]!] : [action, ""];
};

const MISSING = Symbol("missing");
type Scope = { dot: Value | typeof MISSING; vars: Map<string, Value> };

function evaluate(expr: string, scope: Scope): Value | typeof MISSING {
  const e = expr.trim();
  if (e === ".") return scope.dot;
  const field = /^(\$\w*)?((?:\.\w+)+)$/.exec(e);
  if (field) {
    let v: Value | typeof MISSING = field[1] ? (scope.vars.get(field[1]) ?? MISSING) : scope.dot;
    for (const key of field[2]!.slice(1).split(".")) {
      if (v === MISSING) return MISSING;
      const next: Value | undefined = lookup(v, key);
      v = next === undefined ? MISSING : next;
    }
    return v;
  }
  if (/^\$\w*$/.test(e)) return scope.vars.get(e) ?? MISSING;
  if (/^"(?:[^"\\]|\\.)*"$/.test(e)) return JSON.parse(e) as string;
  if (/^-?\d+(\.\d+)?$/.test(e)) return Number(e);
  if (e === "true" || e === "false") return e === "true";
  throw new BuiltinError(`template: unsupported action {{${e}}}`);
}

const truthy = (v: Value | typeof MISSING) =>
  v !== MISSING && v !== null && v !== false && v !== 0 && v !== "" && !(Array.isArray(v) && v.length === 0) && !((v instanceof RObject || v instanceof RSet) && v.size === 0);

function text(v: Value | typeof MISSING): string {
  if (v === MISSING) return "<undefined>";
  if (typeof v === "string") return v;
  if (isNumber(v)) return numText(v);
  if (v === null) return "<nil>";
  if (typeof v === "boolean") return String(v);
  if (Array.isArray(v)) return `[${v.map(text).join(" ")}]`;
  if (v instanceof RSet) return `[${v.values().map(text).join(" ")}]`;
  return `map[${v
    .entries()
    .map(([k, x]) => `${text(k)}:${text(x)}`)
    .join(" ")}]`;
}

function render(nodes: Node[], scope: Scope): string {
  let out = "";
  for (const n of nodes) {
    switch (n.kind) {
      case "text":
        out += n.text;
        break;
      case "print":
        out += text(evaluate(n.expr, scope));
        break;
      case "if":
        out += render(truthy(evaluate(n.expr, scope)) ? n.then : n.otherwise, scope);
        break;
      case "with": {
        const v = evaluate(n.expr, scope);
        out += truthy(v) ? render(n.then, { ...scope, dot: v }) : render(n.otherwise, scope);
        break;
      }
      case "range": {
        const v = evaluate(n.expr, scope);
        const entries: [Value, Value][] = Array.isArray(v)
          ? v.map((x, i) => [i, x])
          : v instanceof RObject
            ? v.entries()
            : v instanceof RSet
              ? v.values().map((x, i) => [i, x])
              : [];
        if (!entries.length) out += render(n.otherwise, scope);
        for (const [k, x] of entries) {
          const vars = new Map(scope.vars);
          if (n.key) vars.set(n.key, k);
          if (n.value) vars.set(n.value, x);
          out += render(n.body, { dot: x, vars });
        }
        break;
      }
    }
  }
  return out;
}

export function renderTemplate(template: string, vars: RObject): string {
  return render(parse(template), { dot: vars, vars: new Map([["$", vars]]) });
}
