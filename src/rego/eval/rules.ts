import type { Term } from "../syntax/ast.ts";
import { compileBody } from "./bodies.ts";
import type { CBody, CTerm, DocPath, Match } from "./closures.ts";
import { late } from "./late.ts";
import { eachOf, fetch, ready } from "./operands.ts";
import { generateAnswer, generateFunction, generateNode } from "./codegen/nodes.ts";
import { generate } from "./codegen/rule.ts";
import { type Add, type CompiledRule, type DocNode, type FunctionCode, NONE, type NodeCode, type NodeMemo, type RuleCode } from "../plan/tree.ts";
import { keyConflictError, recursionError, RegoError, type Location } from "../values/errors.ts";
import { type Direct, FAILS, FIRST, HOLDS, NOT_DIRECT, overflowed, type Run, type Vals, type VK } from "./evaluator.ts";
import { compileMatch, compileTerm } from "./terms.ts";
import { equal, keyOf, lookup, RObject, RSet, toJS, type Value } from "../values/values.ts";

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
  matchArgs: (run: Run, vals: Vals, args: readonly Value[], k: () => boolean) => boolean;
}

/** A parameter that is a constant (compared), a variable (bound) or a pattern (matched). */
type Param = { value: Value; slot: -1 } | { value: undefined; slot: number } | { value: undefined; slot: -2 };

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

/**
 * A rule's closures, compiled when the rule is first evaluated: a large policy set costs no closures for
 * the rules a workload never reaches. `root` is the tree the rule belongs to (refs link to its nodes).
 */
const plan = (r: CompiledRule, root: DocNode) => (r.plan ??= planRule(r, root)) as RulePlan;

// ---- code for an evaluation's own context

// A node (or a partial rule) is read through the closures in an evaluation's own context until it is warm
// (`compileAfter` reads): a rule evaluated now and then keeps the closures' smaller footprint and skips the
// generator's cost; one in use gets generated code after its first few decisions. Once warm, a node of
// complete rules or a function is one generated function (its rules are blocks of it), a partial rule one of
// its own; what the generator leaves out keeps its closures behind the same signature.

/** A partial rule as one function. */
function ruleCode(r: CompiledRule, root: DocNode): RuleCode {
  if (r.code === undefined) {
    const generated = generate(r, root);
    r.code = generated ?? closureCode(r, root);
    if (generated) r.plan = undefined; // its closures are not needed any more
  }
  return r.code;
}

/** A node of complete rules as one function, its memo included (see generateNode). */
const nodeCode = (node: DocNode, root: DocNode): NodeCode =>
  (node.code ??= generatedFor(node.complete, root, (closures) => generateNode(node, root, closures, defaultValue)));

/** A function's definitions as one function (see generateFunction). */
const functionCode = (node: DocNode, root: DocNode): FunctionCode =>
  (node.functionCode ??= generatedFor(node.functions, root, (closures) => generateFunction(node, root, closures, defaultValue)));

/** Code made for `rules` together: the rules it leaves to closures keep them, the others drop theirs. */
function generatedFor<C>(rules: CompiledRule[], root: DocNode, make: (closures: (r: CompiledRule) => RuleCode) => C): C {
  const cold = new Set<CompiledRule>();
  const code = make((r) => (cold.add(r), closureCode(r, root)));
  dropClosures(rules, cold);
  return code;
}

/** The closures compiled rules ran as while cold are garbage now (`with` makes them again if it needs them). */
function dropClosures(rules: CompiledRule[], kept: Set<CompiledRule>): void {
  for (const r of rules) if (!kept.has(r)) r.plan = undefined;
}

function closureCode(r: CompiledRule, root: DocNode): RuleCode {
  const node = r.node;
  // The plan types the code's evaluation loosely (it knows no Run); every evaluation is one.
  if (r.kind === "function") return (run, prior, args, loc) => definitionValue(run as Run, r, args, prior, loc);
  if (r.kind === "partial") return (run, prior, _args, _loc, add) => (partialValues(run as Run, r, add!), prior);
  return (run, prior, _args, loc) => ruleValue(run as Run, plan(r, root), frame(r.slots), prior, node, loc, false);
}

const NO_ARGS: Value[] = [];

