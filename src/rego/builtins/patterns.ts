import type { RE2JS } from "re2js";
import { BuiltinError } from "../values/errors.ts";
import { type Value } from "../values/values.ts";
import { builtin, int, operandError, str } from "./builtin.ts";

/**
 * regex.* and glob.match run on RE2 (re2js), as OPA does on Go's regexp: linear-time matching, so a
 * policy or input cannot trigger catastrophic backtracking. re2js is large and most policies use no pattern,
 * so it is required with the first one rather than imported at start-up.
 */
let re2: typeof RE2JS | undefined;
const MAX_CACHED = 500;
const cache = new Map<string, RE2JS | BuiltinError>();

function compiled(pattern: string): RE2JS {
  let re = cache.get(pattern);
  if (!re) {
    try {
      re = (re2 ??= (require("re2js") as typeof import("re2js")).RE2JS).compile(pattern);
    } catch (e) {
      re = new BuiltinError(e instanceof Error ? e.message : String(e));
    }
    if (cache.size >= MAX_CACHED) cache.clear();
    cache.set(pattern, re);
  }
  if (re instanceof BuiltinError) throw re;
  return re;
}

// `-` too: inside the delimiters' character class it would otherwise make a range of its neighbours.
const escapeRe = (c: string) => c.replace(/[\\.+*?()|[\]{}^$-]/g, "\\$&");

/** Translates a glob (gobwas/glob syntax, as OPA uses) into an anchored RE2 expression. */
function globToRegex(glob: string, delimiters: string[]): string {
  const notDelim = delimiters.length ? `[^${delimiters.map(escapeRe).join("")}]` : "(?s:.)";
  let out = "";
  let depth = 0;
  const chars = Array.from(glob);
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (c === "\\") {
      const n = chars[++i];
      if (n === undefined) throw new BuiltinError("unexpected end of pattern after '\\'");
      out += escapeRe(n);
    } else if (c === "*") {
      if (chars[i + 1] === "*") {
        i++;
        out += "(?s:.)*";
      } else out += `${notDelim}*`;
    } else if (c === "?") out += notDelim;
    else if (c === "[") {
      const end = chars.indexOf("]", i + 1);
      if (end < 0) throw new BuiltinError("unclosed character class in pattern");
      let body = chars.slice(i + 1, end).join("");
      const negate = body.startsWith("!");
      if (negate) body = body.slice(1);
      out += `[${negate ? "^" : ""}${body.replace(/[\\\]^[]/g, "\\$&")}]`;
      i = end;
    } else if (c === "{") {
      depth++;
      out += "(?:";
    } else if (c === "}" && depth > 0) {
      depth--;
      out += ")";
    } else if (c === "," && depth > 0) out += "|";
    else out += escapeRe(c);
  }
  if (depth) throw new BuiltinError("unclosed '{' in pattern");
  return `^${out}$`;
}

function globDelimiters(v: Value): string[] {
  if (v === null) return [];
  if (!Array.isArray(v) || v.some((d) => typeof d !== "string")) throw operandError(1, "array of strings", v);
  return v.length ? (v as string[]) : ["."];
}

/** The matchers for the delimiters a policy passed last: usually one constant array, passed again and again. */
let lastDelimiters: Value | undefined;
let lastMatchers: Map<string, (s: string) => boolean> | undefined;

const GLOB_META = /[*?[\]{}\\]/;

/** A glob matcher, cached by delimiters then pattern; plain patterns compare as strings. */
function globMatcher(pattern: string, delimiters: string[], given: Value): (s: string) => boolean {
  const delimiterKey = delimiters.length === 1 ? delimiters[0]! : delimiters.join("\0");
  let byPattern = globCache.get(delimiterKey);
  if (!byPattern) {
    if (globCache.size >= MAX_CACHED) globCache.clear();
    globCache.set(delimiterKey, (byPattern = new Map()));
  }
  lastDelimiters = given;
  lastMatchers = byPattern;
  let m = byPattern.get(pattern);
  if (!m) {
    if (!GLOB_META.test(pattern)) m = (s) => s === pattern;
    else {
      m = starMatcher(pattern, delimiters);
      if (!m) {
        const re = compiled(globToRegex(pattern, delimiters));
        m = (s) => re.testExact(s);
      }
    }
    if (byPattern.size >= MAX_CACHED) byPattern.clear();
    byPattern.set(pattern, m);
  }
  return m;
}

const globCache = new Map<string, Map<string, (s: string) => boolean>>();

const NOT_STARS_ONLY = /[?[\]{}\\]|\*\*|[\uD800-\uDFFF]/;
const UNSAFE_DELIMITER = /[\uD800-\uDFFF]/;

/**
 * A glob whose only wildcards are single `*`s ("catalog:*", the common shape) as a direct matcher, several
 * times faster than the regex: its literal parts in order, each gap free of delimiter characters. The
 * leftmost place for each literal is always the right one: a later one would leave a delimiter in the
 * gap before it. Undefined for any other glob (and for delimiters the regex reads differently).
 */
