/**
 * Rego numbers are arbitrary-precision decimals (OPA keeps the JSON text). Here a number is a JS double
 * whenever the double's shortest round-trip text denotes exactly that decimal (the common, fast case),
 * and a BigNum (mantissa * 10^exp) otherwise. Every value therefore has exactly one representation, so
 * equality and hashing can treat the two kinds as disjoint.
 */
export class BigNum {
  constructor(
    readonly mant: bigint, // never divisible by 10, never 0
    readonly exp: number,
  ) {}

  get isInteger() {
    return this.exp >= 0;
  }

  toString(): string {
    const neg = this.mant < 0n;
    const digits = (neg ? -this.mant : this.mant).toString();
    let text: string;
    if (this.exp >= 0) {
      text = this.exp > 400 ? `${digits}e${this.exp}` : digits + "0".repeat(this.exp);
    } else {
      const point = digits.length + this.exp;
      if (point > 0) text = `${digits.slice(0, point)}.${digits.slice(point)}`;
      else if (point > -400) text = `0.${"0".repeat(-point)}${digits}`;
      else text = `${digits}e${this.exp}`;
    }
    return neg ? `-${text}` : text;
  }
}

export type Num = number | BigNum;

/** A decimal as mantissa and exponent, normalised (no trailing zeros in the mantissa). */
interface Decimal {
  mant: bigint;
  exp: number;
}

const NUMBER_TEXT = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;
const MAX_EXPONENT = 1_000_000;
const MAX_BINARY_EXPONENT = 100_000;
const LOG2_OF_10 = Math.log2(10);

function parseDecimal(text: string): Decimal | undefined {
  const m = NUMBER_TEXT.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return undefined;
  const frac = m[3] ?? "";
  const exp = Number(m[4] ?? "0") - frac.length;
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > MAX_EXPONENT) return undefined;
  const mant = BigInt(`${m[1]}${m[2] || "0"}${frac}`);
  const d = normalise(mant, exp);
  // OPA refuses a number whose binary exponent passes 1e5 (about 10^30103): too costly to print.
  if (d.mant !== 0n && Math.abs((digitCount(d.mant) + d.exp) * LOG2_OF_10) > MAX_BINARY_EXPONENT) return undefined;
  return d;
}

function normalise(mant: bigint, exp: number): Decimal {
  if (mant === 0n) return { mant: 0n, exp: 0 };
  while (mant % 10n === 0n) {
    mant /= 10n;
    exp += 1;
  }
  return { mant, exp };
}

function decimalOfDouble(n: number): Decimal {
  return parseDecimal(String(n)) as Decimal;
}

function toDecimal(n: Num): Decimal {
  return typeof n === "number" ? decimalOfDouble(n) : { mant: n.mant, exp: n.exp };
}

/** The canonical number for mant * 10^exp. */
export function fromDecimal(mant: bigint, exp: number): Num {
  const d = normalise(mant, exp);
  if (d.mant === 0n) return 0;
  const asDouble = Number(`${d.mant}e${d.exp}`);
  if (Number.isFinite(asDouble)) {
    const back = decimalOfDouble(asDouble);
    if (back.mant === d.mant && back.exp === d.exp) return asDouble;
  }
  return new BigNum(d.mant, d.exp);
}

export const fromBigInt = (n: bigint): Num =>
  n >= -9007199254740991n && n <= 9007199254740991n ? Number(n) : fromDecimal(n, 0);

/** Parses number text (JSON or Rego syntax); undefined when it is not a number. */
export function parseNumber(text: string): Num | undefined {
  if (/^-?\d{1,15}$/.test(text)) return Number(text);
  const d = parseDecimal(text);
  return d && fromDecimal(d.mant, d.exp);
}

function digitCount(n: bigint): number {
  return (n < 0n ? -n : n).toString().length;
}

export function compareNum(a: Num, b: Num): number {
  if (typeof a === "number" && typeof b === "number") return a < b ? -1 : a > b ? 1 : 0;
  const x = toDecimal(a);
  const y = toDecimal(b);
  const sx = x.mant < 0n ? -1 : x.mant > 0n ? 1 : 0;
  const sy = y.mant < 0n ? -1 : y.mant > 0n ? 1 : 0;
  if (sx !== sy) return sx < sy ? -1 : 1;
  if (sx === 0) return 0;
  // Same sign: compare magnitudes by position of the leading digit before scaling (keeps bigints small).
  const mx = digitCount(x.mant) + x.exp;
  const my = digitCount(y.mant) + y.exp;
  if (mx !== my) return (mx < my ? -1 : 1) * sx;
  const e = Math.min(x.exp, y.exp);
  const ax = x.mant * 10n ** BigInt(x.exp - e);
  const ay = y.mant * 10n ** BigInt(y.exp - e);
  return ax < ay ? -1 : ax > ay ? 1 : 0;
}

export const isInteger = (n: Num) => (typeof n === "number" ? Number.isInteger(n) : n.isInteger);

export function toDouble(n: Num): number {
  return typeof n === "number" ? n : Number(n.toString());
}

/** The exact integer value; callers check isInteger first. */
export function toBigInt(n: Num): bigint {
  if (typeof n === "number") {
    if (Number.isSafeInteger(n)) return BigInt(n);
    // A double stands for the decimal of its shortest text (1585852421593912000), not its binary value.
    const d = decimalOfDouble(n);
    return d.mant * 10n ** BigInt(d.exp);
  }
  return n.mant * 10n ** BigInt(n.exp);
}

export const numText = (n: Num) => (typeof n === "number" ? doubleText(n) : n.toString());

/** Go-like text for doubles: integers without exponent up to 1e21, as OPA prints them. */
function doubleText(n: number): string {
  if (Number.isSafeInteger(n)) return String(n);
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return toBigInt(n).toString();
  return String(n);
}

type Op = "+" | "-" | "*";

const MAX_SCALE = 4000;

/** Exact for integers and for decimals of reasonable spread; doubles otherwise. */
export function arith(op: Op, a: Num, b: Num): Num {
  if (typeof a === "number" && typeof b === "number") {
    const r = op === "+" ? a + b : op === "-" ? a - b : a * b;
    // Doubles for fractions (as OPA's float arithmetic); exact bigints once integers leave the safe range.
    if (Number.isFinite(r) && (Number.isSafeInteger(r) || !Number.isInteger(a) || !Number.isInteger(b))) return r === 0 ? 0 : r;
  }
  const x = toDecimal(a);
  const y = toDecimal(b);
  if (op === "*") return fromDecimal(x.mant * y.mant, x.exp + y.exp);
  if (Math.abs(x.exp - y.exp) > MAX_SCALE) {
    const r = op === "+" ? toDouble(a) + toDouble(b) : toDouble(a) - toDouble(b);
    return r;
  }
  const e = Math.min(x.exp, y.exp);
  const ax = x.mant * 10n ** BigInt(x.exp - e);
  const ay = y.mant * 10n ** BigInt(y.exp - e);
  return fromDecimal(op === "+" ? ax + ay : ax - ay, e);
}
