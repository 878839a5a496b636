/** Helpers for writing built-ins: constructors and operand checks with OPA's error wording. */
import type { Builtin, BuiltinContext } from "../syntax/builtin.ts";
import type { Num } from "../values/numbers.ts";
import { BuiltinError } from "../values/errors.ts";
import { RObject, RSet, type Value, isNumber, typeName } from "../values/values.ts";

export const builtin = (name: string, arity: number, fn: Builtin["fn"]): Builtin => ({ name, arity, fn });

/** A built-in with any number of results, all returned at once as an array. */
export const relation = (name: string, arity: number, fn: (args: Value[], ctx: BuiltinContext) => Value[]): Builtin => ({ name, arity, fn, relation: true });

/** An operator: total on any two values, so a call needs neither an argument array nor an error guard. */
export const operator = (name: string, op: (a: Value, b: Value) => Value): Builtin => ({ name, arity: 2, fn: (args) => op(args[0]!, args[1]!), binary: op });

export function operandError(index: number, expected: string, got: Value): BuiltinError {
  return new BuiltinError(`operand ${index + 1} must be ${expected} but got ${typeName(got)}`, "type");
}

// Operand checks, each written out: they run on every built-in call.
export function str(args: Value[], i: number): string {
  const v = args[i]!;
  if (typeof v !== "string") throw operandError(i, "string", v);
  return v;
}
export function num(args: Value[], i: number): Num {
  const v = args[i]!;
  if (!isNumber(v)) throw operandError(i, "number", v);
  return v;
}
export function arr(args: Value[], i: number): Value[] {
  const v = args[i]!;
  if (!Array.isArray(v)) throw operandError(i, "array", v);
  return v;
}
export function obj(args: Value[], i: number): RObject {
  const v = args[i]!;
  if (!(v instanceof RObject)) throw operandError(i, "object", v);
  return v;
}
export function set(args: Value[], i: number): RSet {
  const v = args[i]!;
  if (!(v instanceof RSet)) throw operandError(i, "set", v);
  return v;
}

/** An integer operand as a JS number (indexes, counts, bases). */
export function int(args: Value[], i: number): number {
  const v = num(args, i);
  if (typeof v !== "number" || !Number.isInteger(v)) throw new BuiltinError(`operand ${i + 1} must be integer number but got floating-point number`, "type");
  return v;
}

/** A composite operand holding an element of the wrong type, in OPA's words. */
export function elementError(index: number, composite: Value, got: Value, ...expected: string[]): BuiltinError {
  const kind = typeName(composite);
  const what = expected.length === 1 ? `${expected[0]}s` : `(any of) {${expected.join(", ")}}`;
  return new BuiltinError(`operand ${index + 1} must be ${kind} of ${what} but got ${kind} containing ${typeName(got)}`, "type");
}

/** An operand of one of several types, in OPA's words. */
export const oneOfError = (index: number, got: Value, ...expected: string[]) => operandError(index, `one of {${expected.join(", ")}}`, got);
