/**
 * Rate limits as Discord documents them (Topics > Rate Limits): per-route buckets keyed by the bucket and the
 * top-level resource (channel, guild or webhook id), a global limit per second for the bot, and 429 answers with
 * Retry-After, X-RateLimit-Scope and, for the global limit, X-RateLimit-Global. Every request that arrives while
 * its bucket (or the global limit) is known to be exhausted, or before a 429's Retry-After has passed, is counted
 * as a break: a well-behaved client makes none.
 */

export interface BucketRule {
  /** The X-RateLimit-Bucket hash: routes sharing one share a limit. */
  bucket: string;
  limit: number;
  windowMs: number;
}

interface BucketState {
  remaining: number;
  resetAt: number;
  /** A 429 told the client to wait until then. */
  blockedUntil: number;
}

export interface Storm {
  /** Share of requests answered 429 (scope shared) whatever their bucket holds. */
  rate: number;
  retryAfterMs: number;
  /** How many 429s to send before the storm ends by itself; unbounded if left out. */
  count?: number;
}

export interface LimitVerdict {
  /** Headers every answer on this bucket carries. */
  headers: Record<string, string>;
  /** Set when the request is answered 429 instead. */
  tooMany?: Response;
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3);

export class RateLimits {
  readonly #buckets = new Map<string, BucketState>();
  #global = { count: 0, resetAt: 0, blockedUntil: 0 };
  /** Requests that arrived while their limit was known to be exhausted. */
  breaks = 0;
  /** What each break was, for a reader who wants to know. */
  readonly breakLog: { bucket: string; resource: string; why: "global" | "retry-after" | "exhausted"; at: number }[] = [];
  /** Every 429 sent, by scope. */
  readonly sent429 = { user: 0, global: 0, shared: 0 };
  storm?: Storm;
  random: () => number = Math.random;

  constructor(public globalPerSecond: number) {}

  /** Counts one request on `rule` for `resource` and says how to answer it. */
  take(rule: BucketRule, resource: string, now = Date.now()): LimitVerdict {
    const key = `${rule.bucket}:${resource}`;
    let state = this.#buckets.get(key);
    if (!state || now >= state.resetAt) {
      state = { remaining: rule.limit, resetAt: now + rule.windowMs, blockedUntil: state?.blockedUntil ?? 0 };
      this.#buckets.set(key, state);
    }
    const global = this.#takeGlobal(now);
    const headers = {
      "x-ratelimit-bucket": rule.bucket,
      "x-ratelimit-limit": String(rule.limit),
      "x-ratelimit-remaining": String(Math.max(0, state.remaining - 1)),
      "x-ratelimit-reset": (state.resetAt / 1000).toFixed(3),
      "x-ratelimit-reset-after": seconds(state.resetAt - now),
    };
    if (global) {
      this.#broke(rule, resource, "global", now);
      return { headers, tooMany: this.#tooMany(global, "global", { "x-ratelimit-global": "true" }) };
    }
    if (now < state.blockedUntil) {
      this.#broke(rule, resource, "retry-after", now);
      return { headers, tooMany: this.#tooMany(state.blockedUntil - now, "user", { ...headers, "x-ratelimit-remaining": "0" }) };
    }
    if (state.remaining <= 0) {
      this.#broke(rule, resource, "exhausted", now);
      state.blockedUntil = state.resetAt;
      return { headers, tooMany: this.#tooMany(state.resetAt - now, "user", { ...headers, "x-ratelimit-remaining": "0" }) };
    }
    const storm = this.storm;
    if (storm && this.random() < storm.rate) {
      if (storm.count !== undefined && --storm.count <= 0) this.storm = undefined;
      // A shared resource's limit: not the client's doing, so not a break; its Retry-After binds all the same.
      state.blockedUntil = now + Math.ceil(storm.retryAfterMs / 1000) * 1000;
      return { headers, tooMany: this.#tooMany(storm.retryAfterMs, "shared", headers) };
    }
    state.remaining--;
    return { headers };
  }

  /** The wait when the global limit is exceeded by this request, else 0. */
  #takeGlobal(now: number): number {
    const global = this.#global;
    if (now < global.blockedUntil) return global.blockedUntil - now;
    if (now >= global.resetAt) this.#global = { count: 0, resetAt: now + 1000, blockedUntil: 0 };
    if (++this.#global.count <= this.globalPerSecond) return 0;
    this.#global.blockedUntil = this.#global.resetAt;
    return this.#global.resetAt - now;
  }

  #broke(rule: BucketRule, resource: string, why: "global" | "retry-after" | "exhausted", at: number): void {
    this.breaks++;
    this.breakLog.push({ bucket: rule.bucket, resource, why, at });
  }

  #tooMany(waitMs: number, scope: "user" | "global" | "shared", headers: Record<string, string>): Response {
    this.sent429[scope]++;
    const retryAfter = Math.max(waitMs, 1) / 1000;
    return Response.json(
      { message: "You are being rate limited.", retry_after: Number(retryAfter.toFixed(3)), global: scope === "global" },
      { status: 429, headers: { ...headers, "retry-after": String(Math.ceil(retryAfter)), "x-ratelimit-scope": scope } },
    );
  }

  reset(): void {
    this.#buckets.clear();
    this.#global = { count: 0, resetAt: 0, blockedUntil: 0 };
    this.breaks = 0;
    this.breakLog.length = 0;
    this.storm = undefined;
    Object.assign(this.sent429, { user: 0, global: 0, shared: 0 });
  }
}
