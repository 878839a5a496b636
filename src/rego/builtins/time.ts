/**
 * Time: nanoseconds since the epoch (int64, as OPA), read and written with Go's reference-time layouts
 * ("2006-01-02T15:04:05Z07:00"), in UTC or any IANA zone (through Intl), plus Go's duration syntax with
 * OPA's extra d, w and y units.
 */
import { BuiltinError } from "../values/errors.ts";
import { fromBigInt, isInteger, type Num, toBigInt } from "../values/numbers.ts";
import type { Value } from "../values/values.ts";
import { builtin, int, operandError, str } from "./builtin.ts";

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const NS = 1_000_000_000n;
const MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** The date of a day number (Hinnant's civil_from_days). */
function civilFromDays(z: number): [number, number, number] {
  const zz = z + 719468;
  const era = Math.floor(zz / 146097);
  const doe = zz - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [era * 400 + yoe + (m <= 2 ? 1 : 0), m, d];
}

const floorDiv = (a: bigint, b: bigint) => (a >= 0n ? a / b : -((-a + b - 1n) / b));

/** A moment as Go's time.Time shows it in a zone: civil fields and the zone's offset and name. */
interface Civil {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  nanos: number;
  weekday: number;
  yearDay: number;
  offset: number;
  zone: string;
}

const zoneCache = new Map<string, Intl.DateTimeFormat>();

function zoneFormat(zone: string): Intl.DateTimeFormat {
  let f = zoneCache.get(zone);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", year: "numeric", month: "numeric", day: "numeric", hour: "numeric", minute: "numeric", second: "numeric", timeZoneName: "short" });
    } catch {
      throw new BuiltinError(`unknown time zone ${zone}`);
    }
    zoneCache.set(zone, f);
  }
  return f;
}

