import type { Term } from "../syntax/ast.ts";
import { compileBody } from "./bodies.ts";
import { callSite, invoker } from "./calls.ts";
import { type DocNode, forEachVar } from "../plan/compiler.ts";
import { keyConflictError, RegoError, type Location } from "../values/errors.ts";
import { bind, type K, type Run, type Vals, type VK } from "./evaluator.ts";
import { docPath, reference } from "./refs.ts";
import { docValue, walkDoc } from "./rules.ts";
import { equal, keyOf, lookup, RObject, RSet, type Value } from "../values/values.ts";

/** The value of a term whose `needs` are bound; undefined when it has none. */
export type One = (run: Run, vals: Vals) => Value | undefined;
/** Every value of a term, binding the variables it iterates over for the continuation. */
export type Each = (run: Run, vals: Vals, k: VK) => boolean;
/** Matches a term against a value, binding the term's unbound variables for the continuation. */
export type Match = (run: Run, vals: Vals, value: Value, k: K) => boolean;
/** Walks a value down the rest of a ref's path. */
export type Walk = (run: Run, vals: Vals, value: Value, k: VK) => boolean;

/** A term compiled into closures. */
export interface CTerm {
  readonly term: Term;
  /**
   * The slots that must be bound for the term to have at most one value, computed by `one` without
   * backtracking; false when it never has (refs that iterate, the whole data document).
   */
  readonly needs: readonly number[] | false;
  readonly one: One;
  readonly each: Each;
  /** How callers fetch the direct value without calling `one` (for constants, variables, their paths). */
  readonly operand: Operand;
}

/** Every compiled term is made here, so all share one hidden class (their fields are read while evaluating). */
export const cterm = (term: Term, needs: readonly number[] | false, one: One, each: Each, operand: Operand): CTerm => ({ term, needs, one, each, operand });

const CONSTANT = 0;
const SLOT = 1;
export const PATH = 2;
export const DATA = 3;
export const RULE = 4;
export const CLOSURE = 5;

/**
 * A direct term as data that `fetch` reads in place: closures made from one source function share their
 * compiled code, so each call through `one` is an indirect call the JIT cannot inline. Constants,
 * variables, and constant paths below a variable, `input`, the data document or a rule's remembered
 * value (most operands) cost no call at all.
 */
