/**
 * `bun scripts/bench/vault.ts`: the vault's two speed goals, measured side by side in one run.
 * 1. api_call's added latency over a direct request to the same loopback upstream (goal: p50 under 1 ms).
 * 2. Sanitizer throughput on a 10 MiB streamed body with 20 configured secrets (goal: at least 1 GB/s), and on
 *    one whose JSON is full of escapes (`\n`, `\"`, `\u00e9`, `&amp;`, `%25`), which the sanitizer decodes around.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { startRuntime } from "../../src/runtime.ts";
import { vaultCapability, type VaultCapability } from "../../src/vault/capability.ts";
import { Sanitizer } from "../../src/vault/sanitizer.ts";

const token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";
const upstream = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch: (request) =>
    request.headers.get("authorization") === `Bearer ${token}` ? Response.json({ login: "octocat", id: 1 }) : new Response("no", { status: 401 }),
});
const dir = mkdtempSync(join(tmpdir(), "platform-bench-"));
const runtime = await startRuntime(
  loadConfig({ env: { PLATFORM_DATA_DIR: dir, PLATFORM_VAULT__SETUP_ENABLED: "false" } }),
  createLogger({ level: "error", write: () => {} }),
  [vaultCapability],
);
const { vault } = runtime.capabilities.find((c) => c.name === "vault") as VaultCapability;
const caller = { name: "bench", services: ["*"] };
await vault.addService({ name: "gh", template: "github", credential: { token }, base_url: `http://127.0.0.1:${upstream.port}`, allow_addresses: ["loopback"] }, caller);

const rounds = 2000;
const direct = () => fetch(`http://127.0.0.1:${upstream.port}/user`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.text());
const proxied = () => vault.apiCall({ service: "gh", method: "GET", path: "/user" }, caller);
async function sample(run: () => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < 200; i++) await run(); // warm-up
  const times: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}
// Interleaved halves, so drift on a shared machine falls on both sides alike.
const directTimes = [...(await sample(direct)), ...(await sample(direct))].sort((a, b) => a - b);
const proxiedTimes = [...(await sample(proxied)), ...(await sample(proxied))].sort((a, b) => a - b);
const pct = (times: number[], p: number) => times[Math.min(times.length - 1, Math.floor((times.length * p) / 100))]!;

// Sanitizer: 20 secrets over several services, with the token shapes of their templates, on a 10 MiB stream.
const secrets = Array.from({ length: 20 }, (_, i) => ({ service: `svc${i % 5}`, value: `secret-${i}-${crypto.randomUUID()}` }));
const sanitizer = new Sanitizer(secrets, [
  { service: "svc0", pattern: "gh[pousr]_[A-Za-z0-9]{36,251}" },
  { service: "svc1", pattern: "(AKIA|ASIA)[A-Z0-9]{16}" },
]);
const size = 10 * 1024 * 1024;
function bodyOf(line: string): Uint8Array {
  const body = new Uint8Array(size);
  const alphabet = new TextEncoder().encode(line);
  for (let i = 0; i < size; i++) body[i] = alphabet[i % alphabet.length]!;
  for (let k = 0; k < 20; k++) body.set(new TextEncoder().encode(secrets[k]!.value), Math.floor((k * size) / 20) + 7);
  return body;
}
const plainBody = bodyOf('{"id":12345,"name":"repository","description":"text with words and numbers 0123456789"}\n');
// An escape every 20 bytes or so: far denser than real API answers, a bound on what escapes cost.
const escapedBody = bodyOf('{"id":12345,"name":"repo \\"x\\"","description":"line one\\nline two &amp; 50%25 off, caf\\u00e9"}\n');
async function streamOnce(body: Uint8Array, transform: boolean): Promise<number> {
  const source = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < size; i += 64 * 1024) controller.enqueue(body.subarray(i, i + 64 * 1024));
      controller.close();
    },
  });
  const started = performance.now();
  let bytes = 0;
  for await (const chunk of transform ? source.pipeThrough(sanitizer.stream()) : source) bytes += chunk.byteLength;
  const ms = performance.now() - started;
  if (bytes === 0) throw new Error("nothing streamed");
  return ms;
}
/** Seven runs, fastest first: the median is the headline, best and worst show the spread on a shared machine. */
const runs = async (body: Uint8Array, transform: boolean) => {
  const times: number[] = [];
  for (let i = 0; i < 7; i++) times.push(await streamOnce(body, transform));
  return times.sort((a, b) => a - b);
};
const passRuns = await runs(plainBody, false);
const sanitizeRuns = await runs(plainBody, true);
const escapedPassRuns = await runs(escapedBody, false);
const escapedRuns = await runs(escapedBody, true);
const mbps = (ms: number) => size / 1e6 / (ms / 1000);
const streamRow = (label: string, at: number, goal: string, pass = passRuns, sanitized = sanitizeRuns) => [
  label, mbps(pass[at]!).toFixed(0), mbps(sanitized[at]!).toFixed(0), "", `${(sanitized[at]! / pass[at]!).toFixed(2)}x time`, goal,
];

const f = (n: number) => n.toFixed(3);
const rows = [
  ["measure", "direct", "via vault", "added", "ratio", "goal"],
  ["api_call p50 (ms)", f(pct(directTimes, 50)), f(pct(proxiedTimes, 50)), f(pct(proxiedTimes, 50) - pct(directTimes, 50)), `${(pct(proxiedTimes, 50) / pct(directTimes, 50)).toFixed(2)}x`, "added < 1 ms"],
  ["api_call p95 (ms)", f(pct(directTimes, 95)), f(pct(proxiedTimes, 95)), f(pct(proxiedTimes, 95) - pct(directTimes, 95)), `${(pct(proxiedTimes, 95) / pct(directTimes, 95)).toFixed(2)}x`, ""],
  streamRow("10 MiB stream, median (MB/s)", 3, ">= 1000 MB/s sanitized"),
  streamRow("10 MiB stream, best (MB/s)", 0, ""),
  streamRow("10 MiB stream, worst (MB/s)", 6, ""),
  streamRow("10 MiB escape-dense JSON, median (MB/s)", 3, "", escapedPassRuns, escapedRuns),
  streamRow("10 MiB escape-dense JSON, best (MB/s)", 0, "", escapedPassRuns, escapedRuns),
];
const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(widths[i]!)).join("  "));
console.log(`(${rounds * 2} calls each side; sanitizer: 20 secrets x ${new Set(secrets.map((s) => s.service)).size} services, 2 token shapes, 64 KiB chunks, 7 runs)`);

await runtime.close();
upstream.stop(true);
rmSync(dir, { recursive: true, force: true });
