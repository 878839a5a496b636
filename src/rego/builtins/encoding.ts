/** Encodings: JSON and YAML text, base64 and base64url, hex, and URL query strings. */
import { BuiltinError, RegoError } from "../values/errors.ts";
import { parseJSON } from "../values/json.ts";
import { fromJS, RObject, RSet, toJSON, type Value } from "../values/values.ts";
import { builtin, obj, str } from "./builtin.ts";

/** JSON text as a Rego value, numbers exact; malformed text is the built-in's error. */
function parseJSONText(text: string): Value {
  try {
    return parseJSON(text);
  } catch (e) {
    throw new BuiltinError(e instanceof RegoError ? e.detail : String(e));
  }
}

function parseYAML(text: string): Value {
  try {
    return fromJS(Bun.YAML.parse(text) ?? null);
  } catch (e) {
    throw new BuiltinError(`yaml: ${e instanceof Error ? e.message : String(e)}`);
  }
}

const isValidYAML = (text: string) => {
  try {
    Bun.YAML.parse(text);
    return true;
  } catch {
    return false;
  }
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
const BASE64URL = /^[A-Za-z0-9_-]*={0,2}$/;

/** Standard base64 needs its padding; base64url takes it or leaves it (OPA tries both). */
function decodeBase64(s: string, url: boolean): string {
  const padded = s.length % 4 === 0;
  if (!(url ? BASE64URL : BASE64).test(s) || (!url && !padded) || (url && s.includes("=") && !padded) || s.length % 4 === 1)
    throw new BuiltinError("illegal base64 data at input byte " + String(firstBad(s, url)));
  return Buffer.from(s, url ? "base64url" : "base64").toString("utf8");
}

const firstBad = (s: string, url: boolean) => {
  const ok = url ? /[A-Za-z0-9_-]/ : /[A-Za-z0-9+/]/;
  const i = Array.from(s).findIndex((c) => !ok.test(c));
  return i < 0 ? s.length : i;
};

function decodeHex(s: string): string {
  for (const c of s)
    if (!/[0-9a-fA-F]/.test(c)) throw new BuiltinError(`encoding/hex: invalid byte: U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} '${c}'`);
  if (s.length % 2) throw new BuiltinError("encoding/hex: odd length hex string");
  return Buffer.from(s, "hex").toString("utf8");
}

/** Go's url.QueryEscape: space as '+', everything but letters, digits and `-_.~` as %XX. */
const queryEscape = (s: string) =>
  Array.from(Buffer.from(s, "utf8"))
    .map((b) => {
      const c = String.fromCharCode(b);
      if (/[A-Za-z0-9\-_.~]/.test(c)) return c;
      return c === " " ? "+" : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");

/** Go's url.QueryUnescape: '+' as space, %XX as a byte; a malformed escape is an error. */
function queryUnescape(s: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "%") {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new BuiltinError(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else if (c === "+") bytes.push(32);
    else bytes.push(...Buffer.from(c, "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

function decodeQuery(query: string): RObject {
  const out = new Map<string, string[]>();
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    if (pair.includes(";")) throw new BuiltinError("invalid semicolon separator in query");
    const eq = pair.indexOf("=");
    const key = queryUnescape(eq < 0 ? pair : pair.slice(0, eq));
    const value = eq < 0 ? "" : queryUnescape(pair.slice(eq + 1));
    out.set(key, [...(out.get(key) ?? []), value]);
  }
  return RObject.of([...out].map(([k, v]) => [k, v]));
}

function encodeQuery(o: RObject): string {
  const pairs: string[] = [];
  for (const [k, v] of [...o.entries()].sort(([a], [b]) => (String(a) < String(b) ? -1 : 1))) {
    if (typeof k !== "string") throw new BuiltinError("encoding requires a string key");
    const values = typeof v === "string" ? [v] : Array.isArray(v) ? v : v instanceof RSet ? v.values() : undefined;
    if (!values || values.some((x) => typeof x !== "string")) throw new BuiltinError("encoded values must be string, array[string], or set[string]");
    for (const x of values as string[]) pairs.push(`${queryEscape(k)}=${queryEscape(x)}`);
  }
  return pairs.join("&");
}

/** Indented JSON as Go's json.MarshalIndent writes it: each element on a line of its own after `prefix`. */
function toJSONText(v: Value, indent: string, prefix: string, depth = 0): string {
  const line = (d: number) => `\n${prefix}${indent.repeat(d)}`;
  const items: [string | undefined, Value][] = Array.isArray(v)
    ? v.map((x) => [undefined, x])
    : v instanceof RObject
      ? v.entries().map(([k, x]) => [JSON.stringify(typeof k === "string" ? k : toJSON(k)), x])
      : v instanceof RSet
        ? v.values().map((x) => [undefined, x])
        : [];
  if (!Array.isArray(v) && !(v instanceof RObject) && !(v instanceof RSet)) return toJSON(v);
  const [open, close] = v instanceof RObject ? ["{", "}"] : ["[", "]"];
  if (!items.length) return open + close;
  const body = items.map(([k, x]) => `${line(depth + 1)}${k === undefined ? "" : `${k}: `}${toJSONText(x, indent, prefix, depth + 1)}`).join(",");
  return `${open}${body}${line(depth)}${close}`;
}

const MARSHAL_OPTIONS = new Set(["pretty", "indent", "prefix"]);

function marshalWithOptions(v: Value, options: RObject): string {
  let pretty: boolean | undefined;
  let indent = "\t";
  let prefix = "";
  for (const [k, x] of options.entries()) {
    if (typeof k !== "string" || !MARSHAL_OPTIONS.has(k)) throw new BuiltinError(`object contained unknown key ${toJSON(k)}`, "type");
    if (k === "pretty") {
      if (typeof x !== "boolean") throw new BuiltinError(`key "pretty" must be boolean but got ${typeof x}`, "type");
      pretty = x;
    } else {
      if (typeof x !== "string") throw new BuiltinError(`key ${JSON.stringify(k)} must be string`, "type");
      if (k === "indent") indent = x;
      else prefix = x;
      pretty ??= true;
    }
  }
  return pretty ? prefix + toJSONText(v, indent, prefix) : toJSON(v);
}

export const encodingBuiltins = [
  builtin("json.marshal", 1, ([v]) => toJSON(v!)),
  builtin("json.marshal_with_options", 2, (args) => marshalWithOptions(args[0]!, obj(args, 1))),
  builtin("json.unmarshal", 1, (args) => parseJSONText(str(args, 0))),
  builtin("json.is_valid", 1, ([v]) => {
    if (typeof v !== "string") return false;
    try {
      JSON.parse(v);
      return true;
    } catch {
      return false;
    }
  }),
  builtin("yaml.marshal", 1, ([v]) => Bun.YAML.stringify(JSON.parse(toJSON(v!)), null, 2) + "\n"),
  builtin("yaml.unmarshal", 1, (args) => parseYAML(str(args, 0))),
  builtin("yaml.is_valid", 1, ([v]) => typeof v === "string" && isValidYAML(v)),
  builtin("base64.encode", 1, (args) => Buffer.from(str(args, 0), "utf8").toString("base64")),
  builtin("base64.decode", 1, (args) => decodeBase64(str(args, 0), false)),
  builtin("base64.is_valid", 1, (args) => {
    const s = str(args, 0);
    return BASE64.test(s) && s.length % 4 === 0;
  }),
  builtin("base64url.encode", 1, (args) => Buffer.from(str(args, 0), "utf8").toString("base64").replaceAll("+", "-").replaceAll("/", "_")),
  builtin("base64url.encode_no_pad", 1, (args) => Buffer.from(str(args, 0), "utf8").toString("base64url")),
  builtin("base64url.decode", 1, (args) => decodeBase64(str(args, 0), true)),
  builtin("hex.encode", 1, (args) => Buffer.from(str(args, 0), "utf8").toString("hex")),
  builtin("hex.decode", 1, (args) => decodeHex(str(args, 0))),
  builtin("urlquery.encode", 1, (args) => queryEscape(str(args, 0))),
  builtin("urlquery.decode", 1, (args) => queryUnescape(str(args, 0))),
  builtin("urlquery.encode_object", 1, (args) => encodeQuery(obj(args, 0))),
  builtin("urlquery.decode_object", 1, (args) => decodeQuery(str(args, 0))),
];
