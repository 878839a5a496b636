/**
 * Authorization and mTLS costs, side by side in one run:
 *  1. decisions through the enforcer: the embedded engine (and the engine alone, for the enforcer's own cost),
 *     embedded with the decision cache, and the `opa` provider over HTTP to the OPA-compatible listener (same
 *     policies, same data, same inputs). That listener runs in a process of its own, as any engine the `opa`
 *     provider points at does; a row with it inside this process (client and server taking turns on one
 *     thread) is shown too, and real OPA (v1.22.2, from the project's tools) serving the same policies and data.
 *     Every path is warmed up, then measured in rounds that take turns, so a stretch in which the machine is
 *     slow slows every path alike;
 *  2. requests per second under load (autocannon, in rounds taking turns): the OPA-compatible listener in its
 *     own process against real OPA, the same request to each;
 *  3. an A2A task.send round trip on a fresh connection: mTLS (handshake + front + policy) vs plain HTTP.
 * Usage: bun scripts/bench/authz.ts [decisions=21000] [roundTrips=300]
 */
import type { Server } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentCard } from "../../src/a2a/card.ts";
import { A2AServer } from "../../src/a2a/http.ts";
import { opaHttp } from "../../src/authz/http.ts";
import { loadPolicies, PolicyStore } from "../../src/authz/policies.ts";
import { embeddedProvider, opaProvider, type DecisionProvider } from "../../src/authz/provider.ts";
import { AuthzService } from "../../src/authz/service.ts";
import { loopbackUpstream, MtlsFront } from "../../src/identity/mtls.ts";
import { FileSvidSource } from "../../src/identity/svid.ts";
import { createCa, issueSvid } from "../../src/identity/x509.ts";
import { createLogger } from "../../src/log.ts";
import { RegoEngine } from "../../src/rego/engine.ts";
import { toJSON } from "../../src/rego/values/values.ts";
import { startOpa } from "../../tests/support/opa.ts";
import { firstLine, inTurns, load, median, percentile } from "./support.ts";

const log = createLogger({ level: "error" });
const planner = "spiffe://platform.local/agent/planner";
const self = "spiffe://platform.local/platform";

/** The default policies and data (policies/), with the planner also allowed to send tasks. */
function benchEngine(): RegoEngine {
  const engine = new RegoEngine();
  loadPolicies(engine, { dir: "", policyPath: "platform/authz", development: false });
  const authz = engine.evaluate("authz").result as { capabilities: Record<string, string[]> };
  authz.capabilities[planner]!.push("task.send");
  engine.setData({ authz });
  return engine;
}

const opaListener = (engine: RegoEngine) =>
  opaHttp(new PolicyStore(engine, { policyPath: "platform/authz", development: false }), log).listen({ hostname: "127.0.0.1", port: 0 });

interface Row {
  name: string;
  perSecond: number;
  p50: number;
  p99: number;
}

/** Timed runs of one path, pooled over rounds. A synchronous run is timed without a turn of the microtask queue. */
class Series {
  readonly times: number[] = [];
  readonly roundP50s: number[] = [];
  #ms = 0;

  constructor(
    readonly name: string,
    readonly run: (i: number) => unknown,
  ) {}

