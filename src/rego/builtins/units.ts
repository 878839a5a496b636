import { BuiltinError } from "../values/errors.ts";
import { fromBigInt, fromDecimal, isInteger, type Num, toDouble } from "../values/numbers.ts";
import { builtin, str } from "./builtin.ts";

const AMOUNT = /^([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)(.*)$/;

/** Past this decimal exponent an amount is refused, as OPA refuses numbers past its exponent limit. */
const MAX_EXPONENT = 100_000;

const DECIMAL: Record<string, number> = { "": 0, k: 3, m: 6, g: 9, t: 12, p: 15, e: 18 };
const BINARY: Record<string, number> = { ki: 10, mi: 20, gi: 30, ti: 40, pi: 50, ei: 60 };

/** amount * 10^exp10 * 2^exp2, exactly. */
function scale(amount: string, exp10: number, exp2: number): Num {
  const [mant, exp] = decimalParts(amount);
  if (Math.abs(exp) > MAX_EXPONENT) throw new BuiltinError("exponent too large");
  return fromDecimal(mant * 2n ** BigInt(exp2), exp + exp10);
}

function decimalParts(text: string): [bigint, number] {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text)!;
  const frac = m[3] ?? "";
  return [BigInt(`${m[1]}${m[2] || "0"}${frac}`), Number(m[4] ?? "0") - frac.length];
}

/** The amount and the unit; `what` names the amount in errors ("amount", "byte amount"). */
function split(text: string, what: string): [string, string] {
  const s = text.replaceAll('"', "");
  if (s.includes(" ")) throw new BuiltinError("spaces not allowed in resource strings");
  const m = AMOUNT.exec(s);
  if (!m) throw new BuiltinError(`no ${what} provided`);
  if (/^[.\d]/.test(m[2]!)) throw new BuiltinError(`could not parse ${what} to a number`);
  return [m[1]!, m[2]!];
}

/** units.parse: SI and binary suffixes; `m` is milli, `M` mega (only the first letter is case-sensitive). */
function parseUnits(text: string): Num {
  const [amount, raw] = split(text, "amount");
  const unit = raw.length > 1 ? raw[0] + raw.slice(1).toLowerCase() : raw;
  if (unit === "m") return scale(amount, -3, 0);
  if (unit === "M") return scale(amount, 6, 0);
  const lower = unit.toLowerCase();
  if (lower in DECIMAL && lower !== "m") return scale(amount, DECIMAL[lower]!, 0);
  if (lower in BINARY) return scale(amount, 0, BINARY[lower]!);
  throw new BuiltinError(`unit ${unit} not recognized`);
}

/** units.parse_bytes: case-insensitive, optional trailing `b`; the result is a whole number of bytes. */
function parseBytes(text: string): Num {
  const [amount, raw] = split(text, "byte amount");
  const unit = raw.toLowerCase().replace(/b$/, "");
  let n: Num;
  if (unit in DECIMAL) n = scale(amount, DECIMAL[unit]!, 0);
  else if (unit in BINARY) n = scale(amount, 0, BINARY[unit]!);
  else throw new BuiltinError(`byte unit ${raw} not recognized`);
  return isInteger(n) ? n : fromBigInt(BigInt(Math.trunc(toDouble(n))));
}

export const unitBuiltins = [
  builtin("units.parse", 1, (args) => parseUnits(str(args, 0))),
  builtin("units.parse_bytes", 1, (args) => parseBytes(str(args, 0))),
];
