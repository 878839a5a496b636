import { BuiltinError } from "../errors.ts";
import { fromBigInt } from "../numbers.ts";
import { builtin, str } from "./builtin.ts";

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function parseRFC3339(text: string): bigint {
  const m = RFC3339.exec(text);
  if (!m) throw new BuiltinError(`parsing time ${JSON.stringify(text)} as RFC3339 failed`);
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const daysInMonth = new Date(Date.UTC(y, mo, 0)).getUTCDate();
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth || h > 23 || mi > 59 || s > 59)
    throw new BuiltinError(`parsing time ${JSON.stringify(text)}: value out of range`);
  const offset = m[8] ? 0 : (m[9] === "-" ? -1 : 1) * (Number(m[10]) * 3600 + Number(m[11]) * 60);
  const seconds = BigInt(daysFromCivil(y, mo, d)) * 86400n + BigInt(h * 3600 + mi * 60 + s - offset);
  const nanos = seconds * 1_000_000_000n + BigInt((m[7] ?? "").padEnd(9, "0"));
  if (nanos < INT64_MIN || nanos > INT64_MAX) throw new BuiltinError("time outside of valid range");
  return nanos;
}

export const timeBuiltins = [
  builtin("time.now_ns", 0, (_, ctx) => ctx.nowNs()),
  builtin("time.parse_rfc3339_ns", 1, (args) => fromBigInt(parseRFC3339(str(args, 0)))),
];
