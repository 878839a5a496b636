/**
 * What a built-in function is, as the syntax layer declares it (OPA's ast.Builtin): its name, its arity and
 * the function evaluation calls. The implementations live in ../builtins, one file per family.
 */
import type { Num } from "../values/numbers.ts";
import type { Value } from "../values/values.ts";

/** What a built-in may ask of the running evaluation. */
export interface BuiltinContext {
  /** The same timestamp for the whole evaluation (time.now_ns). */
  nowNs(): Num;
  /** A value made once per evaluation and key (uuid.rfc4122, rand.intn give the same answer twice). */
  remember<T extends Value>(key: string, make: () => T): T;
}

export interface Builtin {
  name: string;
  arity: number;
  /** Returns undefined for "no value"; throws BuiltinError for errors. */
  fn(args: Value[], ctx: BuiltinContext): Value | undefined;
  /** For operators (comparisons, membership): the same function on two operands, never throwing. */
  binary?: (a: Value, b: Value) => Value;
  /** A relation (walk): `fn` returns every result as an array, and a call's output takes each in turn. */
  relation?: boolean;
}
