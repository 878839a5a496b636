import type { Body, CompiledWith, Expr, Term } from "../syntax/ast.ts";
import { groundValue } from "../plan/compiler.ts";
import { invoker } from "./calls.ts";
import { late } from "./late.ts";
import type { DocNode } from "../plan/tree.ts";
import type { Location } from "../values/errors.ts";
import {
  bind,
  Context,
  FIRST,
  type Direct,
  FAILS,
  type FunctionOverride,
  type Goal,
  HOLDS,
  type K,
  NOT_DIRECT,
  type Run,
  type Vals,
} from "./evaluator.ts";
import type { CBody, CTerm, Test } from "./closures.ts";
import { eachOf, fetch, patternTest, ready, RULE, union, unsafe } from "./operands.ts";
import { compileMatch, compileTerm } from "./terms.ts";
import { equal, isCollection, iterate, keyOf, RObject, RSet, type Value } from "../values/values.ts";

interface CExpr {
  /** Absent when the expression can never be evaluated directly. */
  test: Test | undefined;
  goal: Goal;
}

/**
 * Compiles a body. Expressions with at most one solution run in a loop, their bindings recorded on the
 * trail and undone when the body returns; only one that may backtrack (iteration, `with`, patterns)
 * continues in continuation-passing style, so most policy bodies never allocate a continuation.
 */
export function compileBody(body: Body, root: DocNode): CBody {
  const exprs = body.map((e) => compileExpr(e, root));
  const n = exprs.length;
  const tests = exprs.map((e) => e.test);
  const goals = exprs.map((e) => e.goal);
  const prefix = (run: Run, vals: Vals, from: number): number => {
    for (let i = from; i < n; i++) {
      const test = tests[i];
      if (test === undefined) return i;
      const d = test(run, vals);
      if (d === FAILS) return -1;
      if (d === NOT_DIRECT) return i;
    }
    return n;
  };
  const from: Goal[] = new Array(n + 1);
  const resume: Goal[] = new Array(n);
  from[n] = (_run, _vals, k) => k();
  for (let i = n - 1; i >= 0; i--) {
    const goal = goals[i]!;
    const next = from[i + 1]!;
    resume[i] = (run, vals, k) => goal(run, vals, () => next(run, vals, k));
    from[i] = (run, vals, k) => {
      const mark = run.trail.length;
      const j = prefix(run, vals, i);
      const r = j < 0 ? false : j === n ? k() : resume[j]!(run, vals, k);
      run.undo(mark);
      return r;
    };
  }
  return { length: n, goal: from[0]!, prefix, resume };
}

function compileExpr(e: Expr, root: DocNode): CExpr {
  const { test, positive } = compileParts(e, root);
  const loc = e.loc;
  let goal: Goal = e.negated
    ? (run, vals, k) => {
        step(run, loc);
        return positive(run, vals, FIRST) ? false : k();
      }
    : (run, vals, k) => {
        step(run, loc);
        return positive(run, vals, k);
      };
  if (e.compiledWith?.length) {
    goal = withGoal(e.compiledWith, goal, root, loc);
    return { test: undefined, goal };
  }
  return { test, goal };
}