function starMatcher(pattern: string, delimiters: string[]): ((s: string) => boolean) | undefined {
  if (NOT_STARS_ONLY.test(pattern) || delimiters.some((d) => UNSAFE_DELIMITER.test(d))) return undefined;
  const parts = pattern.split("*");
  const first = parts[0]!;
  const last = parts[parts.length - 1]!;
  const middle = parts.slice(1, -1);
  const minLength = parts.join("").length;
  const stops = new Set(delimiters.join(""));
  const gapOk = (s: string, from: number, to: number) => {
    if (stops.size > 0) for (let i = from; i < to; i++) if (stops.has(s[i]!)) return false;
    return true;
  };
  return (s) => {
    if (s.length < minLength || !s.startsWith(first) || !s.endsWith(last)) return false;
    let pos = first.length;
    const end = s.length - last.length;
    for (const literal of middle) {
      const at = s.indexOf(literal, pos);
      if (at < 0 || at + literal.length > end || !gapOk(s, pos, at)) return false;
      pos = at + literal.length;
    }
    return gapOk(s, pos, end);
  };
}

/** Go's FindAll: every match (at most n when n >= 0), as [start, end] pairs and each group's text. */
function findAll(re: RE2JS, s: string, n: number): { at: [number, number]; groups: string[] }[] {
  const out: { at: [number, number]; groups: string[] }[] = [];
  const m = re.matcher(s);
  let previousEnd = -1;
  while ((n < 0 || out.length < n) && m.find()) {
    const start = m.start();
    const end = m.end();
    // Go takes no empty match right after the previous match.
    if (start === end && start === previousEnd) continue;
    previousEnd = end;
    const groups: string[] = [];
    for (let g = 0; g <= m.groupCount(); g++) groups.push(m.group(g) ?? "");
    out.push({ at: [start, end], groups });
  }
  return out;
}

/** Go's Regexp.Split with no limit: the text between matches, an empty match splitting between characters. */
function split(re: RE2JS, s: string): string[] {
  if (s === "") return [""];
  const out: string[] = [];
  let begin = 0;
  let end = 0;
  for (const { at } of findAll(re, s, -1)) {
    end = at[0];
    if (at[1] !== 0) out.push(s.slice(begin, end));
    begin = at[1];
  }
  if (end !== s.length) out.push(s.slice(begin));
  return out;
}

/** Go's ReplaceAllString: `$1`, `${1}`, `$name` and `${name}` name groups, `$$` is a dollar. */
function replaceAll(re: RE2JS, s: string, template: string): string {
  const m = re.matcher(s);
  let out = "";
  let at = 0;
  let previousEnd = -1;
  while (m.find()) {
    const start = m.start();
    const end = m.end();
    if (start === end && start === previousEnd) continue;
    previousEnd = end;
    out += s.slice(at, start);
    out += template.replace(/\$(\$|\{(\w+)\}|(\w+))/g, (whole, _all, braced?: string, bare?: string) => {
      if (whole === "$$") return "$";
      const name = (braced ?? bare)!;
      try {
        return (/^\d+$/.test(name) ? m.group(Number(name)) : m.group(name)) ?? "";
      } catch {
        return "";
      }
    });
    at = end;
  }
  return out + s.slice(at);
}

/** regex.template_match: the template's parts between delimiters are patterns, the rest literal text. */
function templateMatch(template: string, text: string, open: string, close: string): boolean {
  let pattern = "^";
  let at = 0;
  for (;;) {
    const i = template.indexOf(open, at);
    if (i < 0) break;
    const j = template.indexOf(close, i + open.length);
    if (j < 0) throw new BuiltinError(`unbalanced braces in template ${JSON.stringify(template)}`);
    pattern += escapeRe(template.slice(at, i)).replace(/\//g, "/") + `(?:${template.slice(i + open.length, j)})`;
    at = j + close.length;
  }
  pattern += escapeRe(template.slice(at)) + "$";
  return compiled(pattern).test(text);
}

export const patternBuiltins = [
  builtin("regex.split", 2, (args) => split(compiled(str(args, 0)), str(args, 1))),
  builtin("regex.find_n", 3, (args) => {
    const s = str(args, 1);
    return findAll(compiled(str(args, 0)), s, int(args, 2)).map(({ groups }) => groups[0]!);
  }),
  builtin("regex.find_all_string_submatch_n", 3, (args) => findAll(compiled(str(args, 0)), str(args, 1), int(args, 2)).map(({ groups }) => groups)),
  builtin("regex.replace", 3, (args) => replaceAll(compiled(str(args, 1)), str(args, 0), str(args, 2))),
  builtin("regex.template_match", 4, (args) => templateMatch(str(args, 0), str(args, 1), str(args, 2), str(args, 3))),
  builtin("glob.quote_meta", 1, (args) => str(args, 0).replace(/[*?\\[\]{}]/g, "\\$&")),
  builtin("regex.match", 2, (args) => compiled(str(args, 0)).test(str(args, 1))),
  builtin("re_match", 2, (args) => compiled(str(args, 0)).test(str(args, 1))),
  builtin("regex.is_valid", 1, ([p]) => {
    if (typeof p !== "string") return false;
    try {
      compiled(p);
      return true;
    } catch {
      return false;
    }
  }),
  builtin("glob.match", 3, (args) => {
    const pattern = str(args, 0);
    const text = str(args, 2);
    if (args[1] !== lastDelimiters || lastMatchers === undefined) return globMatcher(pattern, globDelimiters(args[1]!), args[1]!)(text);
    return (lastMatchers.get(pattern) ?? globMatcher(pattern, globDelimiters(args[1]!), args[1]!))(text);
  }),
];
