import { BuiltinError } from "../values/errors.ts";
import { isInteger, type Num, numText, toBigInt, toDouble } from "../values/numbers.ts";
import { isNumber, RObject, RSet, type Value } from "../values/values.ts";
import { builtin, elementError, int, num, obj, oneOfError, operandError, str } from "./builtin.ts";
import { renderTemplate } from "./template.ts";

const ASCII = /^[\x00-\x7f]*$/;

/** Rego indexes strings by code point; ASCII (the common case) needs no splitting. */
const codePoints = (s: string) => (ASCII.test(s) ? s.split("") : Array.from(s));

function stringItems(args: Value[], i: number): string[] {
  const v = args[i]!;
  const xs = Array.isArray(v) ? v : v instanceof RSet ? v.values() : undefined;
  if (!xs || xs.some((x) => typeof x !== "string")) throw operandError(i, "array or set of strings", v);
  return xs as string[];
}

function trimSet(s: string, cutset: string, left: boolean, right: boolean): string {
  const cut = new Set(codePoints(cutset));
  const cps = codePoints(s);
  let a = 0;
  let b = cps.length;
  while (left && a < b && cut.has(cps[a]!)) a++;
  while (right && b > a && cut.has(cps[b - 1]!)) b--;
  return cps.slice(a, b).join("");
}

/** How a value reads inside a message: strings quoted, sets as `{...}`, as OPA prints terms. */
export function termText(v: Value): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === null || typeof v === "boolean") return String(v);
  if (isNumber(v)) return numText(v);
  if (Array.isArray(v)) return `[${v.map(termText).join(", ")}]`;
  if (v instanceof RSet) return v.size ? `{${v.values().map(termText).join(", ")}}` : "set()";
  return `{${(v as RObject)
    .entries()
    .map(([k, x]) => `${termText(k)}: ${termText(x)}`)
    .join(", ")}}`;
}

