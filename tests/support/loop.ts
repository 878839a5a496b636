/**
 * Fails any test during which this process's event loop stood still longer than 200 ms: a server under test in
 * the same process that spins or blocks shows up as a failing test, not as a slow one. A suite that serves from
 * its own process calls `failOnStalls()` at its top (start-up in `beforeAll` is not counted: it may block, as a
 * process's start-up does). A test whose own synchronous work is the point raises its limit with `allowStall`.
 * For a server in a child process, assert on its /health `eventLoop.maxLagMs` instead.
 *
 * A stall is counted in the CPU time the process spent while its timer was late, not in wall time: on a machine
 * busy with the suite's other processes a timer also runs late when the process merely waited its turn for a
 * core, and that is no fault of the code under test; a loop that spins or blocks burns its own CPU all along.
 */
import { afterAll, afterEach, beforeEach } from "bun:test";

const defaultLimitMs = 200;
const intervalMs = 10;
let limitMs = defaultLimitMs;
let why = "";

/** Lets the running test stand still up to `ms`, for the reason given (it is printed if even that is passed). */
export function allowStall(ms: number, reason: string): void {
  limitMs = ms;
  why = ` (allowed for this test: ${reason})`;
}

export function failOnStalls(): void {
  let wall = performance.now();
  let cpu = cpuMs();
  let peak = 0;
  /** Closes the interval since the last look: how long it stood still, counted in CPU time spent meanwhile. */
  const look = () => {
    const [nowWall, nowCpu] = [performance.now(), cpuMs()];
    const late = Math.max(0, nowWall - wall - intervalMs);
    peak = Math.max(peak, Math.min(late, nowCpu - cpu));
    [wall, cpu] = [nowWall, nowCpu];
  };
  const timer = setInterval(look, intervalMs);
  timer.unref();
  beforeEach(() => {
    limitMs = defaultLimitMs;
    why = "";
    look();
    peak = 0;
  });
  afterEach(() => {
    look(); // a stall that ended just now, before the timer could run, counts too
    if (peak > limitMs) throw new Error(`the event loop stood still for ${Math.round(peak)} ms during this test; the limit is ${limitMs} ms${why}`);
  });
  afterAll(() => clearInterval(timer));
}

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}
