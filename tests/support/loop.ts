/**
 * Fails any test during which this process's event loop stood still longer than 200 ms: a server under test in
 * the same process that spins or blocks shows up as a failing test, not as a slow one. Installed for every suite
 * by bunfig.toml's preload (tests/support/stalls.ts). A test whose own synchronous work is the point (an engine
 * evaluating a huge input) raises its limit with `allowStall`. For a server in a child process, assert on its
 * /health `eventLoop.maxLagMs` instead.
 */
import { afterAll, afterEach, beforeEach } from "bun:test";
import { LoopLag } from "../../src/loop-lag.ts";

const defaultLimitMs = 200;
let limitMs = defaultLimitMs;
let why = "";

/** Lets the running test stand still up to `ms`, for the reason given (it is printed if even that is passed). */
export function allowStall(ms: number, reason: string): void {
  limitMs = ms;
  why = ` (allowed for this test: ${reason})`;
}

export function failOnStalls(): void {
  const lag = new LoopLag(10).start();
  beforeEach(() => {
    limitMs = defaultLimitMs;
    why = "";
    lag.takePeak();
  });
  afterEach(() => {
    const peak = lag.takePeak();
    if (peak > limitMs) throw new Error(`the event loop stood still for ${peak} ms during this test; the limit is ${limitMs} ms${why}`);
  });
  afterAll(() => lag.stop());
}
