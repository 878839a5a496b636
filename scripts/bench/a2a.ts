/**
 * `bun scripts/bench/a2a.ts [seconds]`: A2A throughput and latency, side by side in one run.
 *
 * 1. 64 concurrent clients send a trivial task and wait for it to complete, for `seconds` each (default 5, in
 *    rounds that take turns, so a stretch in which the machine is slow slows every server alike):
 *    this platform's A2A server (task.send, blocking, task actors on a SQLite file) against the @a2a-js/sdk
 *    reference Express server (SendMessage, blocking, echo executor, in-memory task store; a2a-reference.mjs)
 *    on Node.js, where its users run it, and on Bun. Each server runs in its own child process; this process
 *    only generates load.
 * 2. SSE fan-out: 1,000 subscribers stream one task that stores 20 updates; each must receive every one.
 * 3. Mutual TLS: the same 64 clients against one runtime with the mTLS front on (development CA, allow-all
 *    development policy, so both paths run the enforcer): plain HTTP, mTLS on connections kept alive, and mTLS as
 *    the platform's A2AClient calls (its TLS options check the server's SPIFFE id, and Bun 1.4.5's fetch opens a
 *    new connection for every such request); then the front's parts apart: TLS ended natively without the relay,
 *    and the relay to the app listener without TLS.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closedLoop, firstLine, inTurns, percentile, pooled, printTable, type Round } from "./support.ts";


// --- the servers ---

async function servePlatform() {
  const { A2AServer, AgentCard, TaskManager } = await import("../../src/a2a/index.ts");
  const dir = mkdtempSync(join(tmpdir(), "platform-bench-"));
  const taskManager = new TaskManager({ file: join(dir, "tasks.db") });
  const server = new A2AServer({
    agentCard: (origin) => AgentCard.fromConfig({ name: "Bench", description: "Echo", url: origin, spiffeId: "spiffe://bench.local/agent" }),
    taskManager,
  });
  server.registerTaskHandler("echo", (task) => {
    task.result = task.payload;
    return task;
  });
  // Fan-out: a task that waits for `release`, then stores `updates` changes and completes.
  let release = Promise.withResolvers<void>();
  server.registerTaskHandler("ticker", async (task, { update }) => {
    await release.promise;
    const updates = (task.payload as { updates: number }).updates;
    for (let i = 1; i <= updates; i++) {
      task.metadata.tick = i;
      update(task);
      await Promise.resolve();
    }
    return task;
  });
  server.registerTaskHandler("release", () => {
    release.resolve();
    release = Promise.withResolvers<void>();
  });
  const url = await server.start("127.0.0.1", 0);
  process.on("SIGTERM", () => (void server.stop(), rmSync(dir, { recursive: true, force: true }), process.exit(0)));
  console.log(JSON.stringify({ url }));
}

/** The runtime behind the mTLS front, an echo agent on it, and the pieces of the front measured apart. */
async function serveMtls() {
  const { createServer, connect } = await import("node:net");
  const { A2AServer, AgentCard, TaskManager } = await import("../../src/a2a/index.ts");
  const { authzCapability, securityOf } = await import("../../src/authz/capability.ts");
  const { loadConfig } = await import("../../src/config.ts");
  const { issueToFolder } = await import("../../src/identity/issue.ts");
  const { openSvidSource } = await import("../../src/identity/service.ts");
  const { createLogger } = await import("../../src/log.ts");
  const { startRuntime } = await import("../../src/runtime.ts");
  const { buildApp } = await import("../../src/server.ts");
  const dir = mkdtempSync(join(tmpdir(), "platform-bench-mtls-"));
  const quiet = createLogger({ level: "error", write: () => {} });
  const config = loadConfig({
    env: {
      PLATFORM_DATA_DIR: dir,
      PLATFORM_ENV: "development",
      PLATFORM_IDENTITY__MTLS__ENABLED: "true",
      PLATFORM_IDENTITY__MTLS__HOST: "127.0.0.1",
      PLATFORM_IDENTITY__MTLS__PORT: "0",
      PLATFORM_IDENTITY__MTLS__REQUIRED: "false",
      PLATFORM_AUTHORIZATION__POLICY_DIR: join(import.meta.dir, "../../policies/dev"),
      PLATFORM_AUTHORIZATION__AUDIT__ENABLED: "false",
    },
  });
  const runtime = await startRuntime(config, quiet, [
    authzCapability,
    (rt) => {
      const security = securityOf(rt);
      const server = new A2AServer({
        agentCard: (origin) => AgentCard.fromConfig({ name: "Bench", description: "Echo", url: origin, spiffeId: "spiffe://platform.local/platform" }),
        taskManager: new TaskManager({ actors: rt.actors, db: rt.database.db, log: quiet }),
        authzEnforcer: security.enforcer,
        identify: security.identify,
        log: quiet,
      });
      server.registerTaskHandler("echo", (task) => {
        task.result = task.payload;
        return task;
      });
      return { name: "bench-agent", http: server.plugin };
    },
  ]);
  const { app } = buildApp(runtime);
  app.listen({ hostname: "127.0.0.1", port: 0 });
  const appPort = app.server!.port!;
  const { mtls } = runtime.health.report().subsystems.authorization as unknown as { mtls: { port: number } };
  await issueToFolder(config, "spiffe://platform.local/agent/planner", join(dir, "client"), 3600);
  // The front's two parts apart: TLS ended natively with no relay (no client certificate, so unidentified), and
  // the relay to the app listener through node:net without TLS.
  const svid = (await openSvidSource(config, quiet))!.current();
  const native = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { cert: svid.certPem, key: svid.keyPem }, fetch: (request) => app.handle(request) });
  const relay = createServer((socket) => {
    const upstream = connect({ host: "127.0.0.1", port: appPort });
    socket.pipe(upstream);
    upstream.pipe(socket);
    for (const [a, b] of [[socket, upstream], [upstream, socket]] as const) a.on("error", () => b.destroy()).on("close", () => b.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, "127.0.0.1", resolve));
  process.on("SIGTERM", () => (rmSync(dir, { recursive: true, force: true }), process.exit(0)));
  console.log(
    JSON.stringify({
      plain: `http://127.0.0.1:${appPort}`,
      mtls: `https://127.0.0.1:${mtls.port}`,
      native: `https://127.0.0.1:${native.port}`,
      relay: `http://127.0.0.1:${(relay.address() as { port: number }).port}`,
      client: join(dir, "client"),
    }),
  );
}

