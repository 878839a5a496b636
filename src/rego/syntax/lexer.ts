import { RegoError, type Location } from "../values/errors.ts";

export type TokenKind = "ident" | "number" | "string" | "template" | "punct" | "eof";

/** A template string's pieces: literal text, and the source of each `{expression}` with where it starts. */
export type TemplatePart = string | { source: string; at: number };

export interface Token {
  kind: TokenKind;
  /** Identifier name, punctuation text, number text, or the decoded string. */
  text: string;
  loc: Location;
  /** A line break separates this token from the previous one (ends a body literal). */
  nl: boolean;
  /** Templates (`$"..."`, `$\`...\``): their pieces. */
  parts?: TemplatePart[];
}

const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

/**
 * Reads a template string starting at `start` (its `$`): literal text (escapes as in strings, `\{` for a
 * brace; none in raw templates) and `{expression}` pieces, whose end is found by skipping nested brackets,
 * strings and templates. Returns the pieces and the index after the closing quote, or throws `fail`'s error.
 */
export function scanTemplate(source: string, start: number, fail: (at: number, message: string) => never): { parts: TemplatePart[]; end: number } {
  const raw = source[start + 1] === "`";
  const close = raw ? "`" : '"';
  const parts: TemplatePart[] = [];
  let text = "";
  let i = start + 2;
  for (;;) {
    if (i >= source.length || (!raw && source[i] === "\n")) fail(start, "unterminated template string");
    const c = source[i]!;
    if (c === close) break;
    if (c === "{") {
      if (text) parts.push(text);
      text = "";
      const end = expressionEnd(source, i + 1, fail);
      parts.push({ source: source.slice(i + 1, end), at: i + 1 });
      i = end + 1;
    } else if (c === "\\" && (!raw || source[i + 1] === "{")) {
      // A raw template knows one escape, `\{` for a brace; a plain one also the string escapes.
      const e = source[i + 1];
      if (e === "{" || e === "}") text += e;
      else if (e !== undefined && e in ESCAPES) text += ESCAPES[e];
      else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(source.slice(i + 2, i + 6))) {
        text += String.fromCharCode(parseInt(source.slice(i + 2, i + 6), 16));
        i += 4;
      } else fail(i, `invalid escape '\\${e ?? ""}' in template string`);
      i += 2;
    } else {
      text += c;
      i++;
    }
  }
  if (text) parts.push(text);
  return { parts, end: i + 1 };
}

/** The index of the `}` closing an expression that starts at `from`. */
function expressionEnd(source: string, from: number, fail: (at: number, message: string) => never): number {
  let depth = 0;
  for (let i = from; i < source.length; ) {
    const c = source[i]!;
    if (c === "$" && (source[i + 1] === '"' || source[i + 1] === "`")) i = scanTemplate(source, i, fail).end;
    else if (c === '"') {
      i++;
      while (i < source.length && source[i] !== '"') i += source[i] === "\\" ? 2 : 1;
      i++;
    } else if (c === "`") i = source.indexOf("`", i + 1) + 1 || source.length;
    else if (c === "{" || c === "[" || c === "(") (depth++, i++);
    else if (c === "}" && depth === 0) return i;
    else if (c === "}" || c === "]" || c === ")") (depth--, i++);
    else i++;
  }
  return fail(from, "unterminated expression in template string");
}

const PUNCT = [":=", "==", "!=", "<=", ">=", "{", "}", "[", "]", "(", ")", ",", ";", ".", ":", "=", "<", ">", "+", "-", "*", "/", "%", "|", "&"];
const IDENT_START = /[A-Za-z_]/;
const IDENT_PART = /[A-Za-z0-9_]/;
const DIGIT = /[0-9]/;
const MAX_SOURCE = 4 * 1024 * 1024;