  async warm(count: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const r = this.run(i);
      if (r instanceof Promise) await r;
    }
  }

  async round(count: number): Promise<void> {
    const times = new Float64Array(count);
    const started = performance.now();
    for (let i = 0; i < count; i++) {
      const t = performance.now();
      const r = this.run(i);
      if (r instanceof Promise) await r;
      times[i] = (performance.now() - t) * 1000;
    }
    this.#ms += performance.now() - started;
    this.roundP50s.push(median([...times]));
    this.times.push(...times);
  }

  row(): Row {
    return { name: this.name, perSecond: (this.times.length / this.#ms) * 1000, p50: median(this.times), p99: percentile(this.times, 99) };
  }
}

/** Warm-up first (not counted), then every timed run, including any collection that lands in it. */
async function measure(name: string, count: number, run: (i: number) => unknown): Promise<Row> {
  const series = new Series(name, run);
  await series.warm(Math.min(200, count));
  await series.round(count);
  return series.row();
}

async function main(decisions: number, roundTrips: number) {
  const engine = benchEngine();
  const localOpa = opaListener(engine);
  const remoteOpa = Bun.spawn([process.execPath, import.meta.path, "serve-opa"], { stdout: "pipe", stderr: "inherit" });
  const remotePort = Number(await firstLine(remoteOpa.stdout, "the OPA-compatible listener"));
  // Real OPA with the very policies and data the engine holds.
  const opaDir = mkdtempSync(join(tmpdir(), "platform-bench-opa-"));
  for (const m of engine.modules()) await Bun.write(join(opaDir, m.id.replaceAll("/", "_")), m.source);
  await Bun.write(join(opaDir, "data.json"), toJSON(engine.data()));
  const realOpa = await startOpa([opaDir]);

  const enforcer = (provider: DecisionProvider, cacheTtlMs = 0) =>
    new AuthzService({ provider, policyPath: "platform/authz", selfId: () => self, requireIdentity: true, cacheTtlMs, log });
  const opaAt = (port: number) => enforcer(opaProvider({ endpoint: `http://127.0.0.1:${port}`, policyPath: "platform/authz", timeoutMs: 5000 }));
  const inputs = [
    [planner, "task.send", { data_classification: "internal" }],
    ["spiffe://platform.local/agent/reporter", "catalog:read", {}],
    ["spiffe://platform.local/agent/order-bot", "catalog:write", { data_classification: "confidential" }],
    ["spiffe://elsewhere.example/agent/x", "catalog:read", {}],
  ] as const;
  const decide = (service: AuthzService) => (i: number) => {
    const [caller, action, context] = inputs[i % inputs.length]!;
    return service.checkInbound(caller, action, context);
  };

  const direct = new Series("engine.evaluate, no enforcer", (i) => {
    const [caller, action, context] = inputs[i % inputs.length]!;
    return engine.evaluate("platform/authz", { caller_spiffe_id: caller, callee_spiffe_id: self, action, context });
  });
  const embedded = new Series("decision: embedded", decide(enforcer(embeddedProvider(engine, "platform/authz"))));
  const cached = new Series("decision: embedded + cache", decide(enforcer(embeddedProvider(engine, "platform/authz"), 60_000)));
  const remote = new Series("decision: opa over HTTP, engine in its own process", decide(opaAt(remotePort)));
  const local = new Series("decision: opa over HTTP, listener in this process", decide(opaAt(localOpa.server!.port!)));
  const real = new Series("decision: real OPA over HTTP", decide(opaAt(Number(new URL(realOpa.url).port))));
  const inProcess = [direct, embedded, cached];
  const overHttp = [remote, local, real];

  const rounds = 7;
  const perRound = Math.max(1, Math.floor(decisions / rounds));
  const perHttpRound = Math.max(1, Math.floor(perRound / 10));
  for (const s of inProcess) await s.warm(perRound);
  for (const s of overHttp) await s.warm(perHttpRound * 2);
  const all = [...inProcess, ...overHttp];
  await inTurns(
    rounds,
    all.map((s) => () => s.round(overHttp.includes(s) ? perHttpRound : perRound)),
    () => Bun.gc(true),
  );
  const perRoundRatios = remote.roundP50s.map((p, r) => p / embedded.roundP50s[r]!).sort((a, b) => a - b);

  // Load: the same decision request to the listener (its own process) and to real OPA, in rounds taking turns.
  const loadBody = JSON.stringify({ input: { caller_spiffe_id: planner, callee_spiffe_id: self, action: "task.send", context: { data_classification: "internal" } } });
  const loadRounds = await inTurns(
    3,
    [`http://127.0.0.1:${remotePort}`, realOpa.url].map((base) => () =>
      load(`${base}/v1/data/platform/authz`, { connections: 16, seconds: 3, method: "POST", body: loadBody, headers: { "content-type": "application/json" } }),
    ),
  );
  const perSecond = (i: number) => median(loadRounds[i]!.map((r) => r.requestsPerSecond));
  const loadP99 = (i: number) => median(loadRounds[i]!.map((r) => r.p99));
  const loadErrors = loadRounds.flat().reduce((n, r) => n + r.errors + r.non2xx, 0);

  // Round trips: the same A2A server behind the mTLS front and on plain HTTP, one new connection per call.
  const dir = mkdtempSync(join(tmpdir(), "platform-bench-"));
  const ca = await createCa("platform.local", { notAfter: new Date(Date.now() + 86_400_000) });
  const serverSvid = await issueSvid(ca, { spiffeId: self, notAfter: new Date(Date.now() + 3600_000), ipAddresses: ["127.0.0.1"] });
  const clientSvid = await issueSvid(ca, { spiffeId: planner, notAfter: new Date(Date.now() + 3600_000) });
  await Bun.write(join(dir, "svid.pem"), serverSvid.certPem);
  await Bun.write(join(dir, "svid.key"), serverSvid.keyPem);
  await Bun.write(join(dir, "bundle.pem"), ca.certPem);
  const source = new FileSvidSource({ certFile: join(dir, "svid.pem"), keyFile: join(dir, "svid.key"), bundleFile: join(dir, "bundle.pem") });
  let front: MtlsFront | undefined;
  let appServer: Server<unknown> | undefined;
  const identify = (request: Request): string | undefined => {
    const address = appServer?.requestIP(request);
    return address ? front?.identityOf(address.address, address.port) : undefined;
  };
  const guarded = enforcer(embeddedProvider(engine, "platform/authz"));
  const plainEnforcer = { checkInbound: () => guarded.checkInbound(planner, "task.send"), checkOutbound: () => guarded.checkOutbound(planner, self, "task.send") };
  const makeServer = (mtls: boolean): A2AServer =>
    new A2AServer({
      agentCard: AgentCard.fromConfig({ name: "bench", description: "bench", url: "http://127.0.0.1", spiffeId: self }),
      authzEnforcer: mtls ? guarded : plainEnforcer,
      identify,
      log,
    }).registerTaskHandler("echo", (task) => ((task.result = task.payload), task));
  const mtlsServer = makeServer(true);
  const mtlsApp = mtlsServer.app.listen({ hostname: "127.0.0.1", port: 0 });
  appServer = mtlsApp.server!;
  front = await MtlsFront.listen({ source, host: "127.0.0.1", port: 0, upstream: () => loopbackUpstream("127.0.0.1", mtlsApp.server!.port!), log });
  const plainServer = makeServer(false);
  const plainApp = plainServer.app.listen({ hostname: "127.0.0.1", port: 0 });

  const send = (url: string, tls?: { cert: string; key: string; ca: string }) => async (i: number) => {
    const response = await fetch(`${url}/rpc`, {
      method: "POST",
      keepalive: false,
      headers: { "content-type": "application/json", connection: "close" },
      body: JSON.stringify({ jsonrpc: "2.0", id: i, method: "task.send", params: { type: "echo", payload: { i } } }),
      ...(tls ? { tls } : {}),
    });
    const body = (await response.json()) as { error?: unknown };
    if (body.error) throw new Error(`task.send failed: ${JSON.stringify(body.error)}`);
  };
  const mtlsTrip = await measure("task.send: mTLS (handshake + front)", roundTrips, send(`https://127.0.0.1:${front.port}`, { cert: clientSvid.certPem, key: clientSvid.keyPem, ca: ca.certPem }));
  const plainTrip = await measure("task.send: plain HTTP", roundTrips, send(`http://127.0.0.1:${plainApp.server!.port}`));

  const fmt = (n: number) => (n >= 1000 ? `${(n / 1000).toFixed(2)} ms` : `${n.toFixed(1)} us`);
  const [directRow, embeddedRow, cachedRow, remoteRow, localRow, realRow] = [direct, embedded, cached, remote, local, real].map((s) => s.row()) as [Row, Row, Row, Row, Row, Row];
  const faster = (r: Row) => `embedded is ${(r.p50 / embeddedRow.p50).toFixed(1)}x faster (p50), ${(r.p99 / embeddedRow.p99).toFixed(1)}x (p99)`;
  const rows: (Row & { ratio: string })[] = [
    { ...directRow, ratio: `enforcer adds ${fmt(embeddedRow.p50 - directRow.p50)} (p50)` },
    { ...embeddedRow, ratio: "1.0x (baseline)" },
    { ...cachedRow, ratio: `${(embeddedRow.p50 / cachedRow.p50).toFixed(1)}x faster p50 than embedded` },
    { ...remoteRow, ratio: faster(remoteRow) },
    { ...localRow, ratio: faster(localRow) },
    { ...realRow, ratio: `${faster(realRow)}; the listener ${(realRow.p50 / remoteRow.p50).toFixed(1)}x faster than real OPA (p50)` },
    { ...plainTrip, ratio: "1.0x (baseline)" },
    { ...mtlsTrip, ratio: `${(mtlsTrip.p50 / plainTrip.p50).toFixed(1)}x plain HTTP (p50)` },
  ];
  console.log(`\n| measurement | ops/s | p50 | p99 | ratio |\n|---|---:|---:|---:|---|`);
  for (const r of rows) console.log(`| ${r.name} | ${Math.round(r.perSecond).toLocaleString("en")} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.ratio} |`);
  const ratio = remoteRow.p50 / embeddedRow.p50;
  console.log(
    `\nDecisions: ${rounds} rounds taking turns, ${perRound.toLocaleString("en")} in-process and ${perHttpRound.toLocaleString("en")} HTTP decisions per path and round, after a warm-up.` +
      `\nembedded vs opa (engine in its own process), p50 ratio per round: ${perRoundRatios.map((x) => x.toFixed(1)).join(", ")}`,
  );
  const loadRatio = perSecond(0) / perSecond(1);
  console.log(`\n| under load (16 connections, 3 s, 3 rounds taking turns; medians) | requests/s | p99 | ratio |\n|---|---:|---:|---|`);
  console.log(`| OPA-compatible listener (own process) | ${Math.round(perSecond(0)).toLocaleString("en")} | ${loadP99(0)} ms | ${loadRatio.toFixed(1)}x real OPA's requests/s |`);
  console.log(`| real OPA v1.22.2 | ${Math.round(perSecond(1)).toLocaleString("en")} | ${loadP99(1)} ms | 1.0x (baseline) |`);
  if (loadErrors) console.log(`(${loadErrors} errors or non-2xx answers under load)`);
  console.log(`Goal: embedded p99 < 10 us (${embeddedRow.p99 < 10 ? "met" : "NOT met"}: ${fmt(embeddedRow.p99)}); >= 20x faster than HTTP (${ratio >= 20 ? "met" : "NOT met"}: ${ratio.toFixed(1)}x); listener >= 5x real OPA's requests/s (${loadRatio >= 5 ? "met" : "NOT met"}: ${loadRatio.toFixed(1)}x).`);

  await front.close();
  source.close();
  remoteOpa.kill("SIGTERM");
  await realOpa.stop();
  rmSync(opaDir, { recursive: true, force: true });
  await Promise.all([remoteOpa.exited, localOpa.stop(true), mtlsServer.stop(), plainServer.stop(), mtlsApp.stop(true), plainApp.stop(true)]);
  rmSync(dir, { recursive: true, force: true });
}

// Dispatched last, so every declaration above is initialised.
if (process.argv[2] === "serve-opa") {
  // The engine the `opa` provider asks, in a process of its own: prints its port, serves until SIGTERM.
  console.log(opaListener(benchEngine()).server!.port);
  process.on("SIGTERM", () => process.exit(0));
} else await main(Number(process.argv[2] ?? 21_000), Number(process.argv[3] ?? 300));