// ---- documents

/** The full value of a node: base data merged with everything its rules (and its children's) produce. */
export function docValue(run: Run, node: DocNode, base: Value | undefined): Value | undefined {
  const ctx = run.ctx;
  if (ctx.overridden?.has(node) || !node.hasRules) return base;
  if (node.isFunction) return undefined;
  if (ctx === run.base && (node.complete.length || node.defaultRule)) {
    const code = node.code ?? (node.runs++ >= run.compileAfter ? nodeCode(node, run.tree) : undefined);
    if (code !== undefined) return code(run);
  }
  const memo = node.memo;
  if (memo.ctx === ctx) {
    if (memo.computing) throw recursionError(node.name);
    return memo.value;
  }
  memo.ctx = ctx;
  memo.computing = true;
  const value = node.complete.length || node.defaultRule ? evalComplete(run, node) : computeDoc(run, node, base);
  // A `with` below may have stamped the node for its own context meanwhile: stamp it again.
  memo.ctx = ctx;
  memo.computing = false;
  memo.value = value;
  return value;
}

/** The value of a node without complete rules: a set (partial set rules) or an object (children, partial objects). */
function computeDoc(run: Run, node: DocNode, base: Value | undefined): Value | undefined {
  if (node.partial.some((r) => r.multi && r.keys.length === 0)) {
    const set = new RSet();
    for (const r of node.partial) evalPartial(run, r, (_keys, v) => void set.add(v));
    return set;
  }
  const own = base instanceof RObject;
  const result = own ? base.copy() : new RObject();
  for (const child of node.ruleChildren) {
    const v = docValue(run, child, own ? result.get(child.key) : undefined);
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
  const child = node.childAt[keyOf(key)];
  const nextBase = base === undefined ? undefined : lookup(base, key);
  if (child) return walkDoc(run, child, nextBase, path, i + 1, vals, k);
  return nextBase === undefined ? false : path.walks[i + 1]!(run, vals, nextBase, k);
}

/**
 * The document at a constant path as plain JS, as `POST /v1/data/<path>` answers (undefined when there is
 * none): only the rules on the path run. Runs in the evaluation's own context.
 */
export function answer(run: Run, keys: readonly Value[]): unknown {
  try {
    let node = run.tree;
    let base: Value | undefined = run.ctx.data;
    for (let i = 0; ; i++) {
      if (!node.hasRules) return toAnswer(below(base, keys, i));
      if (i === keys.length && !node.isLeaf && node.partial.length === 0) {
        // A package (once warm) is answered by a generated function; before, its document is built and converted.
        const code = node.answer ?? (node.runs++ >= run.compileAfter ? (node.answer = generateAnswer(node)) : undefined);
        if (code !== undefined) return code(run, base instanceof RObject ? base : undefined);
      }
      if (i === keys.length || node.isLeaf) return toAnswer(below(docValue(run, node, base), keys, i));
      const key = keys[i]!;
      const child = node.childAt[keyOf(key)];
      base = base === undefined ? undefined : lookup(base, key);
      if (!child) return toAnswer(below(base, keys, i + 1));
      node = child;
    }
  } catch (e) {
    throw overflowed(e);
  }
}

const toAnswer = (v: Value | undefined) => (v === undefined ? undefined : toJS(v));

function below(v: Value | undefined, keys: readonly Value[], from: number): Value | undefined {
  for (let i = from; i < keys.length && v !== undefined; i++) v = lookup(v, keys[i]!);
  return v;
}

// ---- rules

const NO_VALUES: Vals = [];
const frame = (slots: number): Vals => (slots === 0 ? NO_VALUES : new Array(slots));

/** A node's complete rules through the closures (nodeCode does this once the node is warm). */
function evalComplete(run: Run, node: DocNode): Value | undefined {
  let result: Value | undefined;
  const rules = node.complete;
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i]!;
    // A rule whose every branch has the value already found cannot conflict: skip it.
    if (result !== undefined && allEqual(r.constants, result)) continue;
    run.enter(r.loc);
    result = ruleValue(run, plan(r, run.tree), frame(r.slots), result, node, r.loc, false);
    run.depth--;
  }
  if (result === undefined && node.defaultRule) result = defaultValue(run, node.defaultRule);
  return result;
}