export function tokenize(source: string, file: string): Token[] {
  if (source.length > MAX_SOURCE) throw new RegoError("rego_parse_error", `module exceeds ${MAX_SOURCE} characters`, { file, row: 1, col: 1 });
  const tokens: Token[] = [];
  let i = 0;
  let row = 1;
  let lineStart = 0;
  let nl = false;
  const loc = (at: number): Location => ({ file, row, col: at - lineStart + 1 });
  const fail = (at: number, message: string): never => {
    throw new RegoError("rego_parse_error", message, loc(at));
  };

  while (i < source.length) {
    const c = source[i]!;
    if (c === "\n") {
      i++;
      row++;
      lineStart = i;
      nl = true;
      continue;
    }
    if (c === " " || c === "\t" || c === "\r") {
      i++;
      continue;
    }
    if (c === "#") {
      while (i < source.length && source[i] !== "\n") i++;
      continue;
    }
    const start = i;
    const at = loc(start);
    if (IDENT_START.test(c)) {
      while (i < source.length && IDENT_PART.test(source[i]!)) i++;
      tokens.push({ kind: "ident", text: source.slice(start, i), loc: at, nl });
    } else if (DIGIT.test(c) || (c === "." && DIGIT.test(source[i + 1] ?? ""))) {
      while (i < source.length && DIGIT.test(source[i]!)) i++;
      if (source[i] === "." && DIGIT.test(source[i + 1] ?? "")) {
        i++;
        while (i < source.length && DIGIT.test(source[i]!)) i++;
      }
      if (source[i] === "e" || source[i] === "E") {
        let j = i + 1;
        if (source[j] === "+" || source[j] === "-") j++;
        if (DIGIT.test(source[j] ?? "")) {
          i = j;
          while (i < source.length && DIGIT.test(source[i]!)) i++;
        }
      }
      if (IDENT_START.test(source[i] ?? "")) fail(i, `unexpected character '${source[i]}' after number`);
      tokens.push({ kind: "number", text: source.slice(start, i), loc: at, nl });
    } else if (c === "$" && (source[i + 1] === '"' || source[i + 1] === "`")) {
      const { parts, end } = scanTemplate(source, i, fail);
      const spanned = source.slice(i, end);
      if (spanned.includes("\n")) {
        row += spanned.split("\n").length - 1;
        lineStart = i + spanned.lastIndexOf("\n") + 1;
      }
      i = end;
      tokens.push({ kind: "template", text: spanned, loc: at, nl, parts });
    } else if (c === '"') {
      i++;
      let text = "";
      for (;;) {
        if (i >= source.length || source[i] === "\n") fail(start, "unterminated string");
        const d = source[i]!;
        if (d === '"') {
          i++;
          break;
        }
        if (d !== "\\") {
          text += d;
          i++;
          continue;
        }
        const e = source[i + 1];
        const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
        if (e !== undefined && e in simple) {
          text += simple[e];
          i += 2;
        } else if (e === "u") {
          const hex = source.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) fail(i, "invalid \\u escape in string");
          text += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else fail(i, `invalid escape '\\${e ?? ""}' in string`);
      }
      tokens.push({ kind: "string", text, loc: at, nl });
    } else if (c === "`") {
      const end = source.indexOf("`", i + 1);
      if (end < 0) fail(start, "unterminated raw string");
      const text = source.slice(i + 1, end);
      for (const ch of text) {
        if (ch === "\n") {
          row++;
        }
      }
      if (text.includes("\n")) lineStart = start + 1 + text.lastIndexOf("\n") + 1;
      i = end + 1;
      tokens.push({ kind: "string", text, loc: at, nl });
    } else {
      const p = PUNCT.find((x) => source.startsWith(x, i));
      if (!p) fail(i, `unexpected character '${c}'`);
      i += p!.length;
      tokens.push({ kind: "punct", text: p!, loc: at, nl });
    }
    nl = false;
  }
  tokens.push({ kind: "eof", text: "end of input", loc: loc(i), nl: true });
  return tokens;
}
