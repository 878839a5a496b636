/**
 * Networks: net.cidr_* over IPv4 and IPv6 as Go's net package reads them (an IPv4-mapped IPv6 address is
 * IPv4). Addresses are bigints of 32 or 128 bits. net.lookup_ip_addr is left out: a decision does no I/O.
 */
import { BuiltinError } from "../values/errors.ts";
import { RObject, RSet, type Value } from "../values/values.ts";
import { builtin, str } from "./builtin.ts";

interface Address {
  bits: 32 | 128;
  n: bigint;
}
interface Network extends Address {
  prefix: number;
}

const MAX_EXPANDED = 1_000_000;

function parseV4(s: string): bigint | undefined {
  const parts = s.split(".");
  if (parts.length !== 4) return undefined;
  let n = 0n;
  for (const p of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(p) || Number(p) > 255) return undefined;
    n = (n << 8n) | BigInt(p);
  }
  return n;
}

function parseV6(s: string): bigint | undefined {
  if (s.includes("%")) return undefined;
  let text = s;
  const lastColon = text.lastIndexOf(":");
  if (text.slice(lastColon + 1).includes(".")) {
    // A trailing IPv4 address is the last two groups.
    const v4 = parseV4(text.slice(lastColon + 1));
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, lastColon + 1)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groups = (h: string) => (h === "" ? [] : h.split(":"));
  const head = groups(halves[0]!);
  const rest = halves.length === 2 ? groups(halves[1]!) : [];
  if ([...head, ...rest].some((g) => !/^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const known = head.length + rest.length;
  if (halves.length === 1 ? known !== 8 : known > 7) return undefined;
  const all = [...head.map((g) => BigInt(parseInt(g, 16))), ...Array<bigint>(8 - known).fill(0n), ...rest.map((g) => BigInt(parseInt(g, 16)))];
  return all.reduce((acc, g) => (acc << 16n) | g, 0n);
}

const V4_MAPPED = 0xffffn << 32n;

/** Go's net.ParseIP: IPv4, or IPv6 (an IPv4-mapped one reads as IPv4). */
function parseIP(s: string): Address | undefined {
  const v4 = parseV4(s);
  if (v4 !== undefined) return { bits: 32, n: v4 };
  const v6 = s.includes(":") ? parseV6(s) : undefined;
  if (v6 === undefined) return undefined;
  if (v6 >> 32n === 0xffffn) return { bits: 32, n: v6 & 0xffffffffn };
  return { bits: 128, n: v6 };
}

/** Go's net.ParseCIDR: the network (host bits cleared) of "address/prefix". */
function parseCIDR(s: string): Network {
  const slash = s.indexOf("/");
  const ip = slash < 0 ? undefined : parseIP(s.slice(0, slash));
  const prefixText = s.slice(slash + 1);
  if (!ip || !/^(0|[1-9]\d*)$/.test(prefixText)) throw new BuiltinError(`invalid CIDR address: ${s}`);
  const isMapped = ip.bits === 32 && s.slice(0, slash).includes(":");
  let prefix = Number(prefixText);
  const max = isMapped ? 128 : ip.bits;
  if (prefix > max) throw new BuiltinError(`invalid CIDR address: ${s}`);
  if (isMapped) {
    if (prefix < 96) return { bits: 128, n: clear(V4_MAPPED | ip.n, 128, prefix), prefix };
    prefix -= 96;
  }
  return { bits: ip.bits, n: clear(ip.n, ip.bits, prefix), prefix };
}

const clear = (n: bigint, bits: number, prefix: number) => (n >> BigInt(bits - prefix)) << BigInt(bits - prefix);
const last = (net: Network) => net.n | ((1n << BigInt(net.bits - net.prefix)) - 1n);
const contains = (net: Network, ip: Address) => net.bits === ip.bits && clear(ip.n, net.bits, net.prefix) === net.n;

function ipText({ bits, n }: Address): string {
  if (bits === 32) return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 0xffn)).join(".");
  const groups = Array.from({ length: 8 }, (_, i) => Number((n >> BigInt(112 - 16 * i)) & 0xffffn));
  // RFC 5952: the longest run of two or more zero groups becomes "::".
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) (best = i), (bestLength = j - i);
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (best < 0) return hex.join(":");
  return `${hex.slice(0, best).join(":")}::${hex.slice(best + bestLength).join(":")}`;
}

const netText = (net: Network) => `${ipText(net)}/${net.prefix}`;

function cidrContains(a: string, b: string): boolean {
  const net = parseCIDR(a);
  const ip = parseIP(b);
  if (ip) return contains(net, ip);
  let inner: Network;
  try {
    inner = parseCIDR(b);
  } catch {
    throw new BuiltinError(`not a valid textual representation of an IP address or CIDR: ${b}`);
  }
  return contains(net, inner) && contains(net, { bits: inner.bits, n: last(inner) });
}