const VERB = /%([-+# 0]*)(\d+)?(?:\.(\d+))?([a-zA-Z%])/g;

interface Verb {
  whole: string;
  flags: string;
  width?: string;
  precision?: string;
  verb: string;
}

/** A format as its literal text and verbs, parsed once per format (policies use a few formats many times). */
function parseFormat(format: string): (string | Verb)[] {
  let pieces = formats.get(format);
  if (!pieces) {
    pieces = [];
    let at = 0;
    for (const m of format.matchAll(VERB)) {
      if (m.index > at) pieces.push(format.slice(at, m.index));
      pieces.push({ whole: m[0], flags: m[1]!, width: m[2], precision: m[3], verb: m[4]! });
      at = m.index + m[0].length;
    }
    if (at < format.length) pieces.push(format.slice(at));
    if (formats.size >= MAX_FORMATS) formats.clear();
    formats.set(format, pieces);
  }
  return pieces;
}

const MAX_FORMATS = 500;
const formats = new Map<string, (string | Verb)[]>();

/** Go's fmt verbs as sprintf uses them: %s %v %d %f %e %g %x %X %o %b %q %t %%. */
function sprintf(format: string, values: Value[]): string {
  let next = 0;
  let out = "";
  for (const piece of parseFormat(format)) {
    if (typeof piece === "string") out += piece;
    else if (piece.verb === "%") out += "%";
    else if (next >= values.length) out += `%!${piece.verb}(MISSING)`;
    else out += formatVerb(piece, values[next++]!);
  }
  return out;
}

function formatVerb({ whole, flags, width, precision, verb }: Verb, v: Value): string {
  let text: string;
  switch (verb) {
    case "s":
    case "v":
      text = typeof v === "string" ? v : isNumber(v) ? numberText(v) : termText(v);
      break;
    case "q":
      text = typeof v === "string" ? JSON.stringify(v) : termText(v);
      break;
    case "d":
      text = isNumber(v) && isInteger(v) ? toBigInt(v).toString() : `%!d(${termText(v)})`;
      break;
    case "f":
    case "F":
      text = isNumber(v) ? toDouble(v).toFixed(precision === undefined ? 6 : Number(precision)) : `%!f(${termText(v)})`;
      break;
    case "e":
      text = isNumber(v) ? goExponent(toDouble(v).toExponential(precision === undefined ? 6 : Number(precision))) : `%!e(${termText(v)})`;
      break;
    case "g":
      text = isNumber(v) ? (precision === undefined ? numText(v) : String(Number(toDouble(v).toPrecision(Number(precision))))) : `%!g(${termText(v)})`;
      break;
    case "x":
    case "X":
    case "o":
    case "b": {
      const base = verb === "o" ? 8 : verb === "b" ? 2 : 16;
      if (isNumber(v) && isInteger(v)) text = toBigInt(v).toString(base);
      else if (typeof v === "string" && base === 16) text = Buffer.from(v).toString("hex");
      else text = `%!${verb}(${termText(v)})`;
      if (verb === "X") text = text.toUpperCase();
      break;
    }
    case "t":
      text = typeof v === "boolean" ? String(v) : `%!t(${termText(v)})`;
      break;
    default:
      return whole;
  }
  const w = width === undefined ? 0 : Number(width);
  if (text.length < w) text = flags.includes("-") ? text.padEnd(w) : text.padStart(w, flags.includes("0") ? "0" : " ");
  return text;
}

/**
 * A number as Go prints OPA's argument for %v: integers in full, fractions as Go's shortest %v (exponent
 * below 1e-4 or from 1e21), and a number no double holds as written in exponent form (OPA keeps its text).
 */
function numberText(n: Num): string {
  if (isInteger(n)) {
    if (typeof n !== "number" && !Number.isFinite(toDouble(n))) return `${n.mant}e${n.exp}`;
    return toBigInt(n).toString();
  }
  const d = toDouble(n);
  if (!Number.isFinite(d)) return typeof n === "number" ? String(n) : `${n.mant}e${n.exp}`;
  const exp = Math.floor(Math.log10(Math.abs(d)));
  return exp < -4 || exp >= 21 ? goExponent(d.toExponential()) : String(d);
}

const goExponent = (s: string) => s.replace(/e([+-])(\d)$/, "e$10$2");

function formatInt(n: Num, base: number): string {
  if (![2, 8, 10, 16].includes(base)) throw new BuiltinError("operand 2 must be one of {2, 8, 10, 16}", "type");
  const truncated = isInteger(n) ? toBigInt(n) : BigInt(Math.trunc(toDouble(n)));
  return truncated.toString(base);
}

/**
 * strings.replace_n as Go's strings.Replacer: one pass over the string, at each position the first key (in
 * key order) that starts there replaced; replaced text is not scanned again.
 */
function replaceN(patterns: RObject, s: string): string {
  const pairs: [string, string][] = patterns.entries().map(([k, v]) => {
    if (typeof k !== "string") throw new BuiltinError("operand 1 non-string key found in pattern object", "type");
    if (typeof v !== "string") throw new BuiltinError("operand 1 non-string value found in pattern object", "type");
    return [k, v];
  });
  // An empty key's value goes in at every position, before whatever else happens there.
  const empty = pairs.find(([k]) => k === "")?.[1];
  const keyed = pairs.filter(([k]) => k !== "");
  let out = "";
  for (let i = 0; i <= s.length; ) {
    if (empty !== undefined) out += empty;
    if (i === s.length) break;
    const hit = keyed.find(([k]) => s.startsWith(k, i));
    if (hit) {
      out += hit[1];
      i += hit[0].length;
    } else {
      const c = String.fromCodePoint(s.codePointAt(i)!);
      out += c;
      i += c.length;
    }
  }
  return out;
}

/** A string, or an array or set of strings, as a list (strings.any_prefix_match and friends). */
function oneOrMany(args: Value[], i: number): string[] {
  const v = args[i]!;
  if (typeof v === "string") return [v];
  const xs = Array.isArray(v) ? v : v instanceof RSet ? v.values() : undefined;
  if (!xs) throw oneOfError(i, v, "string", "set", "array");
  return xs.map((x) => {
    if (typeof x !== "string") throw elementError(i, v, x, "string");
    return x;
  });
}

/** The first n pieces (n >= 0) or the last -n (n < 0) of the string split at `sep`. */
function splitN(s: string, sep: string, n: number): string[] {
  const all = sep === "" ? codePoints(s) : s.split(sep);
  if (n >= 0) {
    if (all.length <= n) return all;
    // Go's SplitN(s, sep, n + 1): the (n+1)th piece holds the rest, and only the first n are kept.
    return all.slice(0, n);
  }
  return all.slice(Math.max(all.length + n, 0));
}

/** Go's strings.Count: non-overlapping matches; an empty substring counts the gaps between code points. */
function count(s: string, sub: string): number {
  if (sub === "") return codePoints(s).length + 1;
  let n = 0;
  for (let at = s.indexOf(sub); at >= 0; at = s.indexOf(sub, at + sub.length)) n++;
  return n;
}

/** Every position of `search` in `s`, in code points, each match starting one past the previous. */
function indexesOf(s: string, search: string): number[] {
  if (search === "") throw new BuiltinError("empty search character");
  const out: number[] = [];
  for (let at = s.indexOf(search); at >= 0; at = s.indexOf(search, at + 1)) out.push(ASCII.test(s) ? at : Array.from(s.slice(0, at)).length);
  return out;
}

/** A template's pieces joined: text as it is, each expression's one value as a term, none as `<undefined>`. */
function templateString(parts: Value[]): string {
  let out = "";
  for (const part of parts) {
    if (typeof part === "string") out += part;
    else if (part instanceof RSet) {
      if (part.size > 1) throw new BuiltinError("template expression produced more than one value");
      const v = part.values()[0];
      out += v === undefined ? "<undefined>" : typeof v === "string" ? v : termText(v);
    }
  }
  return out;
}

export const stringBuiltins = [
  builtin("internal.template_string", 1, (args) => {
    const parts = args[0];
    if (!Array.isArray(parts)) throw operandError(0, "array", parts!);
    return templateString(parts);
  }),
  builtin("indexof_n", 2, (args) => indexesOf(str(args, 0), str(args, 1))),
  builtin("strings.any_prefix_match", 2, (args) => {
    const xs = oneOrMany(args, 0);
    const prefixes = oneOrMany(args, 1);
    return xs.some((x) => prefixes.some((p) => x.startsWith(p)));
  }),
  builtin("strings.any_suffix_match", 2, (args) => {
    const xs = oneOrMany(args, 0);
    const suffixes = oneOrMany(args, 1);
    return xs.some((x) => suffixes.some((p) => x.endsWith(p)));
  }),
  builtin("strings.count", 2, (args) => count(str(args, 0), str(args, 1))),
  builtin("strings.split_n", 3, (args) => splitN(str(args, 0), str(args, 1), int(args, 2))),
  builtin("strings.render_template", 2, (args) => renderTemplate(str(args, 0), obj(args, 1))),
  builtin("concat", 2, (args) => stringItems(args, 1).join(str(args, 0))),
  builtin("contains", 2, (args) => str(args, 0).includes(str(args, 1))),
  builtin("startswith", 2, (args) => str(args, 0).startsWith(str(args, 1))),
  builtin("endswith", 2, (args) => str(args, 0).endsWith(str(args, 1))),
  builtin("lower", 1, (args) => str(args, 0).toLowerCase()),
  builtin("upper", 1, (args) => str(args, 0).toUpperCase()),
  builtin("split", 2, (args) => {
    const s = str(args, 0);
    const d = str(args, 1);
    return d === "" ? codePoints(s) : s.split(d);
  }),
  builtin("replace", 3, (args) => str(args, 0).replaceAll(str(args, 1), str(args, 2))),
  builtin("strings.replace_n", 2, (args) => replaceN(obj(args, 0), str(args, 1))),
  builtin("strings.reverse", 1, (args) => codePoints(str(args, 0)).reverse().join("")),
  builtin("trim", 2, (args) => trimSet(str(args, 0), str(args, 1), true, true)),
  builtin("trim_left", 2, (args) => trimSet(str(args, 0), str(args, 1), true, false)),
  builtin("trim_right", 2, (args) => trimSet(str(args, 0), str(args, 1), false, true)),
  builtin("trim_prefix", 2, (args) => {
    const s = str(args, 0);
    const p = str(args, 1);
    return s.startsWith(p) ? s.slice(p.length) : s;
  }),
  builtin("trim_suffix", 2, (args) => {
    const s = str(args, 0);
    const p = str(args, 1);
    return p && s.endsWith(p) ? s.slice(0, s.length - p.length) : s;
  }),
  builtin("trim_space", 1, (args) => str(args, 0).trim()),
  builtin("indexof", 2, (args) => {
    const s = str(args, 0);
    const i = s.indexOf(str(args, 1));
    return i < 0 || ASCII.test(s) ? i : Array.from(s.slice(0, i)).length;
  }),
  builtin("substring", 3, (args) => {
    const s = str(args, 0);
    const start = int(args, 1);
    const length = int(args, 2);
    if (start < 0) throw new BuiltinError("negative offset");
    if (ASCII.test(s)) return length < 0 ? s.slice(start) : s.slice(start, start + length);
    const cps = Array.from(s);
    return length < 0 ? cps.slice(start).join("") : cps.slice(start, start + length).join("");
  }),
  builtin("sprintf", 2, (args) => {
    const values = args[1];
    if (!Array.isArray(values)) throw operandError(1, "array", values!);
    return sprintf(str(args, 0), values);
  }),
  builtin("format_int", 2, (args) => formatInt(num(args, 0), int(args, 1))),
];
