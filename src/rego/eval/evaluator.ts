import type { DocNode, Evaluation } from "../plan/tree.ts";
import type { BuiltinContext } from "../syntax/builtin.ts";
import { RegoError, type Location } from "../values/errors.ts";
import { fromBigInt, type Num } from "../values/numbers.ts";
import type { Value } from "../values/values.ts";

export interface EvalLimits {
  /** Expressions evaluated per query before it is cancelled. */
  maxSteps: number;
  /** Nesting of rule and function evaluations. */
  maxDepth: number;
}

export interface EvalOptions extends EvalLimits {
  strictBuiltinErrors: boolean;
  /** Reads of a rule through its closures before it is compiled to generated JavaScript (0: at once). */
  compileAfter: number;
}

/** A frame: the values of one rule's (or query's) variables by slot, undefined while unbound. */
export type Vals = (Value | undefined)[];

/** Continuation: called once per solution; returning true stops the search. */
export type K = () => boolean;
export type VK = (v: Value) => boolean;

/** A compiled body or expression: calls `k` once per solution, binding variables in `vals` meanwhile. */
export type Goal = (run: Run, vals: Vals, k: K) => boolean;

/** Calls a function or built-in with evaluated arguments; undefined when it has no value. */
export type Invoke = (run: Run, args: Value[]) => Value | undefined;

/** What a direct (continuation-free) evaluation of an expression found. */
export const HOLDS = 0;
export const FAILS = 1;
export const NOT_DIRECT = 2;
export type Direct = typeof HOLDS | typeof FAILS | typeof NOT_DIRECT;

/** `with f as v` gives a value; `with f as g` calls g instead (g, inside, may call the original f). */
export interface FunctionOverride {
  value?: Value;
  replacement?: { invoke: Invoke; arity: number };
}

/** What `with` can change. Rule values and function results are remembered per context. */
export class Context {
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

/**
 * The state of one evaluation, handed to every compiled closure: the current context (switched by
 * `with`), the limits' counters, and the trail of bindings made without a continuation.
 */
export class Run implements BuiltinContext, Evaluation {
  ctx: Context;
  /** The evaluation's own context, before any `with`: generated rule code runs only in it. */
  readonly base: Context;
  steps = 0;
  depth = 0;
  /** Slots bound by direct expressions, as (frame, slot) pairs, unwound when their body returns. */
  readonly trail: (Vals | number)[] = [];
  readonly maxSteps: number;
  readonly maxDepth: number;
  readonly strict: boolean;
  readonly compileAfter: number;
  private now: Num | undefined;
  private remembered: Map<string, Value> | undefined;

  constructor(
    readonly tree: DocNode,
    data: Value,
    input: Value | undefined,
    options: EvalOptions,
  ) {
    this.ctx = this.base = new Context(input, data, undefined, undefined);
    this.maxSteps = options.maxSteps;
    this.maxDepth = options.maxDepth;
    this.strict = options.strictBuiltinErrors;
    this.compileAfter = options.compileAfter;
  }

  remember<T extends Value>(key: string, make: () => T): T {
    this.remembered ??= new Map();
    let v = this.remembered.get(key) as T | undefined;
    if (v === undefined) this.remembered.set(key, (v = make()));
    return v;
  }

  nowNs(): Num {
    this.now ??= fromBigInt(BigInt(Date.now()) * 1_000_000n + (process.hrtime.bigint() % 1_000_000n));
    return this.now;
  }

  /** Counts one expression; the caller has done `++steps` and found it over the limit. */
  tooManySteps(loc: Location): never {
    throw new RegoError("eval_cancel_error", `evaluation exceeded ${this.maxSteps} steps`, loc);
  }

  enter(loc: Location): void {
    if (++this.depth > this.maxDepth) throw new RegoError("eval_cancel_error", `evaluation exceeded the maximum depth of ${this.maxDepth}`, loc);
  }

  undo(mark: number): void {
    const trail = this.trail;
    while (trail.length > mark) {
      const slot = trail.pop() as number;
      (trail.pop() as Vals)[slot] = undefined;
    }
  }

}

/** What an evaluation throws: a blown stack becomes the engine's cancel error, anything else stays. */
export function overflowed(e: unknown): unknown {
  return e instanceof RangeError ? new RegoError("eval_cancel_error", "evaluation exceeded the stack: policy or document nested too deeply") : e;
}

/** A continuation that stops at the first solution: a goal called with it says whether there is one. */
export const FIRST: K = () => true;

/** Binds `slot` to `v` for the continuation, then unbinds it. */
export function bind(vals: Vals, slot: number, v: Value, k: K): boolean {
  vals[slot] = v;
  const r = k();
  vals[slot] = undefined;
  return r;
}