/** The zone's offset from UTC (seconds) and abbreviation at a moment. */
function zoneAt(zone: string, seconds: bigint): [number, string] {
  if (zone === "UTC") return [0, "UTC"];
  const ms = Number(seconds) * 1000;
  const parts = Object.fromEntries(zoneFormat(zone).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  const local = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offset = Math.round((local - ms) / 1000);
  const name = /^GMT[+-]/.test(parts.timeZoneName ?? "") || !parts.timeZoneName ? offsetName(offset) : parts.timeZoneName;
  return [offset, name];
}

const offsetName = (offset: number) => {
  const a = Math.abs(offset);
  const h = Math.floor(a / 3600);
  const m = Math.floor((a % 3600) / 60);
  return `${offset < 0 ? "-" : "+"}${String(h).padStart(2, "0")}${m ? String(m).padStart(2, "0") : ""}`;
};

function civil(ns: bigint, zone: string): Civil {
  const secs = floorDiv(ns, NS);
  const nanos = Number(ns - secs * NS);
  const [offset, name] = zoneAt(zone, secs);
  const local = secs + BigInt(offset);
  const days = Number(floorDiv(local, 86400n));
  const rest = Number(local - BigInt(days) * 86400n);
  const [year, month, day] = civilFromDays(days);
  return {
    year,
    month,
    day,
    hour: Math.floor(rest / 3600),
    minute: Math.floor((rest % 3600) / 60),
    second: rest % 60,
    nanos,
    weekday: (((days + 4) % 7) + 7) % 7,
    yearDay: days - daysFromCivil(year, 1, 1) + 1,
    offset,
    zone: name,
  };
}

/** Nanoseconds of a civil time in a zone (its offset taken at that moment, as Go resolves it). */
function fromCivil(y: number, mo: number, d: number, h: number, mi: number, s: number, nanos: number, zone: string | number): bigint {
  // Go normalises overflowing months into years, then days into months.
  const year = y + Math.floor((mo - 1) / 12);
  const month = ((((mo - 1) % 12) + 12) % 12) + 1;
  const days = daysFromCivil(year, month, 1) + d - 1;
  const wall = BigInt(days) * 86400n + BigInt(h * 3600 + mi * 60 + s);
  let offset = typeof zone === "number" ? zone : 0;
  if (typeof zone === "string") {
    offset = zoneAt(zone, wall)[0];
    offset = zoneAt(zone, wall - BigInt(offset))[0];
  }
  return (wall - BigInt(offset)) * NS + BigInt(nanos);
}

function checkRange(ns: bigint): Num {
  if (ns < INT64_MIN || ns > INT64_MAX) throw new BuiltinError("time outside of valid range");
  return fromBigInt(ns);
}

/** A time operand: ns, or [ns, zone] or [ns, zone, layout]. */
function moment(args: Value[], i: number): { ns: bigint; zone: string; layout: string } {
  const v = args[i]!;
  let n: Value | undefined = v;
  let zone = "UTC";
  let layout = "";
  if (Array.isArray(v)) {
    if (!v.length) throw operandError(i, "either number (ns) or [number (ns), string (tz)]", v);
    n = v[0];
    if (v.length > 1) {
      if (typeof v[1] !== "string") throw operandError(i, "string", v[1]!);
      zone = v[1] === "" ? "UTC" : v[1] === "Local" ? Intl.DateTimeFormat().resolvedOptions().timeZone : v[1];
      zoneFormat(zone);
    }
    if (v.length > 2) {
      if (typeof v[2] !== "string") throw operandError(i, "string", v[2]!);
      layout = v[2];
    }
  } else if (typeof v !== "number" && !(typeof v === "object" && v !== null && "mant" in v)) throw operandError(i, "either number (ns) or [number (ns), string (tz)]", v);
  const num = n as Num;
  if (typeof num !== "number" && !(typeof num === "object" && "mant" in num)) throw operandError(i, "number", n!);
  const ns = isInteger(num) ? toBigInt(num) : BigInt(Math.trunc(Number(num)));
  if (ns < INT64_MIN || ns > INT64_MAX) throw new BuiltinError("timestamp too big");
  return { ns, zone, layout };
}

// ---- Go layouts

const NAMED_LAYOUTS: Record<string, string> = {
  ANSIC: "Mon Jan _2 15:04:05 2006",
  UnixDate: "Mon Jan _2 15:04:05 MST 2006",
  RubyDate: "Mon Jan 02 15:04:05 -0700 2006",
  RFC822: "02 Jan 06 15:04 MST",
  RFC822Z: "02 Jan 06 15:04 -0700",
  RFC850: "Monday, 02-Jan-06 15:04:05 MST",
  RFC1123: "Mon, 02 Jan 2006 15:04:05 MST",
  RFC1123Z: "Mon, 02 Jan 2006 15:04:05 -0700",
  RFC3339: "2006-01-02T15:04:05Z07:00",
  RFC3339Nano: "2006-01-02T15:04:05.999999999Z07:00",
};

const ELEMENTS = [
  "January", "Monday", "2006", "Z07:00:00", "-07:00:00", "Z070000", "-070000", "Z07:00", "-07:00", "Z0700", "-0700", "Z07", "-07",
  "Jan", "Mon", "MST", "002", "__2", "_2", "01", "02", "03", "04", "05", "06", "15", "PM", "pm", "1", "2", "3", "4", "5",
];

type Piece = string | { element: string } | { fraction: "0" | "9"; digits: number };

function layoutPieces(layout: string): Piece[] {
  const out: Piece[] = [];
  let text = "";
  for (let i = 0; i < layout.length; ) {
    // A run of 0s or 9s after '.' or ',' is a fraction of a second (Go's stdFracSecond0 and stdFracSecond9).
    const frac = /^[.,](0+|9+)(?![0-9])/.exec(layout.slice(i));
    if (frac) {
      if (text) out.push(text);
      text = "";
      out.push({ fraction: frac[1]![0] as "0" | "9", digits: frac[1]!.length });
      i += frac[0].length;
      continue;
    }
    const el = ELEMENTS.find((e) => layout.startsWith(e, i));
    if (el) {
      if (text) out.push(text);
      text = "";
      out.push({ element: el });
      i += el.length;
    } else text += layout[i++];
  }
  if (text) out.push(text);
  return out;
}

const pad = (n: number, width: number, c = "0") => String(n).padStart(width, c);

function zoneText(offset: number, element: string): string {
  if (element.startsWith("Z") && offset === 0) return "Z";
  const sign = offset < 0 ? "-" : "+";
  const a = Math.abs(offset);
  const h = pad(Math.floor(a / 3600), 2);
  const m = pad(Math.floor((a % 3600) / 60), 2);
  const s = pad(a % 60, 2);
  const shape = element.replace(/^Z/, "-");
  if (shape === "-07") return sign + h;
  if (shape === "-0700") return sign + h + m;
  if (shape === "-07:00") return `${sign}${h}:${m}`;
  if (shape === "-070000") return sign + h + m + s;
  return `${sign}${h}:${m}:${s}`;
}

function format(c: Civil, layout: string): string {
  return layoutPieces(NAMED_LAYOUTS[layout] ?? layout)
    .map((p) => {
      if (typeof p === "string") return p;
      if ("fraction" in p) {
        const digits = pad(c.nanos, 9).slice(0, p.digits);
        if (p.fraction === "0") return `.${digits}`;
        const trimmed = digits.replace(/0+$/, "");
        return trimmed ? `.${trimmed}` : "";
      }
      switch (p.element) {
        case "2006": return pad(c.year, 4);
        case "06": return pad(((c.year % 100) + 100) % 100, 2);
        case "January": return MONTHS[c.month - 1]!;
        case "Jan": return MONTHS[c.month - 1]!.slice(0, 3);
        case "01": return pad(c.month, 2);
        case "1": return String(c.month);
        case "Monday": return DAYS[c.weekday]!;
        case "Mon": return DAYS[c.weekday]!.slice(0, 3);
        case "02": return pad(c.day, 2);
        case "_2": return pad(c.day, 2, " ");
        case "2": return String(c.day);
        case "002": return pad(c.yearDay, 3);
        case "__2": return pad(c.yearDay, 3, " ");
        case "15": return pad(c.hour, 2);
        case "03": return pad(c.hour % 12 || 12, 2);
        case "3": return String(c.hour % 12 || 12);
        case "04": return pad(c.minute, 2);
        case "4": return String(c.minute);
        case "05": return pad(c.second, 2);
        case "5": return String(c.second);
        case "PM": return c.hour >= 12 ? "PM" : "AM";
        case "pm": return c.hour >= 12 ? "pm" : "am";
        case "MST": return c.zone;
        default: return zoneText(c.offset, p.element);
      }
    })
    .join("");
}

function parseWith(layout: string, value: string): bigint {
  const fail = (): never => {
    throw new BuiltinError(`parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse`);
  };
  let y = 1, mo = 1, d = 1, h = 0, mi = 0, s = 0, nanos = 0, pm: boolean | undefined, offset: number | undefined;
  let rest = value;
  const take = (re: RegExp): string => {
    const m = re.exec(rest);
    if (!m) fail();
    rest = rest.slice(m![0].length);
    return m![0];
  };
  const range = (n: number, lo: number, hi: number) => {
    if (n < lo || n > hi) throw new BuiltinError(`parsing time ${JSON.stringify(value)}: value out of range`);
    return n;
  };
  for (const p of layoutPieces(NAMED_LAYOUTS[layout] ?? layout)) {
    if (typeof p === "string") {
      if (!rest.startsWith(p)) fail();
      rest = rest.slice(p.length);
      continue;
    }
    if ("fraction" in p) {
      const f = take(p.fraction === "0" ? new RegExp(`^[.,]\\d{${p.digits}}`) : /^(?:[.,]\d+)?/);
      nanos = f ? Number(f.slice(1, 10).padEnd(9, "0")) : 0;
      continue;
    }
    switch (p.element) {
      case "2006": y = Number(take(/^\d{4}/)); break;
      case "06": y = 1900 + Number(take(/^\d{2}/)); if (y < 1969) y += 100; break;
      case "January": mo = MONTHS.findIndex((m) => rest.toLowerCase().startsWith(m.toLowerCase())) + 1 || fail(); rest = rest.slice(MONTHS[mo - 1]!.length); break;
      case "Jan": mo = MONTHS.findIndex((m) => rest.toLowerCase().startsWith(m.slice(0, 3).toLowerCase())) + 1 || fail(); rest = rest.slice(3); break;
      case "01": mo = range(Number(take(/^\d{2}/)), 1, 12); break;
      case "1": mo = range(Number(take(/^\d{1,2}/)), 1, 12); break;
      case "Monday": { const i = DAYS.findIndex((x) => rest.toLowerCase().startsWith(x.toLowerCase())); if (i < 0) fail(); rest = rest.slice(DAYS[i]!.length); break; }
      case "Mon": if (!DAYS.some((x) => rest.toLowerCase().startsWith(x.slice(0, 3).toLowerCase()))) fail(); rest = rest.slice(3); break;
      case "02": d = range(Number(take(/^\d{2}/)), 1, 31); break;
      case "_2": d = range(Number(take(/^[ \d]\d/).trim()), 1, 31); break;
      case "2": d = range(Number(take(/^\d{1,2}/)), 1, 31); break;
      case "002": case "__2": take(/^[ \d]{3}/); break;
      case "15": h = range(Number(take(/^\d{1,2}/)), 0, 23); break;
      case "03": case "3": h = range(Number(take(p.element === "03" ? /^\d{2}/ : /^\d{1,2}/)), 1, 12); break;
      case "04": mi = range(Number(take(/^\d{2}/)), 0, 59); break;
      case "4": mi = range(Number(take(/^\d{1,2}/)), 0, 59); break;
      case "05": case "5": {
        s = range(Number(take(p.element === "05" ? /^\d{2}/ : /^\d{1,2}/)), 0, 59);
        // Go reads a fraction after the seconds even when the layout has none.
        const f = /^[.,](\d+)/.exec(rest);
        if (f) { nanos = Number(f[1]!.slice(0, 9).padEnd(9, "0")); rest = rest.slice(f[0].length); }
        break;
      }
      case "PM": case "pm": pm = take(/^(AM|PM|am|pm)/).toUpperCase() === "PM"; break;
      case "MST": { const z = take(/^[A-Z]{3,5}|^[+-]\d{2,4}/); offset = z === "UTC" || z === "GMT" ? 0 : offset ?? 0; break; }
      default: {
        if (p.element.startsWith("Z") && rest.startsWith("Z")) { rest = rest.slice(1); offset = 0; break; }
        const z = take(/^[+-]\d{2}(?::?\d{2}(?::?\d{2})?)?/);
        const digits = z.slice(1).replaceAll(":", "");
        offset = (z[0] === "-" ? -1 : 1) * (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2, 4) || 0) * 60 + Number(digits.slice(4, 6) || 0));
      }
    }
  }
  if (rest) throw new BuiltinError(`parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(rest)}`);
  if (pm !== undefined) h = (h % 12) + (pm ? 12 : 0);
  if (d > new Date(Date.UTC(y, mo, 0)).getUTCDate()) throw new BuiltinError(`parsing time ${JSON.stringify(value)}: day out of range`);
  return fromCivil(y, mo, d, h, mi, s, nanos, offset ?? 0);
}

