import type { Term } from "./ast.ts";
import { compileBody, type CBody } from "./bodies.ts";
import type { CompiledRule, DocNode } from "./compiler.ts";
import { RegoError, type Location } from "./errors.ts";
import { type Direct, FAILS, HOLDS, NONE, NOT_DIRECT, type Run, type Vals, type VK } from "./evaluator.ts";
import { compileMatch, compileTerm, type CTerm, type DocPath, eachOf, type Match, ready } from "./terms.ts";
import { equal, keyOf, lookup, RObject, RSet, type Value } from "./values.ts";

/** A rule's body (or an else's) with the value it gives when the body holds. */
interface Branch {
  body: CBody;
  value: CTerm;
}

/** A rule compiled into closures. */
export interface RulePlan {
  /** The rule's body and value, then each else in turn. */
  branches: Branch[];
  /** Partial rules: all combinations of the head's keys. */
  keys: (run: Run, vals: Vals, k: (keys: Value[]) => boolean) => boolean;
  /** Functions: how each parameter takes its argument. */
  params: Param[];
  /** Functions whose parameters are patterns: every way the arguments match them. */
  matchArgs: (run: Run, vals: Vals, args: Value[], k: () => boolean) => boolean;
}

/** A parameter that is a constant (compared), a variable (bound) or a pattern (matched). */
type Param = { value: Value; slot: -1 } | { value: undefined; slot: number } | { value: undefined; slot: -2 };

/** Compiles the rules of every node that has any (after the tree is complete: refs link to rule nodes). */
export function planRules(root: DocNode): void {
  const visit = (node: DocNode) => {
    if (!node.hasRules) return;
    for (const r of [...node.complete, ...node.partial, ...node.functions]) r.plan = planRule(r, root);
    if (node.defaultRule) node.defaultRule.plan = planRule(node.defaultRule, root);
    for (const c of node.children.values()) visit(c);
  };
  visit(root);
}

function planRule(r: CompiledRule, root: DocNode): RulePlan {
  const branches = [{ body: r.body, value: r.value }, ...r.elses].map((b) => ({ body: compileBody(b.body, root), value: compileTerm(b.value, root) }));
  const params: Param[] = r.args.map((a) =>
    a.type === "value" ? { value: a.value, slot: -1 } : a.type === "var" && a.slot !== undefined ? { value: undefined, slot: a.slot } : { value: undefined, slot: -2 },
  );
  return { branches, keys: eachOf(r.keys.map((k) => compileTerm(k, root))), params, matchArgs: matchAll(r.args, root) };
}

function matchAll(params: Term[], root: DocNode): RulePlan["matchArgs"] {
  const matches: Match[] = params.map((p) => compileMatch(p, root));
  const n = matches.length;
  return (run, vals, args, k) => {
    const from = (i: number): boolean => (i === n ? k() : matches[i]!(run, vals, args[i]!, () => from(i + 1)));
    return from(0);
  };
}

const plan = (r: CompiledRule) => r.plan!;

// ---- documents

/** The full value of a node: base data merged with everything its rules (and its children's) produce. */
export function docValue(run: Run, node: DocNode, base: Value | undefined): Value | undefined {
  const ctx = run.ctx;
  if (ctx.overridden?.has(node) || !node.hasRules) return base;
  if (node.isFunction) return undefined;
  const memo = node.memo;
  if (memo.ctx === ctx) {
    if (memo.computing) throw new RegoError("rego_recursion_error", `rule ${node.name} is recursive`);
    return memo.value;
  }
  memo.ctx = ctx;
  memo.computing = true;
  const value = computeDoc(run, node, base);
  // A `with` below may have stamped the node for its own context meanwhile: stamp it again.
  memo.ctx = ctx;
  memo.computing = false;
  memo.value = value;
  return value;
}

