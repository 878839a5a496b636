import type { Body, CallTarget, CompiledWith, Expr, Term } from "./ast.ts";
import type { BuiltinContext } from "./builtins/builtin.ts";
import { type CompiledRule, DocNode } from "./compiler.ts";
import { BuiltinError, RegoError, type Location } from "./errors.ts";
import { fromBigInt, type Num } from "./numbers.ts";
import { equal, isCollection, iterate, keyOf, lookup, RObject, RSet, type Value } from "./values.ts";

export interface EvalLimits {
  /** Expressions evaluated per query before it is cancelled. */
  maxSteps: number;
  /** Nesting of rule and function evaluations. */
  maxDepth: number;
}

export interface EvalOptions extends EvalLimits {
  strictBuiltinErrors: boolean;
}

const NO_VALUE = Symbol("undefined");
const COMPUTING = Symbol("computing");

/** What a direct (continuation-free) evaluation of an expression found. */
const HOLDS = 0;
const FAILS = 1;
const NOT_DIRECT = 2;
type Direct = typeof HOLDS | typeof FAILS | typeof NOT_DIRECT;

/** Continuation: called once per solution; returning true stops the search. */
type K = () => boolean;
type VK = (v: Value) => boolean;

interface FunctionOverride {
  value?: Value;
  replacement?: CallTarget;
}

/** What `with` can change; a new context also starts a fresh cache of rule values. */
class Context {
  /** Rule values by node: NO_VALUE when undefined, COMPUTING while being evaluated (recursion). */
  readonly cache = new Map<DocNode, Value | typeof NO_VALUE | typeof COMPUTING>();
  /** Function results by function, then by the identity of the arguments (nothing else changes them here). */
  readonly calls = new Map<DocNode, Map<string, Value | typeof NO_VALUE>>();
  private withoutCache: Map<string, Context> | undefined;
  constructor(
    readonly input: Value | undefined,
    readonly data: Value,
    readonly overridden: Set<DocNode> | undefined,
    readonly functions: Map<string, FunctionOverride> | undefined,
  ) {}

  /** The same context minus one function override (a replacement calls the original). */
  without(key: string): Context {
    this.withoutCache ??= new Map();
    let c = this.withoutCache.get(key);
    if (!c) {
      const functions = new Map(this.functions);
      functions.delete(key);
      c = new Context(this.input, this.data, this.overridden, functions.size ? functions : undefined);
      this.withoutCache.set(key, c);
    }
    return c;
  }
}

class Frame {
  readonly vals: (Value | undefined)[];
  constructor(
    slots: number,
    public ctx: Context,
  ) {
    this.vals = new Array(slots);
  }
}

export class Evaluation implements BuiltinContext {
  private steps = 0;
  private depth = 0;
  /** Slots bound by direct expressions, as (frame values, slot) pairs: see evalBody. */
  private readonly trail: ((Value | undefined)[] | number)[] = [];
  private now: Num | undefined;
  private readonly root: Context;

  constructor(
    private readonly tree: DocNode,
    data: Value,
    input: Value | undefined,
    private readonly options: EvalOptions,
  ) {
    this.root = new Context(input, data, undefined, undefined);
  }