/** The expression without negation or `with`: its solutions, and its direct test when it has one. */
function compileParts(e: Expr, root: DocNode): { test: Test | undefined; positive: Goal } {
  switch (e.type) {
    case "term": {
      const t = e.term;
      if (t.type === "call" && t.target && t.args.length === t.target.arity + 1) return { test: undefined, positive: callWithOutput(t, root) };
      const term = compileTerm(t, root);
      return {
        test: directTerm(term, e.negated, e.loc),
        positive: (run, vals, k) => term.each(run, vals, (v) => (v === false ? false : k())),
      };
    }
    case "unify":
    case "assign": {
      const left = compileTerm(e.left, root);
      const right = compileTerm(e.right, root);
      return { test: directUnify(left, right, e.negated, e.loc), positive: unify(left, right, root) };
    }
    case "somein": {
      const domain = compileTerm(e.domain, root);
      const value = compileMatch(e.value, root);
      const key = e.key && compileMatch(e.key, root);
      const general: Goal = key
        ? (run, vals, k) => domain.each(run, vals, (coll) => iterate(coll, (kv, v) => key(run, vals, kv, () => value(run, vals, v, k))))
        : (run, vals, k) => domain.each(run, vals, (coll) => iterate(coll, (_, v) => value(run, vals, v, k)));
      const vs = slotOf(e.value);
      const ks = e.key ? slotOf(e.key) : -1;
      if (vs < 0 || (e.key && (ks < 0 || ks === vs)) || domain.needs === false) return { test: undefined, positive: general };
      return { test: undefined, positive: someIn(domain, vs, ks, general) };
    }
    case "every": {
      const domain = compileTerm(e.domain, root);
      const value = compileMatch(e.value, root);
      const key = e.key && compileMatch(e.key, root);
      const body = compileBody(e.body, root).goal;
      return {
        test: undefined,
        positive: (run, vals, k) =>
          domain.each(run, vals, (coll) => {
            if (!isCollection(coll)) return false;
            const check = () => body(run, vals, FIRST);
            const failed = iterate(coll, (kv, v) => !(key ? key(run, vals, kv, () => value(run, vals, v, check)) : value(run, vals, v, check)));
            return failed ? false : k();
          }),
      };
    }
    case "logic": {
      // Each operand is asked for one solution; the expression holds once (its bindings stay inside).
      const operands = e.operands.map((body) => compileBody(body, root).goal);
      const holds =
        e.op === "and"
          ? (run: Run, vals: Vals) => operands.every((goal) => goal(run, vals, FIRST))
          : (run: Run, vals: Vals) => operands.some((goal) => goal(run, vals, FIRST));
      return { test: undefined, positive: (run, vals, k) => (holds(run, vals) ? k() : false) };
    }
    case "some":
      return { test: undefined, positive: (_run, _vals, k) => k() };
  }
}

/**
 * `some v in xs` (or `some k, v in xs`) over a collection evaluated directly: one loop binding the
 * variables, no closure per member. Anything else (bound variables, a domain that iterates) goes to
 * `general`.
 */
function someIn(domain: CTerm, vs: number, ks: number, general: Goal): Goal {
  const { needs, operand } = domain;
  return (run, vals, k) => {
    if (!ready(needs, vals) || vals[vs] !== undefined || (ks >= 0 && vals[ks] !== undefined)) return general(run, vals, k);
    const coll = fetch(operand, run, vals);
    if (coll === undefined) return false;
    let stop = false;
    if (Array.isArray(coll)) {
      for (let i = 0; i < coll.length && !stop; i++) {
        if (ks >= 0) vals[ks] = i;
        vals[vs] = coll[i]!;
        stop = k();
      }
    } else if (coll instanceof RSet) {
      const members = coll.values();
      for (let i = 0; i < members.length && !stop; i++) {
        if (ks >= 0) vals[ks] = members[i]!;
        vals[vs] = members[i]!;
        stop = k();
      }
    } else if (coll instanceof RObject) stop = someInObject(coll, vals, vs, ks, k);
    vals[vs] = undefined;
    if (ks >= 0) vals[ks] = undefined;
    return stop;
  };
}

function someInObject(coll: RObject, vals: Vals, vs: number, ks: number, k: K): boolean {
  return coll.some((kv, v) => {
    if (ks >= 0) vals[ks] = kv;
    vals[vs] = v;
    return k();
  });
}

const step = (run: Run, loc: Location) => {
  if (++run.steps > run.maxSteps) run.tooManySteps(loc);
};

/**
 * A term's test. The common shapes get closures of their own: code shared by every shape is compiled
 * by the JIT for all the kinds of values it has seen there, code for one shape only for that shape.
 */
function directTerm(term: CTerm, negated: boolean, loc: Location): Test | undefined {
  const { needs, operand, one } = term;
  if (needs === false) return undefined;
  if (operand.kind === RULE && operand.keys.length === 0 && needs.length === 0) {
    // A boolean rule (`allow if same_trust_domain`): its remembered value, read in place.
    const node = operand.node!;
    return (run, vals) => {
      step(run, loc);
      const ctx = run.ctx;
      const memo = node.memo;
      const v = ctx.overridden === undefined && memo.ctx === ctx && !memo.computing ? memo.value : fetch(operand, run, vals);
      return (v !== undefined && v !== false) !== negated ? HOLDS : FAILS;
    };
  }
  if (term.term.type === "call")
    return (run, vals) => {
      if (!ready(needs, vals)) return NOT_DIRECT;
      step(run, loc);
      const v = one(run, vals);
      return (v !== undefined && v !== false) !== negated ? HOLDS : FAILS;
    };
  return (run, vals) => {
    if (!ready(needs, vals)) return NOT_DIRECT;
    step(run, loc);
    const v = fetch(operand, run, vals);
    return (v !== undefined && v !== false) !== negated ? HOLDS : FAILS;
  };
}

