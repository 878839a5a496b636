import { BuiltinError } from "../errors.ts";
import type { Num } from "../numbers.ts";
import { RObject, RSet, type TypeName, type Value, isNumber, typeName } from "../values.ts";

/** What a built-in may ask of the running evaluation. */
export interface BuiltinContext {
  /** The same timestamp for the whole evaluation (time.now_ns). */
  nowNs(): Num;
}

export interface Builtin {
  name: string;
  arity: number;
  /** Returns undefined for "no value"; throws BuiltinError for errors. */
  fn(args: Value[], ctx: BuiltinContext): Value | undefined;
  /** For operators (comparisons, membership): the same function on two operands, never throwing. */
  binary?: (a: Value, b: Value) => Value;
}

export const builtin = (name: string, arity: number, fn: Builtin["fn"]): Builtin => ({ name, arity, fn });

/** An operator: total on any two values, so a call needs neither an argument array nor an error guard. */
export const operator = (name: string, op: (a: Value, b: Value) => Value): Builtin => ({ name, arity: 2, fn: (args) => op(args[0]!, args[1]!), binary: op });

export function operandError(index: number, expected: string, got: Value): BuiltinError {
  return new BuiltinError(`operand ${index + 1} must be ${expected} but got ${typeName(got)}`, "type");
}

function check<T extends Value>(args: Value[], i: number, want: TypeName, ok: (v: Value) => boolean): T {
  const v = args[i]!;
  if (!ok(v)) throw operandError(i, want, v);
  return v as T;
}

const isString = (v: Value) => typeof v === "string";
const isObject = (v: Value) => v instanceof RObject;
const isSet = (v: Value) => v instanceof RSet;

export const str = (args: Value[], i: number) => check<string>(args, i, "string", isString);
export const num = (args: Value[], i: number) => check<Num>(args, i, "number", isNumber);
export const arr = (args: Value[], i: number) => check<Value[]>(args, i, "array", Array.isArray);
export const obj = (args: Value[], i: number) => check<RObject>(args, i, "object", isObject);
export const set = (args: Value[], i: number) => check<RSet>(args, i, "set", isSet);

/** An integer operand as a JS number (indexes, counts, bases). */
export function int(args: Value[], i: number): number {
  const v = num(args, i);
  if (typeof v !== "number" || !Number.isInteger(v)) throw operandError(i, "integer", v);
  return v;
}