  nowNs(): Num {
    this.now ??= fromBigInt(BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n));
    return this.now;
  }

  /** All solutions of a query body, as the values of its output slots. */
  query(body: Body, slots: number, outputs: [string, number][]): Record<string, Value>[] {
    const f = new Frame(slots, this.root);
    const results: Record<string, Value>[] = [];
    this.guard(() =>
      this.evalBody(body, 0, f, () => {
        const r: Record<string, Value> = {};
        for (const [name, slot] of outputs) {
          const v = f.vals[slot];
          if (v !== undefined) r[name] = v;
        }
        results.push(r);
        return false;
      }),
    );
    return results;
  }

  /** The document at a constant data path (the REST API's `/v1/data/<path>`). */
  document(path: Value[]): Value | undefined {
    let result: Value | undefined;
    const f = new Frame(0, this.root);
    const terms: Term[] = path.map((p) => ({ type: "value", value: p, loc: NO_LOC }));
    this.guard(() =>
      this.walkDoc(this.tree, this.root.data, terms, 0, f, (v) => {
        result = v;
        return true;
      }),
    );
    return result;
  }

  private guard(run: () => void): void {
    try {
      run();
    } catch (e) {
      if (e instanceof RangeError) throw new RegoError("eval_cancel_error", "evaluation exceeded the stack: policy or document nested too deeply");
      throw e;
    }
  }

  // ---- bodies and expressions

  /**
   * Runs a body from expression `i`. Expressions with at most one solution are evaluated in a loop, their
   * bindings recorded on the trail and undone when the body returns; only an expression that may backtrack
   * (iteration, `with`, patterns) continues in continuation-passing style. Most policy bodies never allocate
   * a continuation.
   */
  private evalBody(body: Body, i: number, f: Frame, k: K): boolean {
    const mark = this.trail.length;
    const j = this.directPrefix(body, i, f);
    const r = j < 0 ? false : j === body.length ? k() : this.continueAt(body, j, f, k);
    this.undo(mark);
    return r;
  }

  /**
   * Evaluates expressions from `i` on while each has at most one solution, binding on the trail. Returns the
   * index of the first expression that needs backtracking (body.length when none does), or -1 when one failed.
   */
  private directPrefix(body: Body, i: number, f: Frame): number {
    for (; i < body.length; i++) {
      const d = this.evalDirectExpr(body[i]!, f);
      if (d === FAILS) return -1;
      if (d === NOT_DIRECT) return i;
    }
    return i;
  }

  /** Kept apart from evalBody so that only bodies which backtrack pay for a continuation. */
  private continueAt(body: Body, i: number, f: Frame, k: K): boolean {
    return this.evalExpr(body[i]!, f, () => this.evalBody(body, i + 1, f, k));
  }

  private undo(mark: number): void {
    const trail = this.trail;
    while (trail.length > mark) {
      const slot = trail.pop() as number;
      (trail.pop() as (Value | undefined)[])[slot] = undefined;
    }
  }

  private step(e: Expr): void {
    if (++this.steps > this.options.maxSteps)
      throw new RegoError("eval_cancel_error", `evaluation exceeded ${this.options.maxSteps} steps`, e.loc);
  }

  /** Evaluates an expression that has at most one solution without a continuation; NOT_DIRECT otherwise. */
  private evalDirectExpr(e: Expr, f: Frame): Direct {
    if (e.compiledWith?.length) return NOT_DIRECT;
    switch (e.type) {
      case "term": {
        const t = e.term;
        if (t.type === "call" && t.target && t.args.length === t.target.arity + 1) return NOT_DIRECT;
        if (!this.isDirect(t, f)) return NOT_DIRECT;
        this.step(e);
        const v = this.direct(t, f);
        return (v !== undefined && v !== false) !== e.negated ? HOLDS : FAILS;
      }
      case "unify":
      case "assign": {
        const { left, right } = e;
        if (!e.negated) {
          const target = this.isUnbound(left, f) ? left : this.isUnbound(right, f) ? right : undefined;
          if (target !== undefined) {
            const source = target === left ? right : left;
            if (!this.isDirect(source, f)) return NOT_DIRECT;
            this.step(e);
            const v = this.direct(source, f);
            if (v === undefined) return FAILS;
            const slot = (target as { slot: number }).slot;
            f.vals[slot] = v;
            this.trail.push(f.vals, slot);
            return HOLDS;
          }
        }
        if (!this.isDirect(left, f) || !this.isDirect(right, f)) return NOT_DIRECT;
        this.step(e);
        const a = this.direct(left, f);
        const b = a === undefined ? undefined : this.direct(right, f);
        return (b !== undefined && equal(a!, b)) !== e.negated ? HOLDS : FAILS;
      }
      default:
        return NOT_DIRECT;
    }
  }

  private evalExpr(e: Expr, f: Frame, k: K): boolean {
    this.step(e);
    if (e.compiledWith?.length) return this.evalWith(e, e.compiledWith, f, k);
    if (e.negated) {
      let found = false;
      this.evalPositive(e, f, () => {
        found = true;
        return true;
      });
      return found ? false : k();
    }
    return this.evalPositive(e, f, k);
  }

  private evalPositive(e: Expr, f: Frame, k: K): boolean {
    switch (e.type) {
      case "term": {
        const t = e.term;
        if (t.type === "call" && t.target && t.args.length === t.target.arity + 1) {
          const out = t.args[t.args.length - 1]!;
          if (this.areDirect(t.args, t.target.arity, f)) {
            const args = this.directArgs(t.args, t.target.arity, f);
            const r = args === undefined ? undefined : this.call(t.target, args, f, t.loc);
            return r === undefined ? false : this.unifyValue(out, r, f, k);
          }
          return this.evalArgs(t.args, t.target.arity, 0, [], f, (args) => {
            const r = this.call(t.target!, args, f, t.loc);
            return r === undefined ? false : this.unifyValue(out, r, f, k);
          });
        }
        return this.evalTerm(t, f, (v) => (v === false ? false : k()));
      }
      case "unify":
      case "assign":
        return this.unify(e.left, e.right, f, k);
      case "somein":
        return this.evalTerm(e.domain, f, (coll) =>
          iterate(coll, (key, val) =>
            e.key ? this.unifyValue(e.key, key, f, () => this.unifyValue(e.value, val, f, k)) : this.unifyValue(e.value, val, f, k),
          ),
        );
      case "every":
        return this.evalTerm(e.domain, f, (coll) => {
          if (!isCollection(coll)) return false;
          const failed = iterate(coll, (key, val) => {
            let ok = false;
            const check = () =>
              this.evalBody(e.body, 0, f, () => {
                ok = true;
                return true;
              });
            if (e.key) this.unifyValue(e.key, key, f, () => this.unifyValue(e.value, val, f, check));
            else this.unifyValue(e.value, val, f, check);
            return !ok;
          });
          return failed ? false : k();
        });
      case "some":
        return k();
    }
  }

  private evalWith(e: Expr, withs: CompiledWith[], f: Frame, k: K): boolean {
    const values: Value[] = [];
    for (const w of withs) {
      let v: Value | undefined;
      if (w.kind !== "function" || !w.replacement)
        this.evalTerm(w.value, f, (x) => {
          v = x;
          return true;
        });
      if (v === undefined && !(w.kind === "function" && w.replacement)) return false;
      values.push(v as Value);
    }
    const old = f.ctx;
    let input = old.input;
    let data = old.data;
    let overridden = old.overridden;
    let functions = old.functions;
    withs.forEach((w, i) => {
      const v = values[i]!;
      if (w.kind === "input") input = patch(input, w.path, v);
      else if (w.kind === "data") {
        data = patch(data, w.path, v);
        // Rules at (or above, for a path into a rule's value) the replaced path are ignored; a path
        // beside all rules needs nothing more than the patched base document.
        let node: DocNode = this.tree;
        for (const p of w.path) {
          const next = node.children.get(keyOf(p));
          if (!next) break;
          node = next;
        }
        const isRule = node.complete.length > 0 || node.partial.length > 0 || node.defaultRule !== undefined;
        if (node.path.length === w.path.length || isRule) overridden = new Set(overridden).add(node);
      } else if (w.kind === "function") {
        functions = new Map(functions);
        functions.set(w.key, w.replacement ? { replacement: w.replacement } : { value: v });
      }
    });
    const ctx = new Context(input, data, overridden, functions);
    const plain: Expr = { ...e, compiledWith: undefined };
    f.ctx = ctx;
    const r = this.evalExpr(plain, f, () => {
      f.ctx = old;
      const stop = k();
      f.ctx = ctx;
      return stop;
    });
    f.ctx = old;
    return r;
  }

  // ---- terms

  private evalTerm(t: Term, f: Frame, k: VK): boolean {
    if (t.type !== "value" && this.isDirect(t, f)) {
      const v = this.direct(t, f);
      return v === undefined ? false : k(v);
    }
    switch (t.type) {
      case "value":
        return k(t.value);
      case "var": {
        if (t.slot !== undefined) {
          const v = f.vals[t.slot];
          if (v === undefined) throw new RegoError("rego_unsafe_var_error", `var ${t.name} is unsafe`, t.loc);
          return k(v);
        }
        if (t.name === "input") return f.ctx.input === undefined ? false : k(f.ctx.input);
        const d = this.walkDoc(this.tree, f.ctx.data, [], 0, f, k);
        return d;
      }
      case "ref":
        return this.evalRef(t, f, k);
      case "array":
        return this.evalArgs(t.items, t.items.length, 0, [], f, (items) => k(items));
      case "set":
        return this.evalArgs(t.items, t.items.length, 0, [], f, (items) => k(RSet.of(items)));
      case "object":
        return this.evalObject(t.items, 0, new RObject(), f, k);
      case "call":
        return this.evalArgs(t.args, t.args.length, 0, [], f, (args) => {
          const r = this.call(t.target!, args, f, t.loc);
          return r === undefined ? false : k(r);
        });
      case "arraycomp": {
        const out: Value[] = [];
        this.evalBody(t.body, 0, f, () => this.evalTerm(t.head, f, (v) => (out.push(v), false)));
        return k(out);
      }
      case "setcomp": {
        const out = new RSet();
        this.evalBody(t.body, 0, f, () => this.evalTerm(t.head, f, (v) => (out.add(v), false)));
        return k(out);
      }
      case "objectcomp": {
        const out = new RObject();
        this.evalBody(t.body, 0, f, () =>
          this.evalTerm(t.key, f, (key) =>
            this.evalTerm(t.value, f, (v) => {
              const prev = out.get(key);
              if (prev !== undefined && !equal(prev, v)) throw new RegoError("eval_conflict_error", "object keys must be unique", t.loc);
              out.set(key, v);
              return false;
            }),
          ),
        );
        return k(out);
      }
    }
  }

  private evalArgs(terms: Term[], n: number, i: number, acc: Value[], f: Frame, k: (vals: Value[]) => boolean): boolean {
    if (i === n) return k(acc.slice());
    return this.evalTerm(terms[i]!, f, (v) => {
      acc[i] = v;
      return this.evalArgs(terms, n, i + 1, acc, f, k);
    });
  }

  private evalObject(items: [Term, Term][], i: number, acc: RObject, f: Frame, k: VK): boolean {
    if (i === items.length) return k(acc.copy());
    const [kt, vt] = items[i]!;
    return this.evalTerm(kt, f, (key) =>
      this.evalTerm(vt, f, (v) => {
        acc.set(key, v);
        const r = this.evalObject(items, i + 1, acc, f, k);
        acc.delete(key);
        return r;
      }),
    );
  }

  // ---- direct evaluation: terms with at most one value, computed without continuations (the hot path)

  /** Whether a term has at most one value and no variable to bind (so no backtracking is needed). */
  private isDirect(t: Term, f: Frame): boolean {
    const needs = t.needs;
    if (needs !== undefined) {
      if (needs === false) return false;
      for (let i = 0; i < needs.length; i++) if (f.vals[needs[i]!] === undefined) return false;
      return true;
    }
    switch (t.type) {
      case "value":
        return true;
      case "var":
        return t.slot === undefined ? t.name === "input" : f.vals[t.slot] !== undefined;
      case "ref":
        if (t.head.type !== "var" || !this.isDirect(t.head, f) && t.head.name !== "data") return false;
        for (const p of t.path) if (!(p.type === "value" || (p.type === "var" && p.slot !== undefined && f.vals[p.slot] !== undefined))) return false;
        return true;
      case "call":
        return this.areDirect(t.args, t.args.length, f);
      case "array":
      case "set":
        return this.areDirect(t.items, t.items.length, f);
      case "object":
        for (const [key, value] of t.items) if (!this.isDirect(key, f) || !this.isDirect(value, f)) return false;
        return true;
      default:
        return false;
    }
  }

  private areDirect(terms: Term[], n: number, f: Frame): boolean {
    for (let i = 0; i < n; i++) if (!this.isDirect(terms[i]!, f)) return false;
    return true;
  }

  /** The value of a term for which isDirect holds (undefined when it has none). */
  private direct(t: Term, f: Frame): Value | undefined {
    switch (t.type) {
      case "value":
        return t.value;
      case "var":
        return t.slot === undefined ? f.ctx.input : f.vals[t.slot];
      case "ref": {
        const head = t.head as Term & { type: "var" };
        if (t.rule && !f.ctx.overridden) {
          let v = this.docValue(t.rule, undefined, f.ctx);
          for (let i = t.ruleDepth!; i < t.path.length && v !== undefined; i++) {
            const p = t.path[i]!;
            v = lookup(v, p.type === "value" ? p.value : f.vals[(p as { slot: number }).slot]!);
          }
          return v;
        }
        if (head.slot === undefined && head.name === "data" && !t.dataOnly) return this.dataValue(t.path, f);
        let v = head.slot === undefined ? (head.name === "data" ? f.ctx.data : f.ctx.input) : f.vals[head.slot];
        for (const p of t.path) {
          if (v === undefined) return undefined;
          v = lookup(v, p.type === "value" ? p.value : f.vals[(p as { slot: number }).slot]!);
        }
        return v;
      }
      case "call": {
        const args = this.directArgs(t.args, t.args.length, f);
        return args === undefined ? undefined : this.call(t.target!, args, f, t.loc);
      }
      case "array":
        return this.directArgs(t.items, t.items.length, f);
      case "set": {
        const items = this.directArgs(t.items, t.items.length, f);
        return items && RSet.of(items);
      }
      case "object": {
        const o = new RObject();
        for (const [kt, vt] of t.items) {
          const key = this.direct(kt, f);
          const value = key === undefined ? undefined : this.direct(vt, f);
          if (value === undefined) return undefined;
          o.set(key!, value);
        }
        return o;
      }
      default:
        return undefined;
    }
  }

  /** The value at a ground data path (walkDoc calls back at most once for one). */
  private dataValue(path: Term[], f: Frame): Value | undefined {
    let v: Value | undefined;
    this.walkDoc(this.tree, f.ctx.data, path, 0, f, (x) => ((v = x), true));
    return v;
  }

  private directArgs(terms: Term[], n: number, f: Frame): Value[] | undefined {
    const out = new Array<Value>(n);
    for (let i = 0; i < n; i++) {
      const v = this.direct(terms[i]!, f);
      if (v === undefined) return undefined;
      out[i] = v;
    }
    return out;
  }

  // ---- unification

  private bind(f: Frame, slot: number, v: Value, k: K): boolean {
    f.vals[slot] = v;
    const r = k();
    f.vals[slot] = undefined;
    return r;
  }

  private isUnbound(t: Term, f: Frame): boolean {
    return t.type === "var" && t.slot !== undefined && f.vals[t.slot] === undefined;
  }

  /** Whether a term still has variables to bind in pattern positions (var, array item, object value). */
  private isPattern(t: Term, f: Frame): boolean {
    if (t.type === "var") return this.isUnbound(t, f);
    if (t.type === "array") return t.items.some((i) => this.isPattern(i, f));
    if (t.type === "object") return t.items.some(([, v]) => this.isPattern(v, f));
    return false;
  }

  private unify(a: Term, b: Term, f: Frame, k: K): boolean {
    if (this.isUnbound(a, f)) {
      if (this.isUnbound(b, f)) throw new RegoError("rego_unsafe_var_error", `var ${(a as { name: string }).name} is unsafe`, a.loc);
      if (this.isDirect(b, f)) {
        const v = this.direct(b, f);
        return v === undefined ? false : this.bind(f, (a as { slot: number }).slot, v, k);
      }
      return this.evalTerm(b, f, (v) => this.bind(f, (a as { slot: number }).slot, v, k));
    }
    if (this.isUnbound(b, f)) return this.evalTerm(a, f, (v) => this.bind(f, (b as { slot: number }).slot, v, k));
    if (a.type === "array" && b.type === "array") {
      if (a.items.length !== b.items.length) return false;
      return this.unifyPairs(a.items, b.items, 0, f, k);
    }
    if (this.isPattern(a, f)) return this.evalTerm(b, f, (v) => this.unifyValue(a, v, f, k));
    return this.evalTerm(a, f, (v) => this.unifyValue(b, v, f, k));
  }

  private unifyPairs(a: Term[], b: Term[], i: number, f: Frame, k: K): boolean {
    if (i === a.length) return k();
    return this.unify(a[i]!, b[i]!, f, () => this.unifyPairs(a, b, i + 1, f, k));
  }

  /** Matches a term against a value, binding the term's unbound variables. */
  private unifyValue(p: Term, v: Value, f: Frame, k: K): boolean {
    switch (p.type) {
      case "value":
        return equal(p.value, v) ? k() : false;
      case "var":
        if (p.slot !== undefined) {
          const cur = f.vals[p.slot];
          if (cur === undefined) return this.bind(f, p.slot, v, k);
          return equal(cur, v) ? k() : false;
        }
        break;
      case "array":
        if (!Array.isArray(v) || v.length !== p.items.length) return false;
        return this.unifyItems(p.items, v, 0, f, k);
      case "object": {
        if (!(v instanceof RObject) || v.size !== p.items.length) return false;
        return this.unifyEntries(p.items, v, 0, f, k);
      }
    }
    return this.evalTerm(p, f, (pv) => (equal(pv, v) ? k() : false));
  }

  private unifyItems(items: Term[], vals: Value[], i: number, f: Frame, k: K): boolean {
    if (i === items.length) return k();
    return this.unifyValue(items[i]!, vals[i]!, f, () => this.unifyItems(items, vals, i + 1, f, k));
  }

  private unifyEntries(items: [Term, Term][], obj: RObject, i: number, f: Frame, k: K): boolean {
    if (i === items.length) return k();
    const [kt, vt] = items[i]!;
    return this.evalTerm(kt, f, (key) => {
      const v = obj.get(key);
      return v === undefined ? false : this.unifyValue(vt, v, f, () => this.unifyEntries(items, obj, i + 1, f, k));
    });
  }

  // ---- references

  private evalRef(t: Term & { type: "ref" }, f: Frame, k: VK): boolean {
    const head = t.head;
    if (head.type === "var") {
      if (head.slot !== undefined) {
        const v = f.vals[head.slot];
        if (v === undefined) throw new RegoError("rego_unsafe_var_error", `var ${head.name} is unsafe`, head.loc);
        return this.walkValue(v, t.path, 0, f, k);
      }
      if (head.name === "input") return f.ctx.input === undefined ? false : this.walkValue(f.ctx.input, t.path, 0, f, k);
      if (t.dataOnly) return this.walkValue(f.ctx.data, t.path, 0, f, k);
      if (t.rule && !f.ctx.overridden) {
        const v = this.docValue(t.rule, undefined, f.ctx);
        return v === undefined ? false : this.walkValue(v, t.path, t.ruleDepth!, f, k);
      }
      return this.walkDoc(this.tree, f.ctx.data, t.path, 0, f, k);
    }
    return this.evalTerm(head, f, (v) => this.walkValue(v, t.path, 0, f, k));
  }

  private walkValue(v: Value, path: Term[], i: number, f: Frame, k: VK): boolean {
    if (i === path.length) return k(v);
    const p = path[i]!;
    if (p.type === "value") {
      const next = lookup(v, p.value);
      return next === undefined ? false : this.walkValue(next, path, i + 1, f, k);
    }
    if (p.type === "var" && p.slot !== undefined) {
      const bound = f.vals[p.slot];
      if (bound !== undefined) {
        const next = lookup(v, bound);
        return next === undefined ? false : this.walkValue(next, path, i + 1, f, k);
      }
      const slot = p.slot;
      return iterate(v, (key, val) => this.bind(f, slot, key, () => this.walkValue(val, path, i + 1, f, k)));
    }
    if (this.isPattern(p, f)) return iterate(v, (key, val) => this.unifyValue(p, key, f, () => this.walkValue(val, path, i + 1, f, k)));
    return this.evalTerm(p, f, (key) => {
      const next = lookup(v, key);
      return next === undefined ? false : this.walkValue(next, path, i + 1, f, k);
    });
  }

  /** Walks the data tree: constant steps descend nodes so only the rules on the path are evaluated. */
  private walkDoc(node: DocNode, base: Value | undefined, path: Term[], i: number, f: Frame, k: VK): boolean {
    const ctx = f.ctx;
    if (!node.hasRules || ctx.overridden?.has(node)) return base === undefined ? false : this.walkValue(base, path, i, f, k);
    const p = path[i];
    const isLeaf = node.complete.length > 0 || node.defaultRule !== undefined || node.partial.length > 0 || node.isFunction;
    const ground = p !== undefined && (p.type === "value" || (p.type === "var" && p.slot !== undefined && f.vals[p.slot] !== undefined));
    if (p === undefined || isLeaf || !ground) {
      const v = this.docValue(node, base, ctx);
      return v === undefined ? false : this.walkValue(v, path, i, f, k);
    }
    const key = p.type === "value" ? p.value : f.vals[(p as { slot: number }).slot]!;
    const child = node.children.get(keyOf(key));
    const nextBase = base === undefined ? undefined : lookup(base, key);
    if (child) return this.walkDoc(child, nextBase, path, i + 1, f, k);
    return nextBase === undefined ? false : this.walkValue(nextBase, path, i + 1, f, k);
  }

  /** The full value of a node: base data merged with everything its rules (and its children's) produce. */
  private docValue(node: DocNode, base: Value | undefined, ctx: Context): Value | undefined {
    if (ctx.overridden?.has(node)) return base;
    if (!node.hasRules) return base;
    if (node.isFunction) return undefined;
    const cached = ctx.cache.get(node);
    if (cached === COMPUTING) throw new RegoError("rego_recursion_error", `rule ${node.name} is recursive`);
    if (cached !== undefined) return cached === NO_VALUE ? undefined : cached;
    ctx.cache.set(node, COMPUTING);
    let result: Value | undefined;
    try {
      result = this.computeDoc(node, base, ctx);
    } catch (e) {
      ctx.cache.delete(node);
      throw e;
    }
    ctx.cache.set(node, result === undefined ? NO_VALUE : result);
    return result;
  }

  private computeDoc(node: DocNode, base: Value | undefined, ctx: Context): Value | undefined {
    if (node.complete.length || node.defaultRule) return this.evalComplete(node, ctx);
    if (node.partial.some((r) => r.multi && r.keys.length === 0)) {
      const set = new RSet();
      for (const r of node.partial) this.evalPartial(r, ctx, (_keys, v) => void set.add(v));
      return set;
    }
    const result = base instanceof RObject ? base.copy() : new RObject();
    for (const child of node.ruleChildren) {
      const v = this.docValue(child, lookup(result, child.key), ctx);
      if (v !== undefined) result.set(child.key, v);
    }
    if (node.partial.length) {
      const owned = new Set<RObject | RSet>([result]);
      for (const r of node.partial) this.evalPartial(r, ctx, (keys, v) => insert(result, keys, v, r, owned));
    }
    return result;
  }

  private enter(loc: Location): void {
    if (++this.depth > this.options.maxDepth)
      throw new RegoError("eval_cancel_error", `evaluation exceeded the maximum depth of ${this.options.maxDepth}`, loc);
  }

  private evalPartial(r: CompiledRule, ctx: Context, add: (keys: Value[], v: Value) => void): void {
    this.enter(r.loc);
    const f = new Frame(r.slots, ctx);
    this.evalBody(r.body, 0, f, () =>
      this.evalArgs(r.keys, r.keys.length, 0, [], f, (keys) =>
        this.evalTerm(r.value, f, (v) => {
          add(keys, v);
          return false;
        }),
      ),
    );
    this.depth--;
  }

  /** Values of one rule (or function definition): its body, then each else in turn until one holds. */
  private ruleValues(r: CompiledRule, f: Frame, onValue: (v: Value) => boolean): void {
    if (this.branchValues(r.value, r.body, f, onValue)) return;
    for (const e of r.elses) if (this.branchValues(e.value, e.body, f, onValue)) return;
  }

  /** Whether the branch's body held. A body without backtracking has one solution and needs no continuation. */
  private branchValues(value: Term, body: Body, f: Frame, onValue: VK): boolean {
    const mark = this.trail.length;
    const stop = this.directPrefix(body, 0, f);
    if (stop === body.length) {
      if (!this.isDirect(value, f)) this.evalTerm(value, f, onValue);
      else {
        const v = this.direct(value, f);
        if (v !== undefined) onValue(v);
      }
    } else if (stop >= 0) {
      const found = this.branchSolutions(value, body, stop, f, onValue);
      this.undo(mark);
      return found;
    }
    this.undo(mark);
    return stop >= 0;
  }

  /** Every solution of a body from `i` on; a constant value needs only the first. */
  private branchSolutions(value: Term, body: Body, i: number, f: Frame, onValue: VK): boolean {
    let found = false;
    const single = value.type === "value";
    this.evalBody(body, i, f, () => {
      found = true;
      return this.evalTerm(value, f, onValue) || single;
    });
    return found;
  }

  private evalComplete(node: DocNode, ctx: Context): Value | undefined {
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
      this.enter(r.loc);
      rule = r;
      this.ruleValues(r, new Frame(r.slots, ctx), onValue);
      this.depth--;
    }
    if (result === undefined && node.defaultRule) {
      const f = new Frame(node.defaultRule.slots, ctx);
      this.evalTerm(node.defaultRule.value, f, (v) => ((result = v), true));
    }
    return result;
  }

  // ---- calls

  private call(target: CallTarget, args: Value[], f: Frame, loc: Location): Value | undefined {
    const key = target.kind === "builtin" ? target.name : target.path;
    const override = f.ctx.functions?.get(key);
    if (override) {
      if (override.value !== undefined) return override.value;
      const saved = f.ctx;
      f.ctx = saved.without(key);
      try {
        return this.call(override.replacement!, args.slice(0, override.replacement!.arity), f, loc);
      } finally {
        f.ctx = saved;
      }
    }
    if (target.kind === "function") {
      let calls = f.ctx.calls.get(target.node);
      if (!calls) f.ctx.calls.set(target.node, (calls = new Map()));
      let key = args.length ? keyOf(args[0]!) : "";
      for (let i = 1; i < args.length; i++) key += `\0${keyOf(args[i]!)}`;
      const known = calls.get(key);
      if (known !== undefined) return known === NO_VALUE ? undefined : known;
      const r = this.callFunction(target.node, args, f.ctx, loc);
      calls.set(key, r === undefined ? NO_VALUE : r);
      return r;
    }
    const b = target.builtin;
    try {
      return b.fn(args, this);
    } catch (e) {
      if (e instanceof RegoError) throw e;
      const message = `${b.name}: ${e instanceof Error ? e.message : String(e)}`;
      if (this.options.strictBuiltinErrors) {
        const code = e instanceof BuiltinError && e.kind === "type" ? "eval_type_error" : "eval_builtin_error";
        throw new RegoError(code, message, loc);
      }
      return undefined;
    }
  }

  private callFunction(node: DocNode, args: Value[], ctx: Context, loc: Location): Value | undefined {
    this.enter(loc);
    let result: Value | undefined;
    const onValue = (v: Value) => {
      if (result !== undefined && !equal(result, v))
        throw new RegoError("eval_conflict_error", `function ${node.name} produced conflicting values for the same inputs`, loc);
      result = v;
      return false;
    };
    for (const r of node.functions) {
      if (result !== undefined && allEqual(r.constants, result)) continue;
      const f = new Frame(r.slots, ctx);
      const bound = bindArgs(r.args, args, f);
      if (bound === HOLDS) this.ruleValues(r, f, onValue);
      else if (bound === NOT_DIRECT) this.unifyItems(r.args, args, 0, f, () => (this.ruleValues(r, f, onValue), false));
    }
    if (result === undefined && node.defaultRule) {
      const f = new Frame(node.defaultRule.slots, ctx);
      this.evalTerm(node.defaultRule.value, f, (v) => ((result = v), true));
    }
    this.depth--;
    return result;
  }
}

