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

export class SlidingWindowLimiter {
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
      return { allowed: false, limit, remaining: 0, reset, retryAfter: this.#secondsUntilFree(counts, limit, now, window) };
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

  /** The earliest moment the weighted count drops low enough for one more request. */
  #secondsUntilFree({ current, previous }: Counts, limit: number, now: number, window: number): number {
    const start = window * this.#windowMs;
    let at: number;
    if (current + 1 <= limit) {
      // Wait for enough of the previous window to slide out: previous * (1 - x) + current <= limit - 1.
      at = start + this.#windowMs * (1 - (limit - 1 - current) / previous);
    } else {
      // Even the current window alone is full; it must become the previous one and slide out in turn.
      at = start + this.#windowMs + this.#windowMs * (1 - (limit - 1) / current);
    }
    return Math.max(1, Math.ceil((at - now) / 1000));
  }

  /** Forgets keys idle for two windows, at most once per window. */
  #prune(window: number) {
    if (this.#lastPrune === window) return;
    this.#lastPrune = window;
    for (const [key, counts] of this.#counts) if (counts.window < window - 1) this.#counts.delete(key);
  }
}
