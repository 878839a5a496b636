/**
 * Embedded Rego engine benchmark: the default authorization policy on 10,000 varied inputs
 * (decisions per second, p50/p99 latency), and memory after loading 100 policies of 50 rules each.
 * Run: bun scripts/bench/rego.ts
 */
import { join } from "node:path";
import { RegoEngine } from "../../src/rego/engine.ts";

const POLICIES = join(import.meta.dir, "../../policies");
const P99_GOAL_US = 50;
const td = "spiffe://platform.local";

function inputs(n: number): unknown[] {
  const callers = ["agent/planner", "agent/order-bot", "agent/reporter", "service/browser-runner", "agent/unknown"];
  const actions = ["catalog:read", "catalog:orders.create", "task.send", "vault:check", "vault:read", "health:read", "mcp:tools.call"];
  const classes = [undefined, "public", "internal", "confidential", "restricted"];
  const out: unknown[] = [];
  for (let i = 0; i < n; i++) {
    const context: Record<string, unknown> = { request_id: `req-${i}` };
    const cls = classes[i % classes.length];
    if (cls) context.data_classification = cls;
    if (i % 7 === 0) context.delegated_by = `${td}/agent/planner`;
    out.push({
      caller_spiffe_id: i % 11 === 0 ? `spiffe://partner.example/${callers[i % callers.length]}` : `${td}/${callers[i % callers.length]}`,
      callee_spiffe_id: `${td}/service/catalog`,
      action: actions[(i * 3) % actions.length],
      context,
    });
  }
  return out;
}

function measure(engine: RegoEngine, path: string, docs: unknown[]) {
  for (const d of docs.slice(0, 2000)) engine.evaluate(path, d); // warm-up
  const times = new Float64Array(docs.length);
  let allowed = 0;
  const start = Bun.nanoseconds();
  docs.forEach((d, i) => {
    const t0 = Bun.nanoseconds();
    const r = engine.evaluate(path, d).result as { allow?: boolean } | boolean;
    times[i] = Bun.nanoseconds() - t0;
    if (r === true || (typeof r === "object" && r.allow)) allowed++;
  });
  const total = Bun.nanoseconds() - start;
  times.sort();
  const pct = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]! / 1000;
  return { perSecond: docs.length / (total / 1e9), p50: pct(0.5), p99: pct(0.99), allowed };
}

function generatedPolicies(count: number, rulesEach: number) {
  return Array.from({ length: count }, (_, p) => {
    const rules = Array.from({ length: rulesEach }, (_, r) =>
      r % 2 === 0
        ? `allow_${r} if {\n\tinput.action == "svc${p}:op${r}"\n\tstartswith(input.caller, "spiffe://platform.local/")\n}`
        : `limits contains x if {\n\tsome x in input.items\n\tx > ${r}\n}`,
    );
    return { id: `gen/p${p}.rego`, source: `package gen.p${p}\n\n${rules.join("\n\n")}\n` };
  });
}

const heapMB = () => {
  Bun.gc(true);
  return process.memoryUsage().heapUsed / 1024 / 1024;
};

const engine = new RegoEngine();
engine.load(
  [{ id: "authz.rego", source: await Bun.file(join(POLICIES, "authz.rego")).text() }],
  await Bun.file(join(POLICIES, "data.json")).json(),
);
const docs = inputs(10_000);
const decision = measure(engine, "platform/authz/allow", docs);
const document = measure(engine, "platform/authz", docs);

const before = heapMB();
const big = new RegoEngine();
const loadStart = Bun.nanoseconds();
big.load(generatedPolicies(100, 50));
const loadMs = (Bun.nanoseconds() - loadStart) / 1e6;
const after = heapMB();

const fmt = (n: number, digits = 1) => n.toLocaleString("en-US", { maximumFractionDigits: digits });
const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd([44, 16, 12, 12, 18][i]!)).join(" | ")} |`;
console.log(row(["embedded Rego (default policy, 10,000 inputs)", "decisions/s", "p50 (us)", "p99 (us)", "goal p99 < 50 us"]));
console.log(row(["-".repeat(44), "-".repeat(16), "-".repeat(12), "-".repeat(12), "-".repeat(18)]));
for (const [name, r] of [
  ["allow only (platform/authz/allow)", decision],
  ["full decision (platform/authz)", document],
] as const)
  console.log(row([name, fmt(r.perSecond, 0), fmt(r.p50, 2), fmt(r.p99, 2), `${r.p99 < P99_GOAL_US ? "met" : "MISSED"} (${fmt(r.p99 / P99_GOAL_US, 2)}x goal)`]));
console.log(`\nallowed ${decision.allowed} of ${docs.length} decisions`);
console.log(`100 policies x 50 rules: compiled in ${fmt(loadMs)} ms, heap +${fmt(after - before)} MB (${fmt(after)} MB total)`);