function defaultValue(run: Run, r: CompiledRule): Value | undefined {
  let result: Value | undefined;
  plan(r, run.tree).branches[0]!.value.each(run, frame(r.slots), (v) => ((result = v), true));
  return result;
}

function evalPartial(run: Run, r: CompiledRule, add: Add): void {
  run.enter(r.loc);
  if (run.ctx === run.base && (r.code !== undefined || r.runs++ >= run.compileAfter)) ruleCode(r, run.tree)(run, undefined, NO_ARGS, r.loc, add);
  else partialValues(run, r, add);
  run.depth--;
}

function partialValues(run: Run, r: CompiledRule, add: Add): void {
  const vals = frame(r.slots);
  const { branches, keys } = plan(r, run.tree);
  const { body, value } = branches[0]!;
  body.goal(run, vals, () =>
    keys(run, vals, (ks) =>
      value.each(run, vals, (v) => {
        add(ks, v);
        return false;
      }),
    ),
  );
}

/**
 * The value of one rule (or function definition) after `prior`, the value found so far: its body, then
 * each else in turn until one holds. A body without backtracking has one solution and needs no
 * continuation; one that backtracks gives every solution (a constant value needs only the first), and
 * two different values are a conflict: for a rule at the rule, for a function at the call.
 */
function ruleValue(run: Run, p: RulePlan, vals: Vals, prior: Value | undefined, node: DocNode, loc: Location, fn: boolean): Value | undefined {
  const branches = p.branches;
  for (let i = 0; i < branches.length; i++) {
    const branch = branches[i]!;
    const { body, value } = branch;
    const mark = run.trail.length;
    const stop = body.length === 0 ? 0 : body.prefix(run, vals, 0);
    let found: Value | undefined | typeof NOT_HELD = NOT_HELD;
    if (stop === body.length) {
      if (!ready(value.needs, vals)) found = eachValue(run, vals, value, prior, node, loc, fn);
      else {
        const v = fetch(value.operand, run, vals);
        found = v === undefined ? prior : merge(prior, v, node, loc, fn);
      }
    } else if (stop >= 0) found = solutions(run, vals, branch, stop, prior, node, loc, fn);
    run.undo(mark);
    if (found !== NOT_HELD) return found;
  }
  return prior;
}

/** A branch whose body did not hold. */
const NOT_HELD = Symbol("not held");

function eachValue(run: Run, vals: Vals, value: CTerm, prior: Value | undefined, node: DocNode, loc: Location, fn: boolean): Value | undefined {
  value.each(run, vals, (v) => {
    prior = merge(prior, v, node, loc, fn);
    return false;
  });
  return prior;
}

/** Every solution of a branch's body from expression `stop` on (a constant value needs only the first). */
function solutions(run: Run, vals: Vals, { body, value }: Branch, stop: number, prior: Value | undefined, node: DocNode, loc: Location, fn: boolean) {
  if (value.term.type === "value") return body.resume[stop]!(run, vals, FIRST) ? merge(prior, value.term.value, node, loc, fn) : NOT_HELD;
  let held = false;
  body.resume[stop]!(run, vals, () => {
    held = true;
    prior = eachValue(run, vals, value, prior, node, loc, fn);
    return false;
  });
  return held ? prior : NOT_HELD;
}

export function merge(prior: Value | undefined, v: Value, node: DocNode, loc: Location, fn: boolean): Value {
  if (prior !== undefined && !equal(prior, v))
    throw new RegoError(
      "eval_conflict_error",
      fn ? `function ${node.name} produced conflicting values for the same inputs` : `rule ${node.name} produced conflicting values`,
      loc,
    );
  return v;
}

// ---- functions