// --- the load ---

const REFERENCE = join(import.meta.dir, "a2a-reference.mjs");
const commands = {
  platform: [process.execPath, import.meta.path, "serve-platform"],
  "reference (Node.js)": ["node", REFERENCE],
  "reference (Bun)": [process.execPath, REFERENCE],
};
type Server = keyof typeof commands;

async function spawnServer(which: Server) {
  const proc = Bun.spawn(commands[which], { stdout: "pipe", stderr: "inherit" });
  return { proc, url: (JSON.parse(await firstLine(proc.stdout, which)) as { url: string }).url };
}

async function platformSend(url: string) {
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "task.send", params: { type: "echo", payload: { text: "hello" } } });
  return async () => {
    const response = await fetch(`${url}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body });
    const answer = (await response.json()) as { result?: { state: string } };
    return answer.result?.state === "completed";
  };
}

async function referenceSend(url: string) {
  return async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: { message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "hello" }] } },
    });
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "A2A-Version": "1.0" }, body });
    const answer = (await response.json()) as { result?: { task?: { status?: { state: string } } } };
    return answer.result?.task?.status?.state === "TASK_STATE_COMPLETED";
  };
}

async function fanOut(url: string, subscribers: number, updates: number) {
  const rpc = async (method: string, params: unknown) =>
    ((await (await fetch(`${url}/rpc`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) })).json()) as { result: { id: string } })
      .result;
  const { id } = await rpc("task.send", { type: "ticker", payload: { updates }, blocking: false });
  const { EventSourceParserStream } = await import("eventsource-parser/stream");
  const connected: Promise<void>[] = [];
  const finished: Promise<{ revisions: number[]; doneAt: number }>[] = [];
  for (let i = 0; i < subscribers; i++) {
    const ready = Promise.withResolvers<void>();
    connected.push(ready.promise);
    finished.push(
      (async () => {
        const response = await fetch(`${url}/tasks/${id}/stream`);
        const revisions: number[] = [];
        for await (const event of response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream())) {
          revisions.push(Number(event.id));
          if (revisions.length === 1) ready.resolve();
        }
        return { revisions, doneAt: performance.now() };
      })(),
    );
  }
  await Promise.all(connected);
  const released = performance.now();
  await rpc("task.send", { type: "release" });
  const results = await Promise.all(finished);
  const first = results[0]!.revisions[0]!;
  const last = Math.max(...results.map((r) => r.revisions.at(-1)!));
  const expected = last - first + 1;
  const complete = results.filter((r) => r.revisions.length === expected && r.revisions.every((rev, i) => rev === first + i)).length;
  const seconds = (Math.max(...results.map((r) => r.doneAt)) - released) / 1000;
  return { subscribers, eventsEach: expected, complete, seconds, delivered: results.reduce((n, r) => n + r.revisions.length, 0) };
}

/** Section 3: task.send over plain HTTP and over mTLS, and the mTLS front's parts apart, in turns. */
async function mtlsComparison(seconds: number, clients: number) {
  const proc = Bun.spawn([process.execPath, import.meta.path, "serve-mtls"], { stdout: "pipe", stderr: "inherit" });
  try {
    const urls = JSON.parse(await firstLine(proc.stdout, "the mTLS server")) as Record<"plain" | "mtls" | "native" | "relay" | "client", string>;
    const { FileSvidSource, svidIdentityProvider } = await import("../../src/identity/svid.ts");
    const files = { certFile: join(urls.client, "svid.pem"), keyFile: join(urls.client, "svid.key"), bundleFile: join(urls.client, "bundle.pem") };
    const source = new FileSvidSource(files);
    const [cert, key, ca] = await Promise.all([files.certFile, files.keyFile, files.bundleFile].map((f) => Bun.file(f).text()));
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "task.send", params: { type: "echo", payload: { text: "hello" } } });
    const sender = (url: string, tls?: () => object) => async () => {
      const response = await fetch(`${url}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body, ...(tls ? { tls: tls() } : {}) } as RequestInit);
      return ((await response.json()) as { result?: { state: string } }).result?.state === "completed";
    };
    const keptAlive = { cert, key, ca };
    const measures: [string, () => Promise<boolean>][] = [
      ["plain HTTP", sender(urls.plain)],
      ["mTLS, connections kept alive", sender(urls.mtls, () => keptAlive)],
      ["mTLS as A2AClient calls (SPIFFE id checked: a new connection each)", sender(urls.mtls, () => svidIdentityProvider(source).clientTls("spiffe://platform.local/platform"))],
      ["  its part: TLS ended natively, no relay, kept alive", sender(urls.native, () => ({ ca }))],
      ["  its part: the relay to the app listener, no TLS", sender(urls.relay)],
    ];
    for (const [, send] of measures) await closedLoop(clients, 1, send);
    const rounds = await inTurns(5, measures.map(([, send]) => () => closedLoop(clients, seconds / 5, send)));
    source.close();
    const pooledRounds = rounds.map(pooled);
    const tput = (r: Round) => r.completed / r.seconds;
    const plain = tput(pooledRounds[0]!);
    console.log(`\nA2A over mutual TLS: the same trivial task, ${clients} concurrent clients, ${seconds}s each, one runtime (mTLS front on)`);
    console.log("The goal: mTLS on connections kept alive at least 70% of plain HTTP's tasks/s.\n");
    printTable([
      ["path", "tasks/s", "of plain", "p50 (ms)", "p99 (ms)", "errors"],
      ...measures.map(([name], i) => {
        const r = pooledRounds[i]!;
        return [name, tput(r).toFixed(0), `${((tput(r) / plain) * 100).toFixed(0)}%`, percentile(r.latencies, 50).toFixed(2), percentile(r.latencies, 99).toFixed(2), String(r.errors)];
      }),
    ]);
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

