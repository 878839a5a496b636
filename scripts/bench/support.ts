/** Shared pieces of the benchmark scripts: statistics, a table printer, and a loopback load generator. */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export const root = join(import.meta.dir, "../..");

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? NaN;
}
export const median = (values: number[]) => percentile(values, 50);

/**
 * Runs every measure once a round, each round starting with the next one, so that a stretch in which the
 * machine is slow slows every contender alike. Returns each measure's results, round by round.
 */
export async function inTurns<T>(rounds: number, measures: (() => Promise<T>)[], beforeRound?: () => void): Promise<T[][]> {
  const results = measures.map((): T[] => []);
  for (let r = 0; r < rounds; r++) {
    beforeRound?.();
    for (let j = 0; j < measures.length; j++) {
      const i = (r + j) % measures.length;
      results[i]!.push(await measures[i]!());
    }
  }
  return results;
}

/** Prints rows as an aligned table; the first row is the header. */
export function printTable(rows: (string | number)[][]): void {
  const cells = rows.map((row) => row.map(String));
  const widths = cells[0]!.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? "").length)));
  const line = (r: string[]) => `| ${r.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  console.log(line(cells[0]!));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const r of cells.slice(1)) console.log(line(r));
}

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/**
 * Drives `url` with autocannon in its own Node.js process (so the generator never shares an event loop with
 * the server under test) for `seconds` with `connections` concurrent connections.
 */
export async function load(url: string, { connections = 64, seconds = 5, method = "GET", body, headers = {} }: {
  connections?: number;
  seconds?: number;
  method?: string;
  body?: string;
  headers?: Record<string, string>;
} = {}): Promise<LoadResult> {
  const args = ["-c", String(connections), "-d", String(seconds), "-m", method, "--json"];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}=${v}`);
  if (body !== undefined) args.push("-b", body);
  const proc = Bun.spawn(["node", join(root, "node_modules/autocannon/autocannon.js"), ...args, url], { stdout: "pipe", stderr: "ignore" });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  const r = JSON.parse(out);
  return { requestsPerSecond: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx };
}

/** One stretch of load: requests that succeeded, failures, the time it took, and each success's latency (ms). */
export interface Round {
  completed: number;
  errors: number;
  seconds: number;
  latencies: number[];
}

/**
 * Closed-loop load from this process: `clients` loops, each sending one request after the other for `seconds`.
 * A request counts as completed when `send` resolves true; false or a rejection counts as an error.
 */
export async function closedLoop(clients: number, seconds: number, send: () => Promise<boolean>): Promise<Round> {
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < end) {
        const t0 = performance.now();
        const ok = await send().catch(() => false);
        if (ok) latencies.push(performance.now() - t0);
        else errors++;
      }
    }),
  );
  return { completed: latencies.length, errors, seconds: (performance.now() - started) / 1000, latencies };
}

/** Rounds pooled into one: counts and time add up, latencies are merged. */
export function pooled(rounds: Round[]): Round {
  return {
    completed: rounds.reduce((n, r) => n + r.completed, 0),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
    seconds: rounds.reduce((n, r) => n + r.seconds, 0),
    latencies: rounds.flatMap((r) => r.latencies),
  };
}

/** A stream's text line by line (a child process's output). */
export async function* lines(stream: ReadableStream<Uint8Array<ArrayBuffer>>): AsyncGenerator<string> {
  let buffered = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      yield buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
    }
  }
}

/** The first line a child prints (its port or URL); throws, naming `who`, if it exits first. */
export async function firstLine(stream: ReadableStream<Uint8Array<ArrayBuffer>>, who: string): Promise<string> {
  const { value, done } = await lines(stream).next();
  if (done) throw new Error(`${who} exited before listening`);
  return value;
}

const clockTicks = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;

/**
 * A process's CPU time in seconds (Linux): user and system, its own and, with `children`, that of the children it
 * has waited for (so the time of a child that ended between two readings is not lost).
 */
export async function cpuSeconds(pid: number, { children = true } = {}): Promise<number> {
  const fields = statFields(await Bun.file(`/proc/${pid}/stat`).text());
  const ticks = Number(fields[11]) + Number(fields[12]) + (children ? Number(fields[13]) + Number(fields[14]) : 0);
  return ticks / clockTicks;
}

/**
 * The CPU time the whole machine has spent busy, in seconds summed over its cores (Linux, /proc/stat): read
 * before and after a run, the difference over the wall time is how many cores the run kept busy.
 */
export async function machineBusySeconds(): Promise<number> {
  const [, user, nice, system, , , irq, softirq, steal] = (await Bun.file("/proc/stat").text()).split("\n")[0]!.trim().split(/\s+/).map(Number);
  return (user! + nice! + system! + irq! + softirq! + steal!) / clockTicks;
}

/** The fields of /proc/<pid>/stat after the command name (which may hold spaces): [0] is the state, [1] the parent. */
export function statFields(stat: string): string[] {
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Reads a process's resident set size in MiB (Linux). */
export async function rssMiB(pid: number): Promise<number> {
  const status = await Bun.file(`/proc/${pid}/status`).text();
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1]);
  return kb / 1024;
}

/** The pid of the PostgreSQL server listening on `port` (its command line names the port). */
export function postmasterOf(port: number): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const args = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (args[0]?.endsWith("postgres") && args[args.indexOf("-p") + 1] === String(port)) return Number(entry);
    } catch {
      // gone meanwhile
    }
  }
  throw new Error(`no PostgreSQL server found listening on port ${port}`);
}

/** CPU seconds of a process and of all its children, living or ended (PostgreSQL's backends are the postmaster's children). */
export async function treeCpuSeconds(parent: number): Promise<number> {
  let total = await cpuSeconds(parent);
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(await Bun.file(`/proc/${entry}/stat`).text());
      if (Number(fields[1]) === parent) total += await cpuSeconds(Number(entry), { children: false });
    } catch {
      // ended meanwhile: its time is in the parent's children's time
    }
  }
  return total;
}