function computeDoc(run: Run, node: DocNode, base: Value | undefined): Value | undefined {
  if (node.complete.length || node.defaultRule) return evalComplete(run, node);
  if (node.partial.some((r) => r.multi && r.keys.length === 0)) {
    const set = new RSet();
    for (const r of node.partial) evalPartial(run, r, (_keys, v) => void set.add(v));
    return set;
  }
  const result = base instanceof RObject ? base.copy() : new RObject();
  for (const child of node.ruleChildren) {
    const v = docValue(run, child, lookup(result, child.key));
    if (v !== undefined) result.set(child.key, v);
  }
  if (node.partial.length) {
    const owned = new Set<RObject | RSet>([result]);
    for (const r of node.partial) evalPartial(run, r, (keys, v) => insert(result, keys, v, r, owned));
  }
  return result;
}

/** Walks the data tree: ground steps descend nodes so only the rules on the path are evaluated. */
export function walkDoc(run: Run, node: DocNode, base: Value | undefined, path: DocPath, i: number, vals: Vals, k: VK): boolean {
  if (!node.hasRules || run.ctx.overridden?.has(node)) return base === undefined ? false : path.walks[i]!(run, vals, base, k);
  const slot = path.slots[i] ?? -1;
  const key = path.constant[i] ? path.keys[i] : slot >= 0 ? vals[slot] : undefined;
  if (key === undefined || node.isLeaf) {
    const v = docValue(run, node, base);
    return v === undefined ? false : path.walks[i]!(run, vals, v, k);
  }
  const child = node.children.get(keyOf(key));
  const nextBase = base === undefined ? undefined : lookup(base, key);
  if (child) return walkDoc(run, child, nextBase, path, i + 1, vals, k);
  return nextBase === undefined ? false : path.walks[i + 1]!(run, vals, nextBase, k);
}

/** The document at a constant path, as `POST /v1/data/<path>` gives it. */
export function readDocument(run: Run, path: DocPath): Value | undefined {
  let result: Value | undefined;
  run.guard(() => walkDoc(run, run.tree, run.ctx.data, path, 0, [], (v) => ((result = v), true)));
  return result;
}

// ---- rules

const NO_VALUES: Vals = [];
const frame = (slots: number): Vals => (slots === 0 ? NO_VALUES : new Array(slots));

function evalComplete(run: Run, node: DocNode): Value | undefined {
  let result: Value | undefined;
  let rule: CompiledRule;
  const onValue = (v: Value) => {
    if (result !== undefined && !equal(result, v)) throw new RegoError("eval_conflict_error", `rule ${node.name} produced conflicting values`, rule.loc);
    result = v;
    return false;
  };
  for (const r of node.complete) {
    // A rule whose every branch has the value already found cannot conflict: skip it.
    if (result !== undefined && allEqual(r.constants, result)) continue;
    run.enter(r.loc);
    rule = r;
    ruleValues(run, plan(r), frame(r.slots), onValue);
    run.depth--;
  }
  if (result === undefined && node.defaultRule) result = defaultValue(run, node.defaultRule);
  return result;
}

function defaultValue(run: Run, r: CompiledRule): Value | undefined {
  let result: Value | undefined;
  plan(r).branches[0]!.value.each(run, frame(r.slots), (v) => ((result = v), true));
  return result;
}

function evalPartial(run: Run, r: CompiledRule, add: (keys: Value[], v: Value) => void): void {
  run.enter(r.loc);
  const vals = frame(r.slots);
  const { branches, keys } = plan(r);
  const { body, value } = branches[0]!;
  body.goal(run, vals, () =>
    keys(run, vals, (ks) =>
      value.each(run, vals, (v) => {
        add(ks, v);
        return false;
      }),
    ),
  );
  run.depth--;
}

/** Values of one rule (or function definition): its body, then each else in turn until one holds. */
function ruleValues(run: Run, p: RulePlan, vals: Vals, onValue: VK): void {
  for (const b of p.branches) if (branchValues(run, b, vals, onValue)) return;
}

