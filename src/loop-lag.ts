/**
 * How late the event loop runs: a timer asks to run every `intervalMs` and records by how much it was late.
 * A loop that stood still shows as one late run as long as the stall. (Bun's monitorEventLoopDelay does not see
 * a stall, so the measurement is our own.) The timer never keeps the process alive.
 */
export interface LoopLagStats {
  /** How late the latest run was, in ms. */
  lagMs: number;
  /** The longest stall in the last minute, in ms. */
  maxLagMs: number;
  /** Runs measured since start. */
  samples: number;
}

const windowSeconds = 60;

export class LoopLag {
  /** The worst lag of each of the last `windowSeconds` seconds, by second. */
  readonly #worst = new Map<number, number>();
  #timer?: ReturnType<typeof setInterval>;
  #last = 0;
  #lag = 0;
  #samples = 0;

  constructor(private readonly intervalMs = 50) {}

  start(): this {
    this.#last = performance.now();
    this.#timer = setInterval(() => this.#tick(), this.intervalMs);
    this.#timer.unref();
    return this;
  }

  stop(): void {
    clearInterval(this.#timer);
  }

  stats(): LoopLagStats {
    const since = this.#second() - windowSeconds;
    // A stall that ended just now, before the timer could run, counts already.
    let max = this.#timer ? this.#pending() : 0;
    for (const [second, worst] of this.#worst) if (second > since && worst > max) max = worst;
    return { lagMs: round(this.#lag), maxLagMs: round(max), samples: this.#samples };
  }

  #tick(): void {
    const now = performance.now();
    this.#lag = Math.max(0, now - this.#last - this.intervalMs);
    this.#last = now;
    this.#samples++;
    const second = this.#second();
    if (this.#lag > (this.#worst.get(second) ?? -1)) this.#worst.set(second, this.#lag);
    for (const old of this.#worst.keys()) if (old <= second - windowSeconds) this.#worst.delete(old);
  }

  /** How late the timer's next run already is. */
  #pending(): number {
    return Math.max(0, performance.now() - this.#last - this.intervalMs);
  }

  #second(): number {
    return Math.floor(performance.now() / 1000);
  }
}

const round = (ms: number) => Math.round(ms * 10) / 10;
