/**
 * Egress policy: the agent supplies a method and a path, never a host. The URL is always the service's base
 * URL plus that path; the host must resolve to public addresses unless the service explicitly allows an
 * address class (loopback, private, link-local, cloud metadata); method and path must be on the allowlists.
 * The address parser and the resolver are loaded with the first call through the vault, not at start-up.
 */
import type ipaddr from "ipaddr.js";
import { VaultError } from "./errors.ts";
import type { AddressClass, ServiceSettings } from "./model.ts";

const controlCharacters = /[\u0000-\u001f\u007f]/;
// Headers that frame the request or carry identity: the proxy sets them, an agent may not.
const reservedHeaders = new Set([
  "host", "authorization", "proxy-authorization", "cookie", "content-length", "transfer-encoding", "connection",
  "upgrade", "te", "trailer", "keep-alive", "expect", "forwarded", "x-forwarded-for", "x-forwarded-host",
]);
const headerName = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$/;

/** The full URL for a call: base URL + path (+ query). Refuses anything that could change the host. */
export function targetUrl(settings: ServiceSettings, path: string, query: Record<string, string> = {}): URL {
  if (!path.startsWith("/") || path.startsWith("//")) throw VaultError.invalid("path must start with a single / (a path on the service, never a URL)");
  if (controlCharacters.test(path)) throw VaultError.invalid("path contains control characters (CR, LF or other)");
  if (path.includes("\\") || path.includes("#")) throw VaultError.invalid("path may not contain \\ or #");
  const [pathPart = "", search = ""] = splitOnce(path, "?");
  const segments = pathPart.split("/").map((s) => safeDecode(s).toLowerCase());
  if (segments.some((s) => s === ".." || s === "." || s.includes("/") || s.includes("\\")))
    throw VaultError.invalid("path may not contain . or .. segments (plain or percent-encoded)");
  const base = new URL(settings.base_url);
  const url = new URL(base.href);
  url.pathname = base.pathname.replace(/\/$/, "") + pathPart;
  url.search = search;
  for (const [key, value] of Object.entries(query)) {
    if (controlCharacters.test(key) || controlCharacters.test(value)) throw VaultError.invalid("query contains control characters");
    url.searchParams.append(key, value);
  }
  if (url.origin !== base.origin) throw new VaultError("EGRESS_DENIED", "the request would leave the service's host");
  return url;
}

export function assertAllowed(settings: ServiceSettings, method: string, path: string): void {
  if (!settings.allow_methods.includes(method as never))
    throw new VaultError("NOT_ALLOWED", `${method} is not allowed for this service (allowed: ${settings.allow_methods.join(", ") || "none"})`);
  const bare = path.split("?")[0]!;
  if (!settings.allow_paths.some((pattern) => new Bun.Glob(pattern).match(bare)))
    throw new VaultError("NOT_ALLOWED", `${bare} is not on this service's path allowlist`);
}

/** Agent-supplied headers, checked: no CR/LF, no reserved names, nothing the credential injection owns. */
export function agentHeaders(headers: Record<string, string> = {}, owned: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const ownedLower = new Set(owned.map((h) => h.toLowerCase()));
  for (const [name, value] of Object.entries(headers)) {
    if (!headerName.test(name)) throw VaultError.invalid(`header name ${JSON.stringify(name.slice(0, 64))} is not a valid token`);
    if (controlCharacters.test(value.replace(/\t/g, ""))) throw VaultError.invalid(`header ${name} contains CR, LF or other control characters`);
    const lower = name.toLowerCase();
    if (reservedHeaders.has(lower) || ownedLower.has(lower) || lower.startsWith("x-amz-"))
      throw VaultError.invalid(`header ${name} is set by the proxy and may not be supplied`);
    out[lower] = value;
  }
  return out;
}

/** Resolves the host and refuses addresses in classes the service does not allow. */
export async function assertPublicAddress(hostname: string, allowed: AddressClass[]): Promise<void> {
  const { default: ip } = await import("ipaddr.js");
  const host = hostname.replace(/^\[|\]$/g, "");
  for (const address of ip.isValid(host) ? [host] : await resolve(host)) {
    const kind = classify(ip.process(address));
    if (kind !== "public" && !allowed.includes(kind as AddressClass))
      throw new VaultError("EGRESS_DENIED", `${hostname} resolves to a ${kind.replace("_", "-")} address, which this service does not allow`);
  }
}

async function resolve(host: string): Promise<string[]> {
  try {
    const { lookup } = await import("node:dns/promises");
    return (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    throw new VaultError("UPSTREAM_UNREACHABLE", `${host} does not resolve`);
  }
}

const metadataAddresses = new Set(["169.254.169.254", "169.254.170.2", "100.100.100.200", "fd00:ec2::254"]);

function classify(parsed: ipaddr.IPv4 | ipaddr.IPv6): AddressClass | "public" | "reserved" {
  if (metadataAddresses.has(parsed.toNormalizedString()) || metadataAddresses.has(parsed.toString())) return "metadata";
  switch (parsed.range()) {
    case "unicast":
      return "public";
    case "loopback":
    case "unspecified":
      return "loopback";
    case "private":
    case "uniqueLocal":
    case "carrierGradeNat":
      return "private";
    case "linkLocal":
      return "link_local";
    default:
      return "reserved";
  }
}

function splitOnce(value: string, separator: string): [string, string] {
  const at = value.indexOf(separator);
  return at < 0 ? [value, ""] : [value.slice(0, at), value.slice(at + 1)];
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw VaultError.invalid("path contains a malformed percent-encoding");
  }
}