const slotOf = (t: Term) => (t.type === "var" && t.slot !== undefined ? t.slot : -1);

/** `x := e`, `e = x` or a comparison of two direct terms. */
function directUnify(left: CTerm, right: CTerm, negated: boolean, loc: Location): Test {
  const any = anyUnify(left, right, negated, loc);
  const ls = slotOf(left.term);
  if (negated || ls < 0 || slotOf(right.term) >= 0 || right.term.type !== "call" || right.needs === false) return any;
  // `x := f(...)`, the usual assignment: a closure of its own (see directTerm).
  const { needs, one } = right;
  return (run, vals) => {
    if (vals[ls] !== undefined || !ready(needs, vals)) return any(run, vals);
    step(run, loc);
    const v = one(run, vals);
    if (v === undefined) return FAILS;
    vals[ls] = v;
    run.trail.push(vals, ls);
    return HOLDS;
  };
}

function anyUnify(left: CTerm, right: CTerm, negated: boolean, loc: Location): Test {
  const ls = slotOf(left.term);
  const rs = slotOf(right.term);
  const assign = (run: Run, vals: Vals, slot: number, source: CTerm): Direct => {
    if (!ready(source.needs, vals)) return NOT_DIRECT;
    step(run, loc);
    const v = fetch(source.operand, run, vals);
    if (v === undefined) return FAILS;
    vals[slot] = v;
    run.trail.push(vals, slot);
    return HOLDS;
  };
  return (run, vals) => {
    if (!negated) {
      if (ls >= 0 && vals[ls] === undefined) return assign(run, vals, ls, right);
      if (rs >= 0 && vals[rs] === undefined) return assign(run, vals, rs, left);
    }
    if (!ready(left.needs, vals) || !ready(right.needs, vals)) return NOT_DIRECT;
    step(run, loc);
    const a = fetch(left.operand, run, vals);
    const b = a === undefined ? undefined : fetch(right.operand, run, vals);
    return (b !== undefined && equal(a!, b)) !== negated ? HOLDS : FAILS;
  };
}

/** General unification: binds whichever side is an unbound variable or pattern, else compares. */
function unify(left: CTerm, right: CTerm, root: DocNode): Goal {
  const a = left.term;
  const b = right.term;
  const as = slotOf(a);
  const bs = slotOf(b);
  if (as < 0 && bs < 0 && a.type === "array" && b.type === "array") {
    if (a.items.length !== b.items.length) return () => false;
    const pairs = a.items.map((x, i) => unify(compileTerm(x, root), compileTerm(b.items[i]!, root), root));
    const n = pairs.length;
    return (run, vals, k) => {
      const from = (i: number): boolean => (i === n ? k() : pairs[i]!(run, vals, () => from(i + 1)));
      return from(0);
    };
  }
  if (as < 0 && bs < 0 && a.type === "object" && b.type === "object") {
    // Two object patterns with constant keys unify value by value (`{"x": x, "y": 2} = {"x": 1, "y": y}`).
    const keysOf = (t: typeof a) => t.items.map(([k]) => groundValue(k));
    const ka = keysOf(a);
    const kb = keysOf(b);
    if (!ka.includes(undefined) && !kb.includes(undefined)) {
      const byKey = new Map(b.items.map(([, v], i) => [keyOf(kb[i]!), v] as const));
      if (ka.length !== kb.length || ka.some((k) => !byKey.has(keyOf(k!)))) return () => false;
      const pairs = a.items.map(([, v], i) => unify(compileTerm(v, root), compileTerm(byKey.get(keyOf(ka[i]!))!, root), root));
      const n = pairs.length;
      return (run, vals, k) => {
        const from = (i: number): boolean => (i === n ? k() : pairs[i]!(run, vals, () => from(i + 1)));
        return from(0);
      };
    }
  }
  const aPattern = patternTest(a);
  const matchA = compileMatch(a, root, left);
  const matchB = compileMatch(b, root, right);
  return (run, vals, k) => {
    if (as >= 0 && vals[as] === undefined) {
      if (bs >= 0 && vals[bs] === undefined) throw unsafe((a as { name: string }).name, a.loc);
      return right.each(run, vals, (v) => bind(vals, as, v, k));
    }
    if (bs >= 0 && vals[bs] === undefined) return left.each(run, vals, (v) => bind(vals, bs, v, k));
    if (aPattern(vals)) return right.each(run, vals, (v) => matchA(run, vals, v, k));
    return left.each(run, vals, (v) => matchB(run, vals, v, k));
  };
}