// ---- durations

const UNITS: Record<string, bigint> = { ns: 1n, us: 1000n, "µs": 1000n, "μs": 1000n, ms: 1_000_000n, s: NS, m: 60n * NS, h: 3600n * NS, d: 86400n * NS, w: 7n * 86400n * NS, y: 365n * 86400n * NS };

/** Go's time.ParseDuration, with OPA's d (24h), w (7d) and y (365d) units. */
function parseDuration(text: string): bigint {
  const invalid = () => new BuiltinError(`time: invalid duration ${JSON.stringify(text)}`);
  let s = text;
  let sign = 1n;
  if (s[0] === "-" || s[0] === "+") {
    if (s[0] === "-") sign = -1n;
    s = s.slice(1);
  }
  if (s === "0") return 0n;
  if (!s) throw invalid();
  let total = 0n;
  while (s) {
    const m = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h|d|w|y)/.exec(s);
    if (!m || (m[1] === "" && !m[2])) {
      if (/^[\d.]+$/.test(s)) throw new BuiltinError(`time: missing unit in duration ${JSON.stringify(text)}`);
      if (/^[\d.]+/.test(s)) throw new BuiltinError(`time: unknown unit ${JSON.stringify(s.replace(/^[\d.]+/, "").replace(/[\d.].*$/, ""))} in duration ${JSON.stringify(text)}`);
      throw invalid();
    }
    const unit = UNITS[m[3]!]!;
    const frac = m[2] ?? "";
    total += BigInt(m[1] || "0") * unit + (frac ? (BigInt(frac) * unit) / 10n ** BigInt(frac.length) : 0n);
    s = s.slice(m[0].length);
  }
  total *= sign;
  if (total < INT64_MIN || total > INT64_MAX) throw invalid();
  return total;
}