/** The entries of a cidr_contains_matches operand: [the CIDR or address, its key]. */
function matchEntries(v: Value, operand: number): [string, Value][] {
  const cidrOf = (x: Value): string => {
    const c = typeof x === "string" ? x : Array.isArray(x) && x.length ? x[0] : undefined;
    if (typeof c !== "string") throw new BuiltinError(`operand ${operand}: element must be string or non-empty array`);
    return c;
  };
  if (typeof v === "string") return [[v, v]];
  if (Array.isArray(v)) return v.map((x, i) => [cidrOf(x), i]);
  if (v instanceof RSet) return v.values().map((x) => [cidrOf(x), x]);
  if (v instanceof RObject) return v.entries().map(([k, x]) => [cidrOf(x), k]);
  return [];
}

/** The fewest CIDRs covering first..last. */
function rangeToCIDRs(first: bigint, lastAddress: bigint, bits: 32 | 128): Network[] {
  const out: Network[] = [];
  let at = first;
  while (at <= lastAddress) {
    let size = 0;
    while (size < bits && (at & ((1n << BigInt(size + 1)) - 1n)) === 0n && at + (1n << BigInt(size + 1)) - 1n <= lastAddress) size++;
    out.push({ bits, n: at, prefix: bits - size });
    at += 1n << BigInt(size);
  }
  return out;
}

function merge(items: Value[]): RSet {
  const nets = items.map((x) => {
    if (typeof x !== "string") throw new BuiltinError("element must be string");
    const ip = parseIP(x);
    if (!ip) return parseCIDR(x);
    if (ip.bits === 128) throw new BuiltinError("IPv6 invalid: needs prefix length");
    // An IPv4 address alone takes its class's default mask, as Go's DefaultMask gives it.
    const top = Number(ip.n >> 24n);
    const prefix = top < 0x80 ? 8 : top < 0xc0 ? 16 : 24;
    return { bits: 32 as const, n: clear(ip.n, 32, prefix), prefix };
  });
  const out = new RSet();
  for (const bits of [32, 128] as const) {
    const ranges = nets
      .filter((n) => n.bits === bits)
      .map((n) => ({ first: n.n, last: last(n), net: n as Network | undefined }))
      .sort((a, b) => (a.last !== b.last ? (a.last < b.last ? -1 : 1) : a.first < b.first ? -1 : a.first > b.first ? 1 : 0));
    for (let i = ranges.length - 1; i > 0; i--) {
      const cur = ranges[i]!;
      const prev = ranges[i - 1]!;
      if (cur.first - 1n <= prev.last) {
        ranges[i - 1] = { first: prev.first < cur.first ? prev.first : cur.first, last: cur.last, net: undefined };
        ranges.splice(i, 1);
      }
    }
    for (const r of ranges) for (const n of r.net ? [r.net] : rangeToCIDRs(r.first, r.last, bits)) out.add(netText(n));
  }
  return out;
}

export const netBuiltins = [
  builtin("net.cidr_contains", 2, (args) => cidrContains(str(args, 0), str(args, 1))),
  builtin("net.cidr_intersects", 2, (args) => {
    const a = parseCIDR(str(args, 0));
    const b = parseCIDR(str(args, 1));
    return contains(a, b) || contains(b, a);
  }),
  builtin("net.cidr_is_valid", 1, ([v]) => {
    if (typeof v !== "string") return false;
    try {
      parseCIDR(v);
      return true;
    } catch {
      return false;
    }
  }),
  builtin("net.cidr_expand", 1, (args) => {
    const net = parseCIDR(str(args, 0));
    const size = 1n << BigInt(net.bits - net.prefix);
    if (size > BigInt(MAX_EXPANDED)) throw new BuiltinError(`net.cidr_expand: more than ${MAX_EXPANDED} addresses`);
    const out = new RSet();
    for (let i = 0n; i < size; i++) out.add(ipText({ bits: net.bits, n: net.n + i }));
    return out;
  }),
  builtin("net.cidr_contains_matches", 2, (args) => {
    const out = new RSet();
    for (const [a, ka] of matchEntries(args[0]!, 1)) for (const [b, kb] of matchEntries(args[1]!, 2)) if (cidrContains(a, b)) out.add([ka, kb]);
    return out;
  }),
  builtin("net.cidr_merge", 1, (args) => {
    const v = args[0]!;
    if (!Array.isArray(v) && !(v instanceof RSet)) throw new BuiltinError("operand must be an array");
    return merge(Array.isArray(v) ? v : v.values());
  }),
];
