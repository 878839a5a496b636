/**
 * Enough of HCL's expression language to judge a configuration without running it: literals, templates,
 * collections, var/local/each/count/module references, conditionals, operators, for expressions and the common
 * functions. What cannot be known statically (another resource's attribute, a variable without a value) is
 * `Unknown`, which says why, so a rule can tell "set from a reference" from "not known at all".
 */
import type { Expr } from "./hcl.ts";

export class Unknown {
  constructor(
    /** `reference`: another resource's or data source's attribute; `variable`: an input without a value. */
    readonly why: "reference" | "variable" | "other",
    readonly text: string,
  ) {}
}

export type Value = string | number | boolean | null | Value[] | { [key: string]: Value } | Unknown;

export interface Scope {
  variable(name: string): Value;
  local(name: string): Value;
  /** A module call's outputs, as an object. */
  module(name: string): Value;
  /** Names bound by for expressions, dynamic blocks, each and count. */
  bound?: Map<string, Value>;
}

const isObject = (v: Value): v is { [key: string]: Value } => typeof v === "object" && v !== null && !Array.isArray(v) && !(v instanceof Unknown);
export const isUnknown = (v: Value): v is Unknown => v instanceof Unknown;
const unknownIn = (values: Value[]) => values.find(isUnknown);

export function evaluate(expr: Expr, scope: Scope): Value {
  switch (expr.kind) {
    case "literal":
      return expr.value;
    case "template": {
      if (expr.parts.length === 1 && typeof expr.parts[0] !== "string") return evaluate(expr.parts[0]!, scope);
      let text = "";
      for (const part of expr.parts) {
        if (typeof part === "string") {
          text += part;
          continue;
        }
        const value = evaluate(part, scope);
        if (isUnknown(value)) return new Unknown(value.why, expr.text);
        if (typeof value === "object" && value !== null) return new Unknown("other", expr.text);
        text += value === null ? "" : String(value);
      }
      return text;
    }
    case "tuple":
      return expr.items.map((item) => evaluate(item, scope));
    case "object": {
      const object: Record<string, Value> = {};
      for (const { key, value } of expr.items) {
        const name = key.kind === "variable" ? key.name : evaluate(key, scope);
        if (isUnknown(name)) return new Unknown(name.why, expr.text);
        object[String(name)] = evaluate(value, scope);
      }
      return object;
    }
    case "variable":
      return root(expr.name, expr.text, scope);
    case "traversal":
      return traverse(expr, scope);
    case "call":
      return call(expr.name, expr.args.map((arg) => evaluate(arg, scope)), expr.text, expr.expand);
    case "conditional": {
      const condition = evaluate(expr.condition, scope);
      if (isUnknown(condition)) return new Unknown(condition.why, expr.text);
      return evaluate(condition ? expr.then : expr.otherwise, scope);
    }
    case "unary": {
      const operand = evaluate(expr.operand, scope);
      if (isUnknown(operand)) return operand;
      return expr.op === "!" ? !operand : -Number(operand);
    }
    case "binary":
      return binary(expr.op, evaluate(expr.left, scope), evaluate(expr.right, scope), expr.text);
    case "for":
      return forExpr(expr, scope);
    case "opaque":
      return new Unknown("other", expr.text);
  }
}

/** Names that never refer to a resource. */
const notResources = new Set(["var", "local", "module", "data", "each", "count", "path", "terraform", "self"]);

function root(name: string, text: string, scope: Scope): Value {
  const bound = scope.bound?.get(name);
  if (bound !== undefined) return bound;
  if (name === "path") return { module: ".", root: ".", cwd: "." };
  return new Unknown(notResources.has(name) ? "other" : "reference", text);
}

function traverse(expr: Extract<Expr, { kind: "traversal" }>, scope: Scope): Value {
  let steps = expr.steps;
  let value: Value;
  const first = steps[0];
  if (expr.base.kind === "variable" && first && "attr" in first && !scope.bound?.has(expr.base.name)) {
    const name = expr.base.name;
    if (name === "var") value = scope.variable(first.attr);
    else if (name === "local") value = scope.local(first.attr);
    else if (name === "module") value = scope.module(first.attr);
    else return new Unknown(name === "data" || !notResources.has(name) ? "reference" : "other", expr.text);
    steps = steps.slice(1);
  } else value = evaluate(expr.base, scope);
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    if (isUnknown(value)) return value;
    if ("splat" in step) {
      if (!Array.isArray(value)) value = value === null ? [] : [value];
      const rest = steps.slice(i + 1);
      return value.map((item) => rest.reduce<Value>((v, s) => (isUnknown(v) || "splat" in s ? v : index(v, s, scope, expr.text)), item));
    }
    value = index(value, step, scope, expr.text);
  }
  return value;
}

function index(value: Value, step: { attr: string } | { index: Expr }, scope: Scope, text: string): Value {
  const key = "attr" in step ? step.attr : evaluate(step.index, scope);
  if (isUnknown(key)) return key;
  if (Array.isArray(value) && typeof key === "number") return value[key] ?? new Unknown("other", text);
  if (isObject(value) && String(key) in value) return value[String(key)]!;
  return new Unknown("other", text);
}

function binary(op: string, left: Value, right: Value, text: string): Value {
  if (op === "&&" && (left === false || right === false)) return false;
  if (op === "||" && (left === true || right === true)) return true;
  const unknown = unknownIn([left, right]);
  if (unknown) return new Unknown(unknown.why, text);
  switch (op) {
    case "==":
      return JSON.stringify(left) === JSON.stringify(right);
    case "!=":
      return JSON.stringify(left) !== JSON.stringify(right);
    case "&&":
      return Boolean(left) && Boolean(right);
    case "||":
      return Boolean(left) || Boolean(right);
    case "+":
      return Number(left) + Number(right);
    case "-":
      return Number(left) - Number(right);
    case "*":
      return Number(left) * Number(right);
    case "/":
      return Number(left) / Number(right);
    case "%":
      return Number(left) % Number(right);
    case "<":
      return Number(left) < Number(right);
    case ">":
      return Number(left) > Number(right);
    case "<=":
      return Number(left) <= Number(right);
    case ">=":
      return Number(left) >= Number(right);
    default:
      return new Unknown("other", text);
  }
}

