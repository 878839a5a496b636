/**
 * The one REST client of the chat server: @discordjs/rest keeps the route buckets, Retry-After, the global limit
 * and 5xx retries. Two gaps in its bookkeeping, found by the Discord stand-in's count of requests that break a
 * bucket, are closed here by telling the library's own handlers what it was told, not by limiting anything
 * beside it.
 */
import { REST, type RateLimitData } from "@discordjs/rest";
import type { Logger } from "../log.ts";
import type { ChatConfig } from "./service.ts";

export function restClient(config: ChatConfig, token: string, log: Logger): REST {
  const rest: REST = new REST({
    api: config.api_base,
    version: "10",
    globalRequestsPerSecond: config.global_requests_per_second,
    timeout: config.request_timeout_ms,
    // A wait past the allowance is answered as RateLimitError with the wait, not waited out.
    rejectOnRateLimit: (limit) => {
      holdBucket(rest, limit);
      return limit.retryAfter > config.max_wait_ms;
    },
  }).setToken(token);
  rest.on("rateLimited", (info) => log.debug("chat rate limit", { route: info.route, global: info.global, retryAfter: info.retryAfter }));
  keepLearnedBuckets(rest);
  return rest;
}

/** The parts of the library's request handler (SequentialHandler) that say when its bucket opens again. */
interface BucketState {
  remaining: number;
  reset: number;
}

/**
 * A 429's Retry-After binds the bucket (Discord's rate-limit documentation), but the library goes by the bucket's
 * headers: when they say requests are left, it takes the 429 for a sublimit of a few routes and lets the bucket's
 * other requests go on at once; when they say the bucket resets sooner than Retry-After, it waits only for that
 * reset. Either way the next request meets another 429. The bucket is marked spent until Retry-After has passed,
 * so its requests wait, or are rejected when that is past chat.max_wait_ms.
 */
function holdBucket(rest: REST, { global, hash, majorParameter, retryAfter, timeToReset }: RateLimitData): void {
  // The global limit the library keeps itself. Before holding a request back for the bucket's own reset, the library
  // asks too, with both waits the same; only a 429 brings a Retry-After of its own.
  if (global || retryAfter === timeToReset) return;
  const handler = rest.handlers.get(`${hash}:${majorParameter}`) as unknown as BucketState | undefined;
  if (!handler) return;
  handler.remaining = 0;
  handler.reset = Math.max(handler.reset, Date.now() + retryAfter);
}

/**
 * The library queues a route's first requests on a provisional handler (`Global(<method>:<route>):<major>`) until
 * an answer names the route's bucket; later requests go to a handler keyed by that bucket, created afresh, which
 * knows nothing of what the answers said (remaining 0, resets in 10 s), so its first request could break the
 * bucket. Here the handler that learned the bucket goes on serving it under the bucket's key.
 */
function keepLearnedBuckets(rest: REST): void {
  const { hashes, handlers } = rest;
  const set = hashes.set.bind(hashes);
  hashes.set = (route, hash) => {
    if (hashes.get(route)?.value !== hash.value) {
      const provisional = `Global(${route}):`;
      for (const [id, handler] of handlers) {
        const key = `${hash.value}:${id.slice(provisional.length)}`;
        if (id.startsWith(provisional) && !handlers.has(key)) handlers.set(key, handler);
      }
    }
    return set(route, hash);
  };
}
