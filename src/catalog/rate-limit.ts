import type { DbOrTx } from "../db/client.ts";
import { countRateHit, forgetRateWindowsBefore, rateCount } from "./repo.ts";

/**
 * Sliding-window rate limiting, per key, in memory. Each key keeps the counts of the current and the previous
 * fixed window; the previous one is weighted by how much of it still overlaps the sliding window. That is two
 * numbers per key however high the limit, and within a request or two of an exact log of timestamps.
 */
export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds by which the current window has ended. */
  reset: number;
  /** When refused: whole seconds until a request would be allowed again. */
  retryAfter: number;
}

interface Counts {
  window: number;
  current: number;
  previous: number;
}

/** The earliest moment the weighted count drops low enough for one more request. */
function secondsUntilFree({ window, current, previous }: Counts, limit: number, now: number, windowMs: number): number {
  const start = window * windowMs;
  let at: number;
  if (current + 1 <= limit) {
    // Wait for enough of the previous window to slide out: previous * (1 - x) + current <= limit - 1.
    at = start + windowMs * (1 - (limit - 1 - current) / previous);
  } else {
    // Even the current window alone is full; it must become the previous one and slide out in turn.
    at = start + windowMs + windowMs * (1 - (limit - 1) / current);
  }
  return Math.max(1, Math.ceil((at - now) / 1000));
}

export class SlidingWindowLimiter implements RateLimiter {
  readonly #counts = new Map<string, Counts>();
  /** Requests refused so far, for /metrics. */
  refused = 0;
  readonly #windowMs: number;
  readonly #now: () => number;
  #lastPrune = 0;

  constructor(windowSeconds: number, now: () => number = Date.now) {
    this.#windowMs = windowSeconds * 1000;
    this.#now = now;
  }

  /** Counts a request for `key` against `limit`, unless it is refused (refusals are not counted). */
  hit(key: string, limit: number): RateDecision {
    const now = this.#now();
    const window = Math.floor(now / this.#windowMs);
    this.#prune(window);
    const counts = this.#roll(this.#counts.get(key), window);
    const elapsed = (now - window * this.#windowMs) / this.#windowMs;
    const weightedPrevious = counts.previous * (1 - elapsed);
    const used = weightedPrevious + counts.current;
    const reset = Math.ceil(((window + 1) * this.#windowMs) / 1000);
    if (used + 1 > limit) {
      this.refused++;
      this.#counts.set(key, counts);
      return { allowed: false, limit, remaining: 0, reset, retryAfter: secondsUntilFree(counts, limit, now, this.#windowMs) };
    }
    counts.current++;
    this.#counts.set(key, counts);
    return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - used - 1)), reset, retryAfter: 0 };
  }

  #roll(counts: Counts | undefined, window: number): Counts {
    if (!counts || counts.window < window - 1) return { window, current: 0, previous: 0 };
    if (counts.window === window - 1) return { window, current: 0, previous: counts.current };
    return counts;
  }

  /** Forgets keys idle for two windows, at most once per window. */
  #prune(window: number) {
    if (this.#lastPrune === window) return;
    this.#lastPrune = window;
    for (const [key, counts] of this.#counts) if (counts.window < window - 1) this.#counts.delete(key);
  }
}

/** What a limiter answers: the in-memory one on a single node, the store's where nodes share one. */
export interface RateLimiter {
  hit(key: string, limit: number): RateDecision | Promise<RateDecision>;
  /** Requests refused so far by this node, for /metrics. */
  readonly refused: number;
}

/**
 * The same sliding window, counted in the store so that every node sharing it counts into one limit. A request is
 * one conditional upsert of its key's current window (a row lock makes racing nodes take turns at the count); the
 * previous window's count, closed by then, is read once per key and window and kept.
 */
export class SharedWindowLimiter implements RateLimiter {
  refused = 0;
  readonly #windowMs: number;
  readonly #previous = new Map<string, { window: number; count: number }>();
  #lastPrune = 0;

  constructor(
    private readonly db: DbOrTx,
    windowSeconds: number,
    private readonly now: () => number = Date.now,
  ) {
    this.#windowMs = windowSeconds * 1000;
  }

  async hit(key: string, limit: number): Promise<RateDecision> {
    const now = this.now();
    const window = Math.floor(now / this.#windowMs);
    await this.#prune(window);
    const previous = await this.#previousCount(key, window);
    const elapsed = (now - window * this.#windowMs) / this.#windowMs;
    const weightedPrevious = previous * (1 - elapsed);
    // The current window may reach this count: one more request is allowed while weighted previous + count stays within the limit.
    const cap = Math.floor(limit - weightedPrevious);
    const reset = Math.ceil(((window + 1) * this.#windowMs) / 1000);
    const count = cap >= 1 ? await countRateHit(this.db, key, window, cap) : undefined;
    if (count === undefined) {
      this.refused++;
      const current = Math.max(cap, 0);
      return { allowed: false, limit, remaining: 0, reset, retryAfter: secondsUntilFree({ window, current, previous }, limit, now, this.#windowMs) };
    }
    return { allowed: true, limit, remaining: Math.max(0, Math.floor(limit - weightedPrevious - count)), reset, retryAfter: 0 };
  }

  async #previousCount(key: string, window: number): Promise<number> {
    const kept = this.#previous.get(key);
    if (kept?.window === window - 1) return kept.count;
    const count = await rateCount(this.db, key, window - 1);
    this.#previous.set(key, { window: window - 1, count });
    return count;
  }

  /** Forgets windows that no longer count, once a window (every node does it; it is one cheap delete). */
  async #prune(window: number): Promise<void> {
    if (this.#lastPrune === window) return;
    this.#lastPrune = window;
    this.#previous.clear();
    await forgetRateWindowsBefore(this.db, window - 1).catch(() => {});
  }
}
