/**
 * Browsers on other origins calling /v2 (catalog.cors_origins): which origins may, what their scripts may send and
 * read, and the answer to a preflight. An origin not listed gets no CORS headers, so its browser keeps the answer
 * from the page; its preflight is refused outright, which says why in the browser's network log.
 */
import { forbidden } from "./errors.ts";

const methods = "GET, POST, PATCH, DELETE";
const requestHeaders = "Authorization, Content-Type, X-API-Key, Idempotency-Key, If-None-Match, X-Request-Id";
/** What a script may read of an answer, beyond the headers every browser shows. */
const exposedHeaders = "ETag, Retry-After, WWW-Authenticate, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-Request-Id, Idempotent-Replayed";
/** How long a browser may reuse a preflight's answer, in seconds. */
const preflightSeconds = "600";

export class CorsPolicy {
  readonly #any: boolean;
  readonly #origins: Set<string>;

  /** `origins` as configured: web origins (`https://shop.example`), or `*` for any. */
  constructor(origins: readonly string[]) {
    this.#any = origins.includes("*");
    // As browsers send them: lower-case scheme and host, no default port.
    this.#origins = new Set(origins.filter((o) => o !== "*").map((o) => new URL(o).origin));
  }

  /** The headers an answer to a request from `origin` carries (set on every /v2 answer). */
  headers(origin: string | null): Record<string, string> {
    // With a list, the answer depends on the Origin header, and caches must know it.
    const vary: Record<string, string> = this.#any || !this.#origins.size ? {} : { vary: "Origin" };
    if (!origin || !(this.#any || this.#origins.has(origin))) return vary;
    return { ...vary, "access-control-allow-origin": this.#any ? "*" : origin, "access-control-expose-headers": exposedHeaders };
  }

  /** A preflight's answer: 204 with what may be sent, or a 403 error for an origin that may not call. */
  preflight(origin: string | null): Response {
    if (!origin || !(this.#any || this.#origins.has(origin)))
      throw forbidden(`Origin ${origin ?? "(none)"} may not call this API from a browser; catalog.cors_origins lists those that may`);
    return new Response(null, {
      status: 204,
      headers: { "access-control-allow-methods": methods, "access-control-allow-headers": requestHeaders, "access-control-max-age": preflightSeconds },
    });
  }
}
