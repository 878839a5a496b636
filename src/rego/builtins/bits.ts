/** Bitwise built-ins (bits.*) on integers of any size, as OPA computes them on big integers. */
import { BuiltinError } from "../values/errors.ts";
import { fromBigInt, isInteger, toBigInt } from "../values/numbers.ts";
import type { Value } from "../values/values.ts";
import { builtin, num } from "./builtin.ts";

function bigint(args: Value[], i: number): bigint {
  const n = num(args, i);
  if (!isInteger(n)) throw new BuiltinError(`operand ${i + 1} must be integer number but got floating-point number`, "type");
  return toBigInt(n);
}

function shift(args: Value[]): [bigint, bigint] {
  const x = bigint(args, 0);
  const by = bigint(args, 1);
  if (by < 0n) throw new BuiltinError("operand 2 must be an unsigned integer number but got a negative integer", "type");
  return [x, by];
}

export const bitsBuiltins = [
  builtin("bits.and", 2, (args) => fromBigInt(bigint(args, 0) & bigint(args, 1))),
  builtin("bits.or", 2, (args) => fromBigInt(bigint(args, 0) | bigint(args, 1))),
  builtin("bits.xor", 2, (args) => fromBigInt(bigint(args, 0) ^ bigint(args, 1))),
  builtin("bits.negate", 1, (args) => fromBigInt(~bigint(args, 0))),
  builtin("bits.lsh", 2, (args) => {
    const [x, by] = shift(args);
    return fromBigInt(x << by);
  }),
  builtin("bits.rsh", 2, (args) => {
    const [x, by] = shift(args);
    return fromBigInt(x >> by);
  }),
];
