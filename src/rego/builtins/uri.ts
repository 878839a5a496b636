/**
 * URIs: uri.parse and uri.is_valid read a URI as Go's net/url.Parse does (scheme, userinfo@host:port,
 * path and its raw form, query, fragment), with its errors' wording.
 */
import { BuiltinError } from "../values/errors.ts";
import { RObject, type Value } from "../values/values.ts";
import { builtin, str } from "./builtin.ts";

interface Parsed {
  scheme: string;
  host: string;
  path: string;
  rawPath: string;
  rawQuery: string;
  fragment: string;
}

/** %XX escapes decoded as bytes; in a host only those Go allows there (none of its own letters). */
function unescape(s: string, inHost: boolean): string {
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "%") {
      const hex = s.slice(i + 1, i + 3);
      if (!/^[0-9a-fA-F]{2}$/.test(hex)) throw new Error(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      // Go lets a host escape only what may not stand there as it is (and not letters or digits).
      if (inHost && /^[0-9a-zA-Z]$/.test(String.fromCharCode(parseInt(hex, 16)))) throw new Error(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`);
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(s[i]!, "utf8"));
  }
  return Buffer.from(bytes).toString("utf8");
}

/** How Go escapes a path (its encodePath rule): letters, digits and `-._~$&+,;=:@/` stay, the rest as %XX. */
const escapePath = (p: string) =>
  Array.from(Buffer.from(p, "utf8"))
    .map((b) => {
      const c = String.fromCharCode(b);
      return /[A-Za-z0-9\-._~$&+,;=:@/]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
    })
    .join("");

function parse(raw: string): Parsed {
  if (/[\x00-\x1f\x7f]/.test(raw)) throw new Error("net/url: invalid control character in URL");
  let rest = raw;
  let fragment = "";
  const hash = rest.indexOf("#");
  if (hash >= 0) {
    fragment = unescape(rest.slice(hash + 1), false);
    rest = rest.slice(0, hash);
  }
  let scheme = "";
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1]!.toLowerCase();
    rest = rest.slice(m[0].length);
  } else if (rest.startsWith(":")) throw new Error("missing protocol scheme");
  let rawQuery = "";
  const q = rest.indexOf("?");
  if (q >= 0) {
    rawQuery = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let host = "";
  if (rest.startsWith("//")) {
    const slash = rest.indexOf("/", 2);
    const authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? "" : rest.slice(slash);
    const at = authority.lastIndexOf("@");
    if (at >= 0 && !/^[A-Za-z0-9\-._~!$&'()*+,;=:%]*$/.test(authority.slice(0, at))) throw new Error("net/url: invalid userinfo");
    host = parseHost(authority.slice(at + 1));
  } else if (scheme && !rest.startsWith("/")) return { scheme, host: "", path: "", rawPath: "", rawQuery, fragment };
  else if (!scheme && rest.slice(0, rest.indexOf("/") < 0 ? undefined : rest.indexOf("/")).includes(":"))
    throw new Error("first path segment in URL cannot contain colon");
  const path = unescape(rest, false);
  return { scheme, host, path, rawPath: escapePath(path) === rest ? "" : rest, rawQuery, fragment };
}

function parseHost(host: string): string {
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    if (close < 0) throw new Error("missing ']' in host");
    const port = host.slice(close + 1);
    if (port && !/^:\d*$/.test(port)) throw new Error(`invalid port ${JSON.stringify(port)} after host`);
    return host;
  }
  const colon = host.lastIndexOf(":");
  if (colon >= 0 && !/^\d*$/.test(host.slice(colon + 1))) throw new Error(`invalid port ${JSON.stringify(host.slice(colon))} after host`);
  return unescape(host, true);
}

function hostnameAndPort(host: string): [string, string] {
  if (host.startsWith("[")) {
    const close = host.indexOf("]");
    return [host.slice(1, close), host.slice(close + 2)];
  }
  const colon = host.lastIndexOf(":");
  return colon < 0 ? [host, ""] : [host.slice(0, colon), host.slice(colon + 1)];
}

function parsed(raw: string): Parsed {
  try {
    return parse(raw);
  } catch (e) {
    throw new BuiltinError(`parse ${JSON.stringify(raw)}: ${(e as Error).message}`);
  }
}

export const uriBuiltins = [
  builtin("uri.parse", 1, (args) => {
    const u = parsed(str(args, 0));
    const [hostname, port] = hostnameAndPort(u.host);
    const out: [Value, Value][] = [];
    if (u.scheme) out.push(["scheme", u.scheme]);
    if (hostname) out.push(["hostname", hostname]);
    if (port) out.push(["port", port]);
    if (u.path) out.push(["path", u.path], ["raw_path", u.rawPath || u.path]);
    if (u.rawQuery) out.push(["raw_query", u.rawQuery]);
    if (u.fragment) out.push(["fragment", u.fragment]);
    return RObject.of(out);
  }),
  builtin("uri.is_valid", 1, ([v]) => {
    if (typeof v !== "string" || v === "") return false;
    try {
      parse(v);
      return true;
    } catch {
      return false;
    }
  }),
];
