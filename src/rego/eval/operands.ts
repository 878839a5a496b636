/**
 * Operands: how a compiled term's direct value is read (`fetch`), and the small pieces every term compiler
 * shares (direct-or-general terms, the slots a term needs, combinations of values, pattern tests).
 */
import type { Term } from "../syntax/ast.ts";
import type { DocNode } from "../plan/tree.ts";
import { RegoError, type Location } from "../values/errors.ts";
import { keyOf, lookup, lookupStored, RObject, type Value } from "../values/values.ts";
import type { CTerm, Each, One, Operand } from "./closures.ts";
import type { Run, Vals } from "./evaluator.ts";
import { late } from "./late.ts";

/** Every compiled term is made here, so all share one hidden class (their fields are read while evaluating). */
export const cterm = (term: Term, needs: readonly number[] | false, one: One, each: Each, operand: Operand): CTerm => ({ term, needs, one, each, operand });

export const CONSTANT = 0;
export const SLOT = 1;
export const PATH = 2;
export const DATA = 3;
export const RULE = 4;
export const CLOSURE = 5;

/** The value of an operand whose term is ready (see `ready`). */
export function fetch(o: Operand, run: Run, vals: Vals): Value | undefined {
  switch (o.kind) {
    case CONSTANT:
      return o.value;
    case SLOT:
      return vals[o.slot];
    case PATH:
      return follow(o.slot < 0 ? run.ctx.input : vals[o.slot], o);
    case DATA: {
      const data = run.ctx.data;
      if (o.from !== data) {
        o.found = followData(data, o);
        o.from = data;
      }
      return o.found;
    }
    case RULE: {
      const ctx = run.ctx;
      if (ctx.overridden !== undefined) return o.one(run, vals);
      const node = o.node!;
      const memo = node.memo;
      return follow(memo.ctx === ctx && !memo.computing ? memo.value : late.docValue(run, node, undefined), o);
    }
    default:
      return o.one(run, vals);
  }
}

function follow(v: Value | undefined, { keys, ids }: Operand): Value | undefined {
  for (let i = 0; i < keys.length && v !== undefined; i++) {
    const id = ids[i];
    v = id !== undefined && v instanceof RObject ? v.at(id) : lookup(v, keys[i]!);
  }
  return v;
}

/** `follow` in the base data document (see lookupStored). */
function followData(v: Value | undefined, { keys, ids }: Operand): Value | undefined {
  for (let i = 0; i < keys.length && v !== undefined; i++) {
    const id = ids[i];
    v = id !== undefined && v instanceof RObject ? v.at(id) : lookupStored(v, keys[i]!);
  }
  return v;
}

export const operand = (kind: Operand["kind"], one: One, value?: Value, slot = -1, keys: readonly Value[] = [], node?: DocNode): Operand => ({
  kind,
  value,
  slot,
  keys,
  ids: keys.map((k) => (typeof k === "string" ? keyOf(k) : undefined)),
  node,
  one,
  from: undefined,
  found: undefined,
});

/** The values of ready operands, or undefined when one has none. */
export function fetchAll(ops: readonly Operand[], run: Run, vals: Vals): Value[] | undefined {
  const n = ops.length;
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) {
    const v = fetch(ops[i]!, run, vals);
    if (v === undefined) return undefined;
    out[i] = v;
  }
  return out;
}

/** Whether every slot in `needs` is bound: the term can be evaluated directly. */
export function ready(needs: readonly number[] | false, vals: Vals): boolean {
  if (needs === false) return false;
  for (let i = 0; i < needs.length; i++) if (vals[needs[i]!] === undefined) return false;
  return true;
}

export const unsafe = (name: string, loc: Location) => new RegoError("rego_unsafe_var_error", `var ${name} is unsafe`, loc);

export const never: One = () => undefined;

/** A term is evaluated directly whenever its needs are bound, and by `general` otherwise. */
export function withGeneral(term: Term, needs: readonly number[] | false, one: One, general: Each, op = operand(CLOSURE, one)): CTerm {
  if (needs === false) return cterm(term, needs, one, general, op);
  const direct: Each = (run, vals, k) => {
    const v = fetch(op, run, vals);
    return v === undefined ? false : k(v);
  };
  if (needs.length === 0) return cterm(term, needs, one, direct, op);
  return cterm(term, needs, one, (run, vals, k) => (ready(needs, vals) ? direct(run, vals, k) : general(run, vals, k)), op);
}

export function union(terms: readonly CTerm[]): readonly number[] | false {
  const out: number[] = [];
  for (const t of terms) {
    if (t.needs === false) return false;
    for (const s of t.needs) if (!out.includes(s)) out.push(s);
  }
  return out;
}

/** Every combination of the terms' values, each as a fresh array. */
export function eachOf(items: readonly CTerm[]): (run: Run, vals: Vals, k: (values: Value[]) => boolean) => boolean {
  const n = items.length;
  // Plain variables are read last: a term beside one may bind it (`i == xs[i]`).
  const order = items.map((_, i) => i).sort((x, y) => Number(items[x]!.term.type === "var") - Number(items[y]!.term.type === "var"));
  return (run, vals, k) => {
    const acc = new Array<Value>(n);
    const from = (j: number): boolean => {
      if (j === n) return k(acc.slice());
      const i = order[j]!;
      return items[i]!.each(run, vals, (v) => {
        acc[i] = v;
        return from(j + 1);
      });
    };
    return from(0);
  };
}

/** Whether a term still has variables to bind in pattern positions (var, array item, object value). */
export function patternTest(t: Term): (vals: Vals) => boolean {
  const slots: number[] = [];
  const collect = (x: Term) => {
    if (x.type === "var" && x.slot !== undefined) slots.push(x.slot);
    else if (x.type === "array") x.items.forEach(collect);
    else if (x.type === "object") for (const [, v] of x.items) collect(v);
  };
  collect(t);
  if (slots.length === 0) return () => false;
  return (vals) => {
    for (let i = 0; i < slots.length; i++) if (vals[slots[i]!] === undefined) return true;
    return false;
  };
}

