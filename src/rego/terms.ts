import type { CallTarget, RefTerm, Term } from "./ast.ts";
import { compileBody } from "./bodies.ts";
import type { DocNode } from "./compiler.ts";
import { BuiltinError, RegoError, type Location } from "./errors.ts";
import { bind, type FunctionOverride, type Invoke, type K, type Run, type Vals, type VK } from "./evaluator.ts";
import { callFunction, docValue, walkDoc } from "./rules.ts";
import { equal, iterate, keyOf, lookup, RObject, RSet, type Value } from "./values.ts";

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
const cterm = (term: Term, needs: readonly number[] | false, one: One, each: Each, operand: Operand): CTerm => ({ term, needs, one, each, operand });

export const CONSTANT = 0;
export const SLOT = 1;
export const PATH = 2;
export const DATA = 3;
export const RULE = 4;
export const CLOSURE = 5;

/**
 * A direct term as data a caller reads inline: closures from one source function share their compiled
 * code, so a call through `one` is an indirect call the JIT cannot inline. Constants, variables, and
 * constant paths below a variable, `input`, the data document or a rule's remembered value (most
 * operands) cost no call at all.
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

const operand = (kind: Operand["kind"], one: One, value?: Value, slot = -1, keys: readonly Value[] = [], node?: DocNode): Operand => ({
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

/** A ref path for walking the data tree: which steps are ground now, and the walk from each step on. */
export interface DocPath {
  /** Per step: the constant key, or undefined when `slots` names the variable holding it (or neither). */
  readonly keys: (Value | undefined)[];
  readonly constant: boolean[];
  /** Per step: the slot of a variable step, -1 otherwise. */
  readonly slots: number[];
  /** walks[i] walks a value from step i to the end. */
  readonly walks: Walk[];
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
              if (prev !== undefined && !equal(prev, v)) throw new RegoError("eval_conflict_error", "object keys must be unique", t.loc);
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

const never: One = () => undefined;

function constant(t: Term & { type: "value" }): CTerm {
  const value = t.value;
  const one: One = () => value;
  return cterm(t, [], one, (_run, _vals, k) => k(value), operand(CONSTANT, one, value));
}

/** A term is evaluated directly whenever its needs are bound, and by `general` otherwise. */
function withGeneral(term: Term, needs: readonly number[] | false, one: One, general: Each, op = operand(CLOSURE, one)): CTerm {
  if (needs === false) return cterm(term, needs, one, general, op);
  const direct: Each = (run, vals, k) => {
    const v = fetch(op, run, vals);
    return v === undefined ? false : k(v);
  };
  if (needs.length === 0) return cterm(term, needs, one, direct, op);
  return cterm(term, needs, one, (run, vals, k) => (ready(needs, vals) ? direct(run, vals, k) : general(run, vals, k)), op);
}

/** A comprehension has one value; it is computed directly once the variables it closes over are bound. */
function comprehension(t: Term, build: (run: Run, vals: Vals) => Value): CTerm {
  return cterm(t, false, build, (run, vals, k) => k(build(run, vals)), operand(CLOSURE, build));
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

// ---- refs

function reference(t: RefTerm, root: DocNode): CTerm {
  const path = t.path.map((p) => compileTerm(p, root));
  // The walks serve only refs that iterate (or a data ref under `with`): built on first use.
  let built: Walk[] | undefined;
  const walks = (i: number) => (built ??= walkers(path, root))[i]!;
  const head = t.head;
  // Each step is a key once its own term is direct (a constant, a bound variable, a call, a ref...).
  const pathNeeds = head.type === "var" ? union(path) : false;
  if (head.type !== "var") {
    const h = compileTerm(head, root);
    return cterm(t, false, never, (run, vals, k) => h.each(run, vals, (v) => walks(0)(run, vals, v, k)), operand(CLOSURE, never));
  }
  const rest = pathNeeds === false ? undefined : lookups(path);
  const constantKeys = path.every((p) => p.term.type === "value") ? path.map((p) => (p.term as { value: Value }).value) : undefined;
  if (head.slot !== undefined) {
    const slot = head.slot;
    const needs = pathNeeds && (pathNeeds.includes(slot) ? pathNeeds : [slot, ...pathNeeds]);
    const one: One = (run, vals) => rest!(run, vals, vals[slot]!, 0);
    return withGeneral(
      t,
      needs,
      one,
      (run, vals, k) => {
        const v = vals[slot];
        if (v === undefined) throw unsafe(head.name, head.loc);
        return walks(0)(run, vals, v, k);
      },
      constantKeys ? operand(PATH, one, undefined, slot, constantKeys) : undefined,
    );
  }
  if (head.name === "input") {
    const one: One = (run, vals) => {
      const input = run.ctx.input;
      return input === undefined ? undefined : rest!(run, vals, input, 0);
    };
    return withGeneral(
      t,
      pathNeeds,
      one,
      (run, vals, k) => (run.ctx.input === undefined ? false : walks(0)(run, vals, run.ctx.input, k)),
      constantKeys ? operand(PATH, one, undefined, -1, constantKeys) : undefined,
    );
  }
  // A data ref: read from the rule it names, from the data document when no rule is on its path,
  // or by walking the tree (under `with data...`, or through partial rules).
  let doc: DocPath | undefined;
  const link = linkRef(t, root);
  const walkTree = (run: Run, vals: Vals, k: VK) => walkDoc(run, run.tree, run.ctx.data, (doc ??= docPath(path, root)), 0, vals, k);
  if (link === "data") {
    const one: One = (run, vals) => rest!(run, vals, run.ctx.data, 0);
    return withGeneral(
      t,
      pathNeeds,
      one,
      (run, vals, k) => walks(0)(run, vals, run.ctx.data, k),
      constantKeys ? operand(DATA, one, undefined, -1, constantKeys) : undefined,
    );
  }
  const viaTree: One = (run, vals) => {
    let v: Value | undefined;
    walkTree(run, vals, (x) => ((v = x), true));
    return v;
  };
  if (link === undefined) return withGeneral(t, pathNeeds, viaTree, walkTree);
  const { node, depth } = link;

  const one: One = (run, vals) => {
    if (run.ctx.overridden) return viaTree(run, vals);
    const v = docValue(run, node, undefined);
    return v === undefined ? undefined : rest!(run, vals, v, depth);
  };
  return withGeneral(
    t,
    pathNeeds,
    one,
    (run, vals, k) => {
      if (run.ctx.overridden) return walkTree(run, vals, k);
      const v = docValue(run, node, undefined);
      return v === undefined ? false : walks(depth)(run, vals, v, k);
    },
    constantKeys ? operand(RULE, one, undefined, -1, constantKeys.slice(depth), node) : undefined,
  );
}

/**
 * Where a data ref's constant prefix leads: to a complete rule (read its value, then the rest of the
 * path), past all rules ("data": a plain lookup in the data document), or neither (walk the tree).
 */
function linkRef(t: RefTerm, root: DocNode): { node: DocNode; depth: number } | "data" | undefined {
  let node = root;
  for (let i = 0; i < t.path.length; i++) {
    const p = t.path[i]!;
    if (p.type !== "value") return undefined;
    const next = node.children.get(keyOf(p.value));
    if (!next?.hasRules) return "data";
    node = next;
    if (node.complete.length || node.defaultRule?.kind === "complete") return { node, depth: i + 1 };
    if (node.partial.length || node.isFunction) return undefined;
  }
  return undefined;
}

/** Looks a value up along ground path steps from `from` on (constants and bound variables). */
/** Looks a value up along ready path steps from `from` on (each step's term gives the key). */
function lookups(path: readonly CTerm[]): (run: Run, vals: Vals, v: Value, from: number) => Value | undefined {
  const keys = path.map((p) => p.operand);
  const n = path.length;
  return (run, vals, v, from) => {
    let x: Value | undefined = v;
    for (let i = from; i < n && x !== undefined; i++) {
      const key = fetch(keys[i]!, run, vals);
      x = key === undefined ? undefined : lookup(x, key);
    }
    return x;
  };
}

function docPath(path: readonly CTerm[], root: DocNode): DocPath {
  return {
    keys: path.map((p) => (p.term.type === "value" ? p.term.value : undefined)),
    constant: path.map((p) => p.term.type === "value"),
    slots: path.map((p) => (p.term.type === "var" && p.term.slot !== undefined ? p.term.slot : -1)),
    walks: walkers(path, root),
  };
}

const end: Walk = (_run, _vals, v, k) => k(v);

const lookupStep =
  (key: Value, next: Walk): Walk =>
  (run, vals, v, k) => {
    const x = lookup(v, key);
    return x === undefined ? false : next(run, vals, x, k);
  };

/** walks[i] continues a ref from step i: constants look up, unbound variables iterate, other terms evaluate. */
function walkers(path: readonly CTerm[], root: DocNode): Walk[] {
  const walks: Walk[] = new Array(path.length + 1);
  walks[path.length] = end;
  for (let i = path.length - 1; i >= 0; i--) walks[i] = walkStep(path[i]!, walks[i + 1]!, root);
  return walks;
}

function walkStep(p: CTerm, next: Walk, root: DocNode): Walk {
  const t = p.term;
  if (t.type === "value") return lookupStep(t.value, next);
  if (t.type === "var" && t.slot !== undefined) {
    const slot = t.slot;
    return (run, vals, v, k) => {
      const key = vals[slot];
      if (key !== undefined) {
        const x = lookup(v, key);
        return x === undefined ? false : next(run, vals, x, k);
      }
      return iterate(v, (kv, x) => bind(vals, slot, kv, () => next(run, vals, x, k)));
    };
  }
  const isPattern = patternTest(t);
  const match = compileMatch(t, root);
  return (run, vals, v, k) => {
    if (isPattern(vals)) return iterate(v, (kv, x) => match(run, vals, kv, () => next(run, vals, x, k)));
    return p.each(run, vals, (key) => {
      const x = lookup(v, key);
      return x === undefined ? false : next(run, vals, x, k);
    });
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

// ---- calls

/**
 * A call whose arguments are ready: operands fetched inline, then the `with` replacement when one is
 * active, else the operator, built-in (its errors undefined unless strict) or user function.
 */
function callSite(target: CallTarget, args: readonly CTerm[], loc: Location): One {
  const ops = args.map((a) => a.operand);
  const key = callKey(target);
  const invoke = invoker(target, loc);
  const binary = target.kind === "builtin" && ops.length === 2 ? target.builtin.binary : undefined;
  if (binary) {
    const [a, b] = ops as [Operand, Operand];
    return (run, vals) => {
      const x = fetch(a, run, vals);
      if (x === undefined) return undefined;
      const y = fetch(b, run, vals);
      if (y === undefined) return undefined;
      return run.ctx.functions?.has(key) ? invoke(run, [x, y]) : binary(x, y);
    };
  }
  // The body of `invoke`, repeated here so a call is one closure call, not two.
  if (target.kind === "function") {
    const node = target.node;
    return (run, vals) => {
      const values = fetchAll(ops, run, vals);
      if (values === undefined) return undefined;
      return run.ctx.functions?.has(key) ? invoke(run, values) : callFunction(run, node, values, loc);
    };
  }
  // A built-in keeps nothing of its arguments, so the site fills the same array each time; only a site
  // reached again while its own arguments are being evaluated (through a `with` replacement) needs another.
  const { name, fn } = target.builtin;
  const n = ops.length;
  const argv = new Array<Value>(n);
  let owner: Run | undefined;
  let busy = false;
  return (run, vals) => {
    let args = argv;
    if (busy && owner === run) args = new Array<Value>(n);
    else {
      owner = run;
      busy = true;
    }
    for (let i = 0; i < n; i++) {
      const v = fetch(ops[i]!, run, vals);
      if (v === undefined) {
        if (args === argv) busy = false;
        return undefined;
      }
      args[i] = v;
    }
    if (args === argv) busy = false;
    if (run.ctx.functions?.has(key)) return invoke(run, args.slice());
    try {
      return fn(args, run);
    } catch (e) {
      return builtinFailure(run, e, name, loc);
    }
  };
}

/** The values of ready operands, or undefined when one has none. */
function fetchAll(ops: readonly Operand[], run: Run, vals: Vals): Value[] | undefined {
  const n = ops.length;
  const out = new Array<Value>(n);
  for (let i = 0; i < n; i++) {
    const v = fetch(ops[i]!, run, vals);
    if (v === undefined) return undefined;
    out[i] = v;
  }
  return out;
}

const callKey = (target: CallTarget) => (target.kind === "builtin" ? target.name : target.path);

/** Calls a target with evaluated arguments: a `with` replacement when one is active, else the function itself. */
export function invoker(target: CallTarget, loc: Location): Invoke {
  const key = callKey(target);
  if (target.kind === "function") {
    const node = target.node;
    return (run, args) => {
      const o = run.ctx.functions?.get(key);
      return o === undefined ? callFunction(run, node, args, loc) : overridden(run, key, o, args);
    };
  }
  const { name, fn } = target.builtin;
  return (run, args) => {
    const o = run.ctx.functions?.get(key);
    if (o !== undefined) return overridden(run, key, o, args);
    try {
      return fn(args, run);
    } catch (e) {
      return builtinFailure(run, e, name, loc);
    }
  };
}

function overridden(run: Run, key: string, o: FunctionOverride, args: Value[]): Value | undefined {
  if (o.value !== undefined) return o.value;
  const saved = run.ctx;
  run.ctx = saved.without(key);
  try {
    return o.replacement!.invoke(run, args.slice(0, o.replacement!.arity));
  } finally {
    run.ctx = saved;
  }
}

function builtinFailure(run: Run, e: unknown, name: string, loc: Location): undefined {
  if (e instanceof RegoError) throw e;
  if (run.strict) {
    const code = e instanceof BuiltinError && e.kind === "type" ? "eval_type_error" : "eval_builtin_error";
    throw new RegoError(code, `${name}: ${e instanceof Error ? e.message : String(e)}`, loc);
  }
  return undefined;
}
