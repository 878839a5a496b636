import { arith, type Num } from "../values/numbers.ts";
import { compare, isNumber, RObject, RSet, type Value } from "../values/values.ts";
import { builtin, operandError } from "./builtin.ts";

function items(args: Value[], i: number, expected = "one of {array, set}"): Value[] {
  const v = args[i]!;
  if (Array.isArray(v)) return v;
  if (v instanceof RSet) return v.values();
  throw operandError(i, expected, v);
}

function numbers(args: Value[]): Num[] {
  return items(args, 0).map((v) => {
    if (!isNumber(v)) throw operandError(0, "array or set of numbers", args[0]!);
    return v;
  });
}

export const aggregateBuiltins = [
  builtin("count", 1, ([v]) => {
    if (typeof v === "string") return [...v].length;
    if (Array.isArray(v)) return v.length;
    if (v instanceof RObject || v instanceof RSet) return v.size;
    throw operandError(0, "one of {array, object, set, string}", v!);
  }),
  builtin("sum", 1, (args) => numbers(args).reduce<Num>((a, b) => arith("+", a, b), 0)),
  builtin("product", 1, (args) => numbers(args).reduce<Num>((a, b) => arith("*", a, b), 1)),
  builtin("max", 1, (args) => {
    const xs = items(args, 0);
    return xs.length ? xs.reduce((a, b) => (compare(a, b) >= 0 ? a : b)) : undefined;
  }),
  builtin("min", 1, (args) => {
    const xs = items(args, 0);
    return xs.length ? xs.reduce((a, b) => (compare(a, b) <= 0 ? a : b)) : undefined;
  }),
  builtin("sort", 1, (args) => [...items(args, 0)].sort(compare)),
  builtin("all", 1, (args) => items(args, 0).every((v) => v === true)),
  builtin("any", 1, (args) => items(args, 0).some((v) => v === true)),
];
