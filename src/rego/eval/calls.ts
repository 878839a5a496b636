import type { DocNode } from "../plan/tree.ts";
import type { CallTarget } from "../syntax/ast.ts";
import { BuiltinError, RegoError, type Location } from "../values/errors.ts";
import type { FunctionOverride, Invoke, Run } from "./evaluator.ts";
import type { CTerm, One, Operand } from "./closures.ts";
import { late } from "./late.ts";
import { fetch, fetchAll } from "./operands.ts";
import type { Value } from "../values/values.ts";

/**
 * A call whose arguments are ready: operands fetched inline, then the `with` replacement when one is
 * active, else the operator, built-in (its errors undefined unless strict) or user function.
 */
export function callSite(target: CallTarget, args: readonly CTerm[], loc: Location): One {
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
    const node = target.node as DocNode;
    return (run, vals) => {
      const values = fetchAll(ops, run, vals);
      if (values === undefined) return undefined;
      return run.ctx.functions?.has(key) ? invoke(run, values) : late.callFunction(run, node, values, loc);
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

const callKey = (target: CallTarget) => (target.kind === "builtin" ? target.name : target.path);

/** Calls a target with evaluated arguments: a `with` replacement when one is active, else the function itself. */
export function invoker(target: CallTarget, loc: Location): Invoke {
  const key = callKey(target);
  if (target.kind === "function") {
    const node = target.node as DocNode;
    return (run, args) => {
      const o = run.ctx.functions?.get(key);
      return o === undefined ? late.callFunction(run, node, args, loc) : overridden(run, key, o, args);
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

export function builtinFailure(run: Run, e: unknown, name: string, loc: Location): undefined {
  if (e instanceof RegoError) throw e;
  if (run.strict) {
    const code = e instanceof BuiltinError && e.kind === "type" ? "eval_type_error" : "eval_builtin_error";
    throw new RegoError(code, `${name}: ${e instanceof Error ? e.message : String(e)}`, loc);
  }
  return undefined;
}