async function main(seconds: number) {
  // Bun's fetch keeps at most 256 requests in flight by default; the fan-out needs 1,000 open streams.
  if (!process.env.BUN_CONFIG_MAX_HTTP_REQUESTS) {
    const env = { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: "2048" };
    const again = Bun.spawn([process.execPath, import.meta.path, String(seconds)], { env, stdio: ["inherit", "inherit", "inherit"] });
    process.once("SIGTERM", () => again.kill("SIGTERM"));
    process.exit(await again.exited);
  }
  const clients = 64;
  const rounds = 5;
  const names = Object.keys(commands) as Server[];
  const servers = await Promise.all(names.map(spawnServer));
  const senders = await Promise.all(names.map((name, i) => (name === "platform" ? platformSend(servers[i]!.url) : referenceSend(servers[i]!.url))));
  let results: Round[][];
  let fan: Awaited<ReturnType<typeof fanOut>>;
  try {
    console.error(`measuring ${clients} clients against each server: ${rounds} rounds of ${seconds / rounds}s, taking turns...`);
    // Warm-up: long enough for each runtime to have compiled its hot paths; servers run for hours, not seconds.
    for (const send of senders) await closedLoop(clients, 3, send);
    results = await inTurns(
      rounds,
      senders.map((send) => async () => {
        // Unmeasured first: connections that went idle while the others ran are set up again outside the window.
        await closedLoop(clients, 0.25, send);
        return closedLoop(clients, seconds / rounds, send);
      }),
    );
    fan = await fanOut(servers[0]!.url, 1000, 20);
  } finally {
    for (const server of servers) server.proc.kill("SIGTERM");
    await Promise.all(servers.map((server) => server.proc.exited));
  }
  const [ours, node, bun] = results.map(pooled) as [Round, Round, Round];
  const tput = (r: Round) => r.completed / r.seconds;
  const perRound = results[0]!.map((r, i) => tput(r) / tput(results[1]![i]!)).sort((a, b) => a - b);
  const fmt = (n: number, digits = 1) => n.toFixed(digits);
  const ratio = (a: number, b: number) => `${fmt(a / b, 2)}x`;
  const cells = (f: (r: Round) => number, digits: number) => {
    const [a, b, c] = [f(ours), f(node), f(bun)];
    return [fmt(a, digits), fmt(b, digits), ratio(a, b), fmt(c, digits), ratio(a, c)];
  };
  console.log(`\nA2A: a trivial task sent and completed, ${clients} concurrent clients, ${seconds}s each, loopback`);
  console.log("Ratios are platform / reference. The goal: 3x the reference's throughput with a lower p99.\n");
  printTable([
    ["metric", "platform", "@a2a-js/sdk on Node.js", "ratio", "@a2a-js/sdk on Bun", "ratio"],
    ["throughput (tasks/s)", ...cells(tput, 0)],
    ["latency p50 (ms)", ...cells((r) => percentile(r.latencies, 50), 2)],
    ["latency p99 (ms)", ...cells((r) => percentile(r.latencies, 99), 2)],
    ["tasks completed", String(ours.completed), String(node.completed), "", String(bun.completed), ""],
    ["errors", String(ours.errors), String(node.errors), "", String(bun.errors), ""],
  ]);
  console.log(`\nThroughput ratio to the reference on Node.js, round by round: ${perRound.map((x) => `${x.toFixed(2)}x`).join(", ")}`);
  console.log(`\nSSE fan-out (platform): ${fan.subscribers} subscribers to one task storing ${fan.eventsEach - 1} updates after they connected\n`);
  printTable([
    ["measurement", "value"],
    ["subscribers that got every event, in order", `${fan.complete} / ${fan.subscribers}`],
    ["events per subscriber", String(fan.eventsEach)],
    ["events delivered", String(fan.delivered)],
    ["release to last subscriber's final event", `${fmt(fan.seconds * 1000, 0)} ms (${fmt(fan.delivered / fan.seconds, 0)} events/s)`],
  ]);
  // Its own server and its own rounds: measured after the others have stopped.
  await mtlsComparison(seconds, clients);
}

// Dispatched last, so every declaration above is initialised.
const role = process.argv[2];
if (role === "serve-platform") await servePlatform();
else if (role === "serve-mtls") await serveMtls();
else await main(Number(role ?? 5));