function diff(a: bigint, b: bigint, zone: string): Value[] {
  const [x, y] = a > b ? [b, a] : [a, b];
  const c1 = civil(x, zone);
  const c2 = civil(y, zone);
  let year = c2.year - c1.year;
  let month = c2.month - c1.month;
  let day = c2.day - c1.day;
  let hour = c2.hour - c1.hour;
  let min = c2.minute - c1.minute;
  let sec = c2.second - c1.second;
  if (sec < 0) (sec += 60), min--;
  if (min < 0) (min += 60), hour--;
  if (hour < 0) (hour += 24), day--;
  if (day < 0) {
    // Days in c1's month: the 32nd overflows into the next month by (32 - days in month) days.
    day += 32 - new Date(Date.UTC(c1.year, c1.month - 1, 32)).getUTCDate();
    month--;
  }
  if (month < 0) (month += 12), year--;
  return [year, month, day, hour, min, sec];
}

function addDate(ns: bigint, zone: string, years: number, months: number, days: number): Num {
  const c = civil(ns, zone);
  const y = c.year + years;
  if (Math.abs(y) > 300000) throw new BuiltinError("time outside of valid range");
  return checkRange(fromCivil(y, c.month + months, c.day + days, c.hour, c.minute, c.second, c.nanos, zone));
}