/** `f(x, y, out)`: a call whose last argument receives (or is compared with) the result. */
function callWithOutput(t: Term & { type: "call" }, root: DocNode): Goal {
  const target = t.target!;
  const inputs = t.args.slice(0, target.arity).map((a) => compileTerm(a, root));
  const out = compileMatch(t.args[target.arity]!, root);
  const invoke = invoker(target, t.loc);
  const needs = union(inputs);
  const ops = inputs.map((i) => i.operand);
  const all = eachOf(inputs);
  if (target.kind === "builtin" && target.builtin.relation)
    return (run, vals, k) =>
      all(run, vals, (args) => {
        const results = invoke(run, args);
        return Array.isArray(results) && results.some((r) => out(run, vals, r, k));
      });
  return (run, vals, k) => {
    if (ready(needs, vals)) {
      const args = new Array<Value>(ops.length);
      for (let i = 0; i < ops.length; i++) {
        const v = fetch(ops[i]!, run, vals);
        if (v === undefined) return false;
        args[i] = v;
      }
      const r = invoke(run, args);
      return r === undefined ? false : out(run, vals, r, k);
    }
    return all(run, vals, (args) => {
      const r = invoke(run, args);
      return r === undefined ? false : out(run, vals, r, k);
    });
  };
}

// ---- with

interface WithPlan {
  kind: CompiledWith["kind"];
  path: Value[];
  /** The replacing value's term; absent for a function replaced by another function. */
  value: CTerm | undefined;
  override: FunctionOverride["replacement"];
  key: string;
  /** A data path's rule node whose rules the replacement hides. */
  hides: DocNode | undefined;
}

/** Runs `inner` (the expression itself) in a context with the replacements, and its continuation outside it. */
function withGoal(withs: CompiledWith[], inner: Goal, root: DocNode, loc: Location): Goal {
  const plans: WithPlan[] = withs.map((w) => {
    const replacement = w.kind === "function" ? w.replacement : undefined;
    return {
      kind: w.kind,
      path: w.kind === "function" ? [] : w.path,
      value: replacement ? undefined : compileTerm(w.value, root),
      override: replacement && { invoke: invoker(replacement, loc), arity: replacement.arity },
      key: w.kind === "function" ? w.key : "",
      hides: w.kind === "data" ? hiddenNode(root, w.path) : undefined,
    };
  });
  return (run, vals, k) => {
    step(run, loc);
    const values: (Value | undefined)[] = [];
    for (const w of plans) {
      let v: Value | undefined;
      w.value?.each(run, vals, (x) => ((v = x), true));
      if (v === undefined && !w.override) return false;
      values.push(v);
    }
    const old = run.ctx;
    let { input, data, overridden, functions } = old;
    plans.forEach((w, i) => {
      const v = values[i]!;
      if (w.kind === "input") input = patch(input, w.path, v);
      else if (w.kind === "data") {
        data = patch(data, w.path, v);
        if (w.hides) overridden = new Set(overridden).add(w.hides);
      } else {
        functions = new Map(functions);
        functions.set(w.key, w.override ? { replacement: w.override } : { value: v });
      }
    });
    const ctx = new Context(input, data, overridden, functions);
    run.ctx = ctx;
    const r = inner(run, vals, () => {
      run.ctx = old;
      const stop = k();
      run.ctx = ctx;
      return stop;
    });
    run.ctx = old;
    return r;
  };
}

/**
 * Rules at (or above, for a path into a rule's value) a replaced data path are ignored; a path beside
 * all rules needs nothing more than the patched base document.
 */
function hiddenNode(root: DocNode, path: Value[]): DocNode | undefined {
  let node = root;
  for (const p of path) {
    const next = node.children.get(keyOf(p));
    if (!next) break;
    node = next;
  }
  const isRule = node.complete.length > 0 || node.partial.length > 0 || node.defaultRule !== undefined;
  return node.path.length === path.length || isRule ? node : undefined;
}

/** A copy of `base` with `v` placed at `path` (what `with input.x.y as v` does). */
function patch(base: Value | undefined, path: Value[], v: Value): Value {
  if (path.length === 0) return v;
  const obj = base instanceof RObject ? base.copy() : new RObject();
  obj.set(path[0]!, patch(obj.get(path[0]!), path.slice(1), v));
  return obj;
}

late.compileBody = compileBody;