const NO_LOC: Location = { file: "query", row: 1, col: 1 };

/** Whether every branch's constant value equals `v` (false when a branch computes its value). */
function allEqual(constants: (Value | undefined)[], v: Value): boolean {
  for (const c of constants) if (c === undefined || !equal(c, v)) return false;
  return true;
}

/** Binds a function's arguments when its parameters are plain variables or constants (the common case). */
function bindArgs(params: Term[], args: Value[], f: Frame): Direct {
  for (let i = 0; i < params.length; i++) {
    const p = params[i]!;
    if (p.type === "value") {
      if (!equal(p.value, args[i]!)) return FAILS;
    } else if (p.type === "var" && p.slot !== undefined) {
      const cur = f.vals[p.slot];
      if (cur === undefined) f.vals[p.slot] = args[i]!;
      else if (!equal(cur, args[i]!)) return FAILS;
    } else return NOT_DIRECT;
  }
  return HOLDS;
}

/** A copy of `base` with `v` placed at `path` (what `with input.x.y as v` does). */
function patch(base: Value | undefined, path: Value[], v: Value): Value {
  if (path.length === 0) return v;
  const obj = base instanceof RObject ? base.copy() : new RObject();
  obj.set(path[0]!, patch(obj.get(path[0]!), path.slice(1), v));
  return obj;
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