export const timeBuiltins = [
  builtin("time.now_ns", 0, (_, ctx) => ctx.nowNs()),
  builtin("time.parse_rfc3339_ns", 1, (args) => checkRange(parseWith("RFC3339", str(args, 0)))),
  builtin("time.parse_ns", 2, (args) => checkRange(parseWith(str(args, 0), str(args, 1)))),
  builtin("time.parse_duration_ns", 1, (args) => fromBigInt(parseDuration(str(args, 0)))),
  builtin("time.format", 1, (args) => {
    const m = moment(args, 0);
    return format(civil(m.ns, m.zone), m.layout || "RFC3339Nano");
  }),
  builtin("time.date", 1, (args) => {
    const m = moment(args, 0);
    const c = civil(m.ns, m.zone);
    return [c.year, c.month, c.day];
  }),
  builtin("time.clock", 1, (args) => {
    const m = moment(args, 0);
    const c = civil(m.ns, m.zone);
    return [c.hour, c.minute, c.second];
  }),
  builtin("time.weekday", 1, (args) => {
    const m = moment(args, 0);
    return DAYS[civil(m.ns, m.zone).weekday]!;
  }),
  builtin("time.add_date", 4, (args) => {
    const m = moment(args, 0);
    return addDate(m.ns, m.zone, int(args, 1), int(args, 2), int(args, 3));
  }),
  builtin("time.diff", 2, (args) => {
    const a = moment(args, 0);
    const b = moment(args, 1);
    return diff(a.ns, b.ns, a.zone);
  }),
];