/** A user function's value for the arguments, computed once per arguments in an evaluation context. */
export function callFunction(run: Run, node: DocNode, args: Value[], loc: Location): Value | undefined {
  const memo = node.memo;
  const ctx = run.ctx;
  if (memo.callsCtx !== ctx) {
    memo.callsCtx = ctx;
    memo.listed = 0;
    memo.callIndex = undefined;
  }
  const known = memo.callIndex === undefined ? listed(memo, args) : memo.callIndex[argsKey(args)];
  if (known !== undefined) return known === NONE ? undefined : known;
  const code = ctx !== run.base ? undefined : (node.functionCode ?? (node.runs++ >= run.compileAfter ? functionCode(node, run.tree) : undefined));
  const r = code !== undefined ? code(run, args, loc) : evalFunction(run, node, args, loc);
  // A call under another context (a `with` below) may have taken the memo over meanwhile: then keep nothing.
  if (memo.callsCtx === ctx) remember(memo, args, r === undefined ? NONE : r);
  return r;
}

const MAX_LISTED = 8;

function listed({ calls, listed }: NodeMemo, args: Value[]): Value | typeof NONE | undefined {
  for (let i = 0; i < listed; i += 2) if (sameArgs(calls[i] as Value[], args)) return calls[i + 1] as Value | typeof NONE;
  return undefined;
}

function remember(memo: NodeMemo, args: Value[], r: Value | typeof NONE): void {
  const calls = memo.calls;
  if (memo.callIndex === undefined && memo.listed < 2 * MAX_LISTED) {
    calls[memo.listed++] = args;
    calls[memo.listed++] = r;
    return;
  }
  if (memo.callIndex === undefined) {
    memo.callIndex = Object.create(null) as Record<string, Value | typeof NONE>;
    for (let i = 0; i < memo.listed; i += 2) memo.callIndex[argsKey(calls[i] as Value[])] = calls[i + 1] as Value | typeof NONE;
    memo.listed = 0;
  }
  memo.callIndex[argsKey(args)] = r;
}

function sameArgs(a: Value[], b: Value[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i] && !equal(a[i]!, b[i]!)) return false;
  return true;
}

function argsKey(args: Value[]): string {
  let key = args.length ? keyOf(args[0]!) : "";
  for (let i = 1; i < args.length; i++) key += `\0${keyOf(args[i]!)}`;
  return key;
}

/** A function's definitions through the closures (functionCode does this once the function is warm). */
function evalFunction(run: Run, node: DocNode, args: Value[], loc: Location): Value | undefined {
  run.enter(loc);
  let result: Value | undefined;
  const definitions = node.functions;
  for (let i = 0; i < definitions.length; i++) {
    const r = definitions[i]!;
    if (result !== undefined && allEqual(r.constants, result)) continue;
    result = definitionValue(run, r, args, result, loc);
  }
  if (result === undefined && node.defaultRule) result = defaultValue(run, node.defaultRule);
  run.depth--;
  return result;
}

/** One definition of a function, as closures: its value for the arguments after `prior`. */
function definitionValue(run: Run, r: CompiledRule, args: readonly Value[], prior: Value | undefined, loc: Location): Value | undefined {
  const p = plan(r, run.tree);
  const vals = frame(r.slots);
  const bound = bindArgs(p.params, args, vals);
  if (bound === HOLDS) return ruleValue(run, p, vals, prior, r.node, loc, true);
  if (bound === NOT_DIRECT) return matchedValue(run, p, vals, args, prior, r.node, loc);
  return prior;
}

/** A definition whose parameters are patterns: its values for every way the arguments match them. */
function matchedValue(run: Run, p: RulePlan, vals: Vals, args: readonly Value[], prior: Value | undefined, node: DocNode, loc: Location): Value | undefined {
  p.matchArgs(run, vals, args, () => {
    prior = ruleValue(run, p, vals, prior, node, loc, true);
    return false;
  });
  return prior;
}

/** Binds a function's arguments when its parameters are plain variables or constants (the common case). */
function bindArgs(params: Param[], args: readonly Value[], vals: Vals): Direct {
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
export function allEqual(constants: (Value | undefined)[], v: Value): boolean {
  for (const c of constants) if (c === undefined || !equal(c, v)) return false;
  return true;
}

/** Adds one result of a partial rule to the node's object, copying shared sub-documents before writing. */
function insert(root: RObject, keys: Value[], v: Value, r: CompiledRule, owned: Set<RObject | RSet>): void {
  const conflict = () => keyConflictError(r.loc);
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

late.docValue = docValue;
late.walkDoc = walkDoc;
late.callFunction = callFunction;
late.merge = merge;
late.allEqual = allEqual;
