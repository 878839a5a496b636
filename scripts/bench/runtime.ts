/**
 * Runtime foundation benchmark: start-up to the first /health 200 (source and compiled), compiled MCP stdio
 * round trip, idle RSS, and /health throughput against a bare Bun.serve sending the same JSON, side by side
 * in rounds that take turns.
 *   bun scripts/bench/runtime.ts [--runs 10] [--seconds 5]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { firstLine, inTurns, lines, load, type LoadResult, median, printTable, root, rssMiB } from "./support.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "10" }, seconds: { type: "string", default: "5" } } });
const runs = Number(values.runs);
const seconds = Number(values.seconds);
const work = mkdtempSync(join(tmpdir(), "platform-bench-"));
const executable = join(work, "platform");
const source = ["bun", join(root, "src/main.ts")];

async function startServe(command: string[], dataDir: string) {
  const started = performance.now();
  const proc = Bun.spawn([...command, "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir], {
    stdout: "ignore",
    stderr: "pipe",
    // The setup page gets a free port so that runs never contend for its fixed one.
    env: { ...process.env, LOG_LEVEL: "info", PLATFORM_VAULT__SETUP_PORT: "0" },
  });
  const stderr = lines(proc.stderr);
  let url: string | undefined;
  for await (const line of stderr) if (line.includes('"message":"listening"') && (url = /"url":"([^"]+)"/.exec(line)?.[1])) break;
  if (!url) throw new Error("serve exited before listening");
  void drain(stderr); // keep reading so a chatty server never blocks on a full pipe
  const res = await fetch(`${url}/health`);
  if (res.status !== 200) throw new Error(`health answered ${res.status}`);
  const ms = performance.now() - started;
  return { proc, url, ms, health: await res.text() };
}

async function drain(rest: AsyncGenerator<string>): Promise<void> {
  for await (const _ of rest);
}

async function startupMs(command: string[]): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const { proc, ms } = await startServe(command, join(work, `startup-${i}`));
    times.push(ms);
    proc.kill("SIGTERM");
    await proc.exited;
  }
  return times;
}

async function mcpRoundTripMs(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const client = new Client({ name: "bench", version: "1" });
    await client.connect(new StdioClientTransport({ command: executable, args: ["mcp", "platform", "--data-dir", join(work, `mcp-${i}`)], stderr: "ignore" }));
    await client.listTools();
    times.push(performance.now() - started);
    await client.close();
  }
  return times;
}

/** Rounds as one result: mean requests per second, median p50 and p99, errors summed. */
function pooled(rounds: LoadResult[]): LoadResult {
  const sum = (f: (r: LoadResult) => number) => rounds.reduce((n, r) => n + f(r), 0);
  return {
    requestsPerSecond: sum((r) => r.requestsPerSecond) / rounds.length,
    p50: median(rounds.map((r) => r.p50)),
    p99: median(rounds.map((r) => r.p99)),
    errors: sum((r) => r.errors),
    non2xx: sum((r) => r.non2xx),
  };
}

const build = Bun.spawnSync(["bun", join(root, "scripts/build.ts"), "--outfile", executable], { stdout: "ignore", stderr: "inherit" });
if (build.exitCode !== 0) throw new Error("build failed");

try {
  const fromSource = median(await startupMs(source));
  const compiled = median(await startupMs([executable]));
  const mcp = median(await mcpRoundTripMs());

  const platform = await startServe([executable], join(work, "load"));
  const idleRss = await rssMiB(platform.proc.pid);
  const healthFile = join(work, "health.json");
  writeFileSync(healthFile, platform.health);
  const bare = Bun.spawn(["bun", join(import.meta.dir, "bare-health.ts"), healthFile], { stdout: "pipe", stderr: "inherit" });
  const barePort = await firstLine(bare.stdout, "the bare server");
  const rounds = Math.max(1, Math.min(5, seconds));
  const [ours, theirs] = (
    await inTurns(rounds, [
      () => load(`${platform.url}/health`, { seconds: seconds / rounds }),
      () => load(`http://127.0.0.1:${barePort}/health`, { seconds: seconds / rounds }),
    ])
  ).map(pooled) as [LoadResult, LoadResult];
  platform.proc.kill("SIGTERM");
  bare.kill("SIGTERM");
  await Promise.all([platform.proc.exited, bare.exited]);

  const f = (n: number) => n.toFixed(1);
  console.log(`\nRuntime foundation (${runs} runs each, medians; load: 64 connections, ${seconds} s in ${rounds} rounds taking turns, autocannon)\n`);
  printTable([
    ["measure", "result", "goal", "met"],
    ["serve start -> first /health 200, source", `${f(fromSource)} ms`, "< 150 ms", fromSource < 150 ? "yes" : "no"],
    ["serve start -> first /health 200, compiled", `${f(compiled)} ms`, "< 100 ms", compiled < 100 ? "yes" : "no"],
    ["compiled mcp: spawn + initialize + tools/list", `${f(mcp)} ms`, "< 150 ms", mcp < 150 ? "yes" : "no"],
    ["idle serve RSS (compiled)", `${f(idleRss)} MiB`, "< 80 MB", idleRss * 1.048576 < 80 ? "yes" : "no"],
  ]);
  console.log();
  const ratio = ours.requestsPerSecond / theirs.requestsPerSecond;
  printTable([
    ["GET /health", "req/s", "p50 ms", "p99 ms", "errors"],
    ["platform (Elysia, compiled)", Math.round(ours.requestsPerSecond), ours.p50, ours.p99, ours.errors + ours.non2xx],
    ["bare Bun.serve, same JSON", Math.round(theirs.requestsPerSecond), theirs.p50, theirs.p99, theirs.errors + theirs.non2xx],
    ["ratio platform / bare", `${(ratio * 100).toFixed(0)}%`, "", "", ratio >= 0.7 ? "goal >= 70%: met" : "goal >= 70%: NOT met"],
  ]);
} finally {
  rmSync(work, { recursive: true, force: true });
}