function forExpr(expr: Extract<Expr, { kind: "for" }>, scope: Scope): Value {
  const collection = evaluate(expr.collection, scope);
  if (isUnknown(collection)) return new Unknown(collection.why, expr.text);
  const entries: [Value, Value][] = Array.isArray(collection)
    ? collection.map((v, i) => [i, v])
    : isObject(collection)
      ? Object.entries(collection)
      : [];
  const results: [Value, Value][] = [];
  for (const [key, value] of entries) {
    const bound = new Map(scope.bound);
    if (expr.key) bound.set(expr.key, key);
    bound.set(expr.value, value);
    const inner = { ...scope, bound };
    if (expr.condition) {
      const keep = evaluate(expr.condition, inner);
      if (isUnknown(keep)) return new Unknown(keep.why, expr.text);
      if (!keep) continue;
    }
    results.push([expr.keyExpr ? evaluate(expr.keyExpr, inner) : key, evaluate(expr.valueExpr, inner)]);
  }
  if (!expr.object) return results.map(([, v]) => v);
  const object: Record<string, Value> = {};
  for (const [key, value] of results) {
    if (isUnknown(key)) return new Unknown(key.why, expr.text);
    if (expr.grouped) ((object[String(key)] ??= []) as Value[]).push(value);
    else object[String(key)] = value;
  }
  return object;
}

const flatten = (list: Value[]): Value[] => list.flatMap((item) => (Array.isArray(item) ? flatten(item) : [item]));
const text = (v: Value) => (typeof v === "string" ? v : JSON.stringify(v));

const functions: Record<string, (...args: Value[]) => Value> = {
  lower: (s) => String(s).toLowerCase(),
  upper: (s) => String(s).toUpperCase(),
  title: (s) => String(s).replace(/\b\w/g, (c) => c.toUpperCase()),
  trimspace: (s) => String(s).trim(),
  tostring: (v) => (v === null ? null : text(v)),
  tonumber: (v) => (v === null ? null : Number(v)),
  tobool: (v) => (v === null ? null : v === true || v === "true"),
  tolist: (v) => (Array.isArray(v) ? v : v === null ? null : [v]),
  toset: (v) => (Array.isArray(v) ? [...new Map(v.map((x) => [JSON.stringify(x), x])).values()] : v),
  tomap: (v) => v,
  concat: (...lists) => lists.flatMap((l) => (Array.isArray(l) ? l : [])),
  merge: (...maps) => Object.assign({}, ...maps.filter(isObject)),
  length: (v) => (Array.isArray(v) ? v.length : isObject(v) ? Object.keys(v).length : String(v).length),
  join: (sep, list) => (Array.isArray(list) ? list.map(text).join(String(sep)) : null),
  split: (sep, s) => String(s).split(String(sep)),
  format: (spec, ...args) => {
    let i = 0;
    return String(spec).replace(/%[sdvq%]/g, (m) => (m === "%%" ? "%" : text(args[i++] ?? "")));
  },
  lookup: (map, key, fallback = null) => (isObject(map) && String(key) in map ? map[String(key)]! : fallback),
  coalesce: (...values) => values.find((v) => v !== null && v !== "") ?? null,
  contains: (list, v) => Array.isArray(list) && list.some((x) => JSON.stringify(x) === JSON.stringify(v)),
  keys: (map) => (isObject(map) ? Object.keys(map).sort() : null),
  values: (map) => (isObject(map) ? Object.keys(map).sort().map((k) => map[k]!) : null),
  element: (list, i) => (Array.isArray(list) && list.length ? list[Number(i) % list.length]! : null),
  jsonencode: (v) => JSON.stringify(v),
  jsondecode: (s) => JSON.parse(String(s)) as Value,
  replace: (s, from, to) => String(s).split(String(from)).join(String(to)),
  min: (...n) => Math.min(...n.map(Number)),
  max: (...n) => Math.max(...n.map(Number)),
  flatten: (list) => (Array.isArray(list) ? flatten(list) : null),
  distinct: (list) => (Array.isArray(list) ? [...new Map(list.map((x) => [JSON.stringify(x), x])).values()] : null),
  compact: (list) => (Array.isArray(list) ? list.filter((x) => x !== null && x !== "") : null),
  range: (...n) => {
    const [start, end, step] = n.length === 1 ? [0, Number(n[0]), 1] : [Number(n[0]), Number(n[1]), Number(n[2] ?? 1)];
    const out: number[] = [];
    for (let x = start; step > 0 ? x < end : x > end; x += step) if (out.push(x) > 10_000) break;
    return out;
  },
};

function call(name: string, args: Value[], source: string, expand: boolean): Value {
  const spread = expand && Array.isArray(args.at(-1)) ? [...args.slice(0, -1), ...(args.at(-1) as Value[])] : args;
  if (name === "try") return spread.find((v) => !isUnknown(v)) ?? new Unknown("other", source);
  if (name === "can") return !spread.some(isUnknown);
  const unknown = unknownIn(spread);
  if (unknown) return new Unknown(unknown.why, source);
  const fn = functions[name.replace(/^provider::[^:]+::/, "")];
  if (!fn) return new Unknown("other", source);
  try {
    return fn(...spread);
  } catch {
    return new Unknown("other", source);
  }
}
