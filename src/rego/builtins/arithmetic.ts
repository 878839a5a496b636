import { BuiltinError } from "../values/errors.ts";
import { arith, compareNum, fromBigInt, isInteger, type Num, toBigInt, toDouble } from "../values/numbers.ts";
import { isNumber, RSet, type Value } from "../values/values.ts";
import { builtin, int, num, operandError, str } from "./builtin.ts";

const MAX_RANGE = 1_000_000;

function divide(a: Num, b: Num): Num {
  if (compareNum(b, 0) === 0) throw new BuiltinError("divide by zero");
  if (isInteger(a) && isInteger(b) && (typeof a !== "number" || typeof b !== "number")) {
    const x = toBigInt(a);
    const y = toBigInt(b);
    if (x % y === 0n) return fromBigInt(x / y);
  }
  return toDouble(a) / toDouble(b);
}

function round(n: Num, mode: "round" | "ceil" | "floor"): Num {
  if (isInteger(n)) return n;
  const x = toDouble(n);
  // Go's math.Round rounds half away from zero.
  const r = mode === "ceil" ? Math.ceil(x) : mode === "floor" ? Math.floor(x) : Math.sign(x) * Math.round(Math.abs(x));
  return r === 0 ? 0 : r;
}

/** From a to b (either way), every `step`th number; b itself only when a step lands on it. */
function range(a: number, b: number, step: number): Value[] {
  if (Math.abs(b - a) / step > MAX_RANGE) throw new BuiltinError(`range exceeds ${MAX_RANGE} numbers`);
  const out: Value[] = [];
  if (a <= b) for (let i = a; i <= b; i += step) out.push(i);
  else for (let i = a; i >= b; i -= step) out.push(i);
  return out;
}

/** `-` is numeric subtraction or set difference, depending on the first operand. */
function minus([a, b]: Value[]): Value {
  if (isNumber(a!)) {
    if (!isNumber(b!)) throw operandError(1, "number", b!);
    return arith("-", a, b);
  }
  if (a instanceof RSet) {
    if (!(b instanceof RSet)) throw operandError(1, "set", b!);
    return RSet.of(a.values().filter((v) => !b.has(v)));
  }
  throw operandError(0, "number or set", a!);
}

export const arithmeticBuiltins = [
  builtin("plus", 2, (args) => arith("+", num(args, 0), num(args, 1))),
  builtin("minus", 2, minus),
  builtin("mul", 2, (args) => arith("*", num(args, 0), num(args, 1))),
  builtin("div", 2, (args) => divide(num(args, 0), num(args, 1))),
  builtin("rem", 2, (args) => {
    const a = num(args, 0);
    const b = num(args, 1);
    if (!isInteger(a) || !isInteger(b)) throw new BuiltinError("modulo on floating-point number");
    if (compareNum(b, 0) === 0) throw new BuiltinError("modulo by zero");
    return fromBigInt(toBigInt(a) % toBigInt(b));
  }),
  builtin("abs", 1, (args) => {
    const a = num(args, 0);
    return compareNum(a, 0) < 0 ? arith("-", 0, a) : a;
  }),
  builtin("round", 1, (args) => round(num(args, 0), "round")),
  builtin("ceil", 1, (args) => round(num(args, 0), "ceil")),
  builtin("floor", 1, (args) => round(num(args, 0), "floor")),
  // The same number for the same seed string and bound within one evaluation, as OPA caches it.
  builtin("rand.intn", 2, (args, ctx) => {
    const seed = str(args, 0);
    const n = int(args, 1);
    return n === 0 ? 0 : ctx.remember(`rand.intn\0${seed}\0${n}`, () => Math.floor(Math.random() * Math.abs(n)));
  }),
  builtin("numbers.range", 2, (args) => range(int(args, 0), int(args, 1), 1)),
  builtin("numbers.range_step", 3, (args) => {
    const step = num(args, 2);
    if (!isInteger(step)) throw new BuiltinError("operand 3 must be integer number but got floating-point number", "type");
    if (compareNum(step, 0) <= 0) throw new BuiltinError("step must be a positive integer");
    // A step past any range a number can span takes only the first number.
    return range(int(args, 0), int(args, 1), typeof step === "number" ? step : Number.MAX_SAFE_INTEGER);
  }),
];