export interface Operand {
  readonly kind: typeof CONSTANT | typeof SLOT | typeof PATH | typeof DATA | typeof RULE | typeof CLOSURE;
  readonly value: Value | undefined;
  /** SLOT: the variable; PATH: the variable the path starts at, or -1 for `input`. */
  readonly slot: number;
  /** PATH, DATA, RULE: the constant keys to look up (for RULE, those below the rule). */
  readonly keys: readonly Value[];
  /** The keys' identities (`keyOf`), undefined for keys that are not strings. */
  readonly ids: readonly (string | undefined)[];
  /** RULE: the complete rule's node. */
  readonly node: DocNode | undefined;
  readonly one: One;
  /** DATA: the data document last read, and what the path found in it (documents never change). */
  from: Value | undefined;
  found: Value | undefined;
}

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
        o.found = follow(data, o);
        o.from = data;
      }
      return o.found;
    }
    case RULE: {
      const ctx = run.ctx;
      if (ctx.overridden !== undefined) return o.one(run, vals);
      const node = o.node!;
      const memo = node.memo;
      return follow(memo.ctx === ctx && !memo.computing ? memo.value : docValue(run, node, undefined), o);
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

export function compileTerm(t: Term, root: DocNode): CTerm {
  switch (t.type) {
    case "value":
      return constant(t);
    case "var": {
      const slot = t.slot;
      if (slot !== undefined) {
        const one: One = (_run, vals) => vals[slot];
        const each: Each = (_run, vals, k) => {
          const v = vals[slot];
          if (v === undefined) throw unsafe(t.name, t.loc);
          return k(v);
        };
        return cterm(t, [slot], one, each, operand(SLOT, one, undefined, slot));
      }
      if (t.name === "input") {
        const one: One = (run) => run.ctx.input;
        return cterm(t, [], one, (run, _vals, k) => (run.ctx.input === undefined ? false : k(run.ctx.input)), operand(PATH, one));
      }
      const whole = docPath([], root);
      return cterm(t, false, never, (run, vals, k) => walkDoc(run, run.tree, run.ctx.data, whole, 0, vals, k), operand(CLOSURE, never));
    }
    case "ref":
      return reference(t, root);
    case "call": {
      const args = t.args.map((a) => compileTerm(a, root));
      const invoke = invoker(t.target!, t.loc);
      const all = eachOf(args);
      if (t.target!.kind === "builtin" && t.target!.builtin.relation)
        // A relation (walk) has a value per result: the term iterates them.
        return cterm(t, false, never, (run, vals, k) => all(run, vals, (values) => {
          const results = invoke(run, values);
          return Array.isArray(results) && results.some(k);
        }), operand(CLOSURE, never));
      return withGeneral(t, union(args), callSite(t.target!, args, t.loc), (run, vals, k) =>
        all(run, vals, (values) => {
          const r = invoke(run, values);
          return r === undefined ? false : k(r);
        }),
      );
    }
    case "array": {
      const items = t.items.map((i) => compileTerm(i, root));
      const all = eachOf(items);
      return withGeneral(t, union(items), oneArray(items), (run, vals, k) => all(run, vals, k));
    }
    case "set": {
      const items = t.items.map((i) => compileTerm(i, root));
      const array = oneArray(items);
      const all = eachOf(items);
      return withGeneral(
        t,
        union(items),
        (run, vals) => {
          const xs = array(run, vals);
          return xs && RSet.of(xs as Value[]);
        },
        (run, vals, k) => all(run, vals, (xs) => k(RSet.of(xs))),
      );
    }
    case "object":
      return objectTerm(t, t.items.map(([key, value]) => [compileTerm(key, root), compileTerm(value, root)] as const));
    case "arraycomp": {
      const body = compileBody(t.body, root).goal;
      const head = compileTerm(t.head, root);
      return comprehension(t, (run, vals) => {
        const out: Value[] = [];
        body(run, vals, () => head.each(run, vals, (v) => (out.push(v), false)));
        return out;
      });
    }
    case "setcomp": {
      const body = compileBody(t.body, root).goal;
      const head = compileTerm(t.head, root);
      return comprehension(t, (run, vals) => {
        const out = new RSet();
        body(run, vals, () => head.each(run, vals, (v) => (out.add(v), false)));
        return out;
      });
    }
    case "objectcomp": {
      const body = compileBody(t.body, root).goal;
      const key = compileTerm(t.key, root);
      const value = compileTerm(t.value, root);
      return comprehension(t, (run, vals) => {
        const out = new RObject();
        body(run, vals, () =>
          key.each(run, vals, (kv) =>
            value.each(run, vals, (v) => {
              const prev = out.get(kv);
              if (prev !== undefined && !equal(prev, v)) throw keyConflictError(t.loc);
              out.set(kv, v);
              return false;
            }),
          ),
        );
        return out;
      });
    }
  }
}

export const never: One = () => undefined;

function constant(t: Term & { type: "value" }): CTerm {
  const value = t.value;
  const one: One = () => value;
  return cterm(t, [], one, (_run, _vals, k) => k(value), operand(CONSTANT, one, value));
}

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

/** A comprehension has exactly one value: it is built directly once the variables it closes over are bound. */
function comprehension(t: Term & { firstLocal?: number }, build: (run: Run, vals: Vals) => Value): CTerm {
  const first = t.firstLocal ?? 0;
  const needs: number[] = [];
  forEachVar(t, (v) => {
    if (v.slot !== undefined && v.slot < first && !needs.includes(v.slot)) needs.push(v.slot);
  });
  return withGeneral(t, needs, build, (run, vals, k) => k(build(run, vals)));
}

export function union(terms: readonly CTerm[]): readonly number[] | false {
  const out: number[] = [];
  for (const t of terms) {
    if (t.needs === false) return false;
    for (const s of t.needs) if (!out.includes(s)) out.push(s);
  }
  return out;
}

/** The values of terms evaluated directly, or undefined when one has none. */
function oneArray(items: readonly CTerm[]): (run: Run, vals: Vals) => Value[] | undefined {
  const ops = items.map((i) => i.operand);
  return (run, vals) => fetchAll(ops, run, vals);
}

/** Every combination of the terms' values, each as a fresh array. */
export function eachOf(items: readonly CTerm[]): (run: Run, vals: Vals, k: (values: Value[]) => boolean) => boolean {
  const n = items.length;
  return (run, vals, k) => {
    const acc = new Array<Value>(n);
    const from = (i: number): boolean =>
      i === n
        ? k(acc.slice())
        : items[i]!.each(run, vals, (v) => {
            acc[i] = v;
            return from(i + 1);
          });
    return from(0);
  };
}

function objectTerm(t: Term, items: (readonly [CTerm, CTerm])[]): CTerm {
  const n = items.length;
  const needs = union(items.flat());
  const keys = items.map(([kt]) => (kt.term.type === "value" && typeof kt.term.value === "string" ? kt.term.value : undefined));
  const one: One = keys.every((k) => k !== undefined) ? sortedObject(keys as string[], items.map(([, vt]) => vt.operand)) : (run, vals) => {
    const o = new RObject();
    for (let i = 0; i < n; i++) {
      const [kt, vt] = items[i]!;
      const key = fetch(kt.operand, run, vals);
      const value = key === undefined ? undefined : fetch(vt.operand, run, vals);
      if (value === undefined) return undefined;
      o.set(key!, value);
    }
    return o;
  };
  const from = (run: Run, vals: Vals, i: number, acc: RObject, k: VK): boolean => {
    if (i === n) return k(acc.copy());
    const [kt, vt] = items[i]!;
    return kt.each(run, vals, (key) =>
      vt.each(run, vals, (v) => {
        acc.set(key, v);
        const r = from(run, vals, i + 1, acc, k);
        acc.delete(key);
        return r;
      }),
    );
  };
  return withGeneral(t, needs, one, (run, vals, k) => from(run, vals, 0, new RObject(), k));
}

/**
 * An object literal with constant string keys (the usual kind): values evaluated in source order, then
 * inserted in key order, so the object never needs sorting when it is iterated or converted.
 */
function sortedObject(keys: string[], values: Operand[]): One {
  const n = keys.length;
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
  return (run, vals) => {
    const got = new Array<Value>(n);
    for (let i = 0; i < n; i++) {
      const v = fetch(values[i]!, run, vals);
      if (v === undefined) return undefined;
      got[i] = v;
    }
    const o = new RObject();
    for (let i = 0; i < n; i++) o.set(keys[order[i]!]!, got[order[i]!]!);
    return o;
  };
}

// ---- patterns

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

/** `compiled`: the term already compiled, when the caller has it. */
export function compileMatch(t: Term, root: DocNode, compiled?: CTerm): Match {
  switch (t.type) {
    case "value": {
      const c = t.value;
      return (_run, _vals, v, k) => (equal(c, v) ? k() : false);
    }
    case "var":
      if (t.slot !== undefined) {
        const slot = t.slot;
        return (_run, vals, v, k) => {
          const cur = vals[slot];
          if (cur === undefined) return bind(vals, slot, v, k);
          return equal(cur, v) ? k() : false;
        };
      }
      break;
    case "array": {
      const items = t.items.map((i) => compileMatch(i, root));
      const n = items.length;
      return (run, vals, v, k) => {
        if (!Array.isArray(v) || v.length !== n) return false;
        const from = (i: number): boolean => (i === n ? k() : items[i]!(run, vals, v[i]!, () => from(i + 1)));
        return from(0);
      };
    }
    case "object": {
      const items = t.items.map(([key, value]) => [compileTerm(key, root), compileMatch(value, root)] as const);
      const n = items.length;
      return (run, vals, v, k) => {
        if (!(v instanceof RObject) || v.size !== n) return false;
        const from = (i: number): boolean => {
          if (i === n) return k();
          const [key, value] = items[i]!;
          return key.each(run, vals, (kv) => {
            const x = v.get(kv);
            return x === undefined ? false : value(run, vals, x, () => from(i + 1));
          });
        };
        return from(0);
      };
    }
  }
  const term = compiled ?? compileTerm(t, root);
  return (run, vals, v, k) => term.each(run, vals, (x) => (equal(x, v) ? k() : false));
}

