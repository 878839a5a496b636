/**
 * SPIFFE ids (`spiffe://<trust-domain>/<path>`) as the SPIFFE-ID standard defines them: lowercase scheme and
 * trust domain, no port, user info, query or fragment, and a path of non-empty segments that are not `.` or `..`.
 */
import { SpiffeIdError } from "./errors.ts";

export interface SpiffeId {
  /** The whole id, e.g. `spiffe://platform.local/agent/planner`. */
  readonly id: string;
  readonly trustDomain: string;
  /** `/agent/planner`, or `""` for the trust domain's own id. */
  readonly path: string;
}

const scheme = "spiffe://";
const maxLength = 2048;
const trustDomainChars = /^[a-z0-9._-]+$/;
const segmentChars = /^[A-Za-z0-9._-]+$/;

export function parseSpiffeId(text: string): SpiffeId {
  if (typeof text !== "string" || text === "") throw new SpiffeIdError("a SPIFFE id must be a non-empty string");
  if (text.length > maxLength) throw new SpiffeIdError(`a SPIFFE id is at most ${maxLength} characters`);
  if (!text.startsWith(scheme)) throw new SpiffeIdError(`${quote(text)} must start with ${scheme} (lowercase)`);
  const rest = text.slice(scheme.length);
  const slash = rest.indexOf("/");
  const trustDomain = slash < 0 ? rest : rest.slice(0, slash);
  const path = slash < 0 ? "" : rest.slice(slash);
  if (trustDomain === "") throw new SpiffeIdError(`${quote(text)} has no trust domain`);
  if (!trustDomainChars.test(trustDomain))
    throw new SpiffeIdError(
      `${quote(text)} has an invalid trust domain ${quote(trustDomain)}: only lowercase letters, digits, '.', '-' and '_' (no port, user info or uppercase)`,
    );
  if (trustDomain.length > 255) throw new SpiffeIdError(`${quote(text)} has a trust domain longer than 255 characters`);
  if (path !== "") checkPath(text, path);
  return Object.freeze({ id: text, trustDomain, path });
}

function checkPath(text: string, path: string): void {
  if (path.includes("?") || path.includes("#")) throw new SpiffeIdError(`${quote(text)} must not carry a query or fragment`);
  if (path.endsWith("/")) throw new SpiffeIdError(`${quote(text)} must not end with '/'`);
  for (const segment of path.slice(1).split("/")) {
    if (segment === "") throw new SpiffeIdError(`${quote(text)} has an empty path segment`);
    if (segment === "." || segment === "..") throw new SpiffeIdError(`${quote(text)} has a relative path segment '${segment}'`);
    if (!segmentChars.test(segment))
      throw new SpiffeIdError(`${quote(text)} has an invalid path segment ${quote(segment)}: only letters, digits, '.', '-' and '_'`);
  }
}

/**
 * The rules above as one expression: a yes-or-no check on every authorization decision, where parsing (and
 * throwing for a bad id) cost ten times more. parseSpiffeId says what is wrong.
 */
const wellFormed = /^spiffe:\/\/[a-z0-9._-]{1,255}(?:\/(?!\.\.?(?:\/|$))[A-Za-z0-9._-]+)*$/;

/** Ids already found well formed: a workload hears from the same few callers over and over. */
const known = new Set<string>();
const knownLimit = 4096;

export function isSpiffeId(text: unknown): text is string {
  if (typeof text !== "string") return false;
  if (known.has(text)) return true;
  if (text.length > maxLength || !wellFormed.test(text)) return false;
  if (known.size >= knownLimit) known.clear();
  known.add(text);
  return true;
}

/** A trust domain name alone (`platform.local`), checked by the same rules as inside an id. */
export function parseTrustDomain(name: string): string {
  return parseSpiffeId(`${scheme}${name}`).trustDomain;
}

export const spiffeIdOf = (trustDomain: string, path: string) => parseSpiffeId(`${scheme}${trustDomain}${path}`).id;

/**
 * A peer pattern: an exact id, or `<id>/*` matching every id strictly under that prefix (not the prefix itself).
 * Throws for a malformed pattern, so a bad marker fails at registration rather than at the first call.
 */
export function peerMatcher(pattern: string): (id: string | undefined) => boolean {
  if (pattern.endsWith("/*")) {
    const prefix = parseSpiffeId(pattern.slice(0, -2)).id + "/";
    return (id) => id !== undefined && id.startsWith(prefix) && isSpiffeId(id);
  }
  const exact = parseSpiffeId(pattern).id;
  return (id) => id === exact;
}

const quote = (s: string) => JSON.stringify(s.length > 80 ? `${s.slice(0, 80)}...` : s);