/** Whether the branch's body held. A body without backtracking has one solution and needs no continuation. */
function branchValues(run: Run, { body, value }: Branch, vals: Vals, onValue: VK): boolean {
  const mark = run.trail.length;
  const stop = body.prefix(run, vals, 0);
  let held = stop >= 0;
  if (stop === body.length) {
    if (ready(value.needs, vals)) {
      const v = value.one(run, vals);
      if (v !== undefined) onValue(v);
    } else value.each(run, vals, onValue);
  } else if (held) {
    // Every solution from here on; a constant value needs only the first.
    const single = value.term.type === "value";
    held = false;
    body.resume[stop]!(run, vals, () => {
      held = true;
      return value.each(run, vals, onValue) || single;
    });
  }
  run.undo(mark);
  return held;
}

// ---- functions

/** A user function's value for the arguments, computed once per arguments in an evaluation context. */
export function callFunction(run: Run, node: DocNode, args: Value[], loc: Location): Value | undefined {
  const memo = node.memo;
  if (memo.callsCtx !== run.ctx || memo.calls === undefined) {
    memo.callsCtx = run.ctx;
    memo.calls = new Map();
  }
  const calls = memo.calls;
  let key = args.length ? keyOf(args[0]!) : "";
  for (let i = 1; i < args.length; i++) key += `\0${keyOf(args[i]!)}`;
  const known = calls.get(key);
  if (known !== undefined) return known === NONE ? undefined : known;
  const r = evalFunction(run, node, args, loc);
  calls.set(key, r === undefined ? NONE : r);
  return r;
}

function evalFunction(run: Run, node: DocNode, args: Value[], loc: Location): Value | undefined {
  run.enter(loc);
  let result: Value | undefined;
  const onValue = (v: Value) => {
    if (result !== undefined && !equal(result, v))
      throw new RegoError("eval_conflict_error", `function ${node.name} produced conflicting values for the same inputs`, loc);
    result = v;
    return false;
  };
  for (const r of node.functions) {
    if (result !== undefined && allEqual(r.constants, result)) continue;
    const p = plan(r);
    const vals = frame(r.slots);
    const bound = bindArgs(p.params, args, vals);
    if (bound === HOLDS) ruleValues(run, p, vals, onValue);
    else if (bound === NOT_DIRECT) p.matchArgs(run, vals, args, () => (ruleValues(run, p, vals, onValue), false));
  }
  if (result === undefined && node.defaultRule) result = defaultValue(run, node.defaultRule);
  run.depth--;
  return result;
}

/** Binds a function's arguments when its parameters are plain variables or constants (the common case). */
function bindArgs(params: Param[], args: Value[], vals: Vals): Direct {
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    if (p.slot === -1) {
      if (!equal(p.value!, args[i]!)) return FAILS;
    } else if (p.slot >= 0) {
      const cur = vals[p.slot];
      if (cur === undefined) vals[p.slot] = args[i]!;
      else if (!equal(cur, args[i]!)) return FAILS;
    } else return NOT_DIRECT;
  }
  return HOLDS;
}

/** Whether every branch's constant value equals `v` (false when a branch computes its value). */
function allEqual(constants: (Value | undefined)[], v: Value): boolean {
  for (const c of constants) if (c === undefined || !equal(c, v)) return false;
  return true;
}

/** Adds one result of a partial rule to the node's object, copying shared sub-documents before writing. */
function insert(root: RObject, keys: Value[], v: Value, r: CompiledRule, owned: Set<RObject | RSet>): void {
  const conflict = () => new RegoError("eval_conflict_error", "object keys must be unique", r.loc);
  let obj = root;
  const last = keys.length - 1;
  for (let i = 0; i < last; i++) {
    const cur = obj.get(keys[i]!);
    if (cur !== undefined && !(cur instanceof RObject)) throw conflict();
    const next = cur === undefined ? new RObject() : owned.has(cur) ? cur : cur.copy();
    owned.add(next);
    obj.set(keys[i]!, next);
    obj = next;
  }
  const key = keys[last]!;
  const prev = obj.get(key);
  if (r.multi) {
    if (prev !== undefined && !(prev instanceof RSet)) throw conflict();
    const set = prev === undefined ? new RSet() : owned.has(prev) ? prev : RSet.of(prev.values());
    owned.add(set);
    set.add(v);
    obj.set(key, set);
    return;
  }
  if (prev !== undefined && !equal(prev, v)) throw conflict();
  obj.set(key, v);
}
