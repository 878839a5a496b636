/**
 * `bun scripts/bench/cluster.ts [--seconds S] [--catalog-seconds S] [--rounds R] [--clients C] [--lease-ms L] [--kills K] [--a2a-only]`
 *
 * The platform with SQLite against PostgreSQL as the store several nodes share. Every node is a real
 * `platform serve` process (this file, run as `node`, adds an `echo` tool and a `hold` tool that waits until
 * cancelled); PostgreSQL is a throwaway cluster of Debian's server (initdb in a temporary folder, loopback port,
 * fsync off, pg_stat_statements loaded). This process only generates load, from 64 closed-loop clients by default.
 * Prints one table per section:
 *
 * 1. A2A: message/send of a trivial task, answered once it completed, against one node on SQLite, one node on
 *    PostgreSQL and three nodes on PostgreSQL (requests spread round-robin, as a load balancer would), in rounds
 *    that take turns. With each: CPU time per task of the nodes and of PostgreSQL (every process of the cluster),
 *    from /proc, and the statements PostgreSQL ran per task (pg_stat_statements). On two cores three nodes cannot
 *    show scaling, so the scaling is projected from those costs.
 * 2. Catalog orders under contention: the same clients order one unit at a time of a few products, on one node
 *    on SQLite and on two nodes on PostgreSQL; then stock and stored orders are checked against what was placed.
 * 3. Failover: each time, a few running tasks on one of three nodes, followed over SSE on another node; the node
 *    is SIGKILLed, and the time until each task's final event (the node that took it over settled it) is taken.
 *
 * `--a2a-only` runs the first section alone.
 *
 * Every process and folder it makes is removed at the end, also after an error or Ctrl+C.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { closedLoop, cpuSeconds, inTurns, median, percentile, pooled, postmasterOf, printTable, treeCpuSeconds, type Round } from "./support.ts";

// --- a node: `platform serve` with two trivial tools (each tool is an A2A task type) ---

async function serveNode(args: string[]) {
  const { Type } = await import("@sinclair/typebox");
  const { capabilities } = await import("../../src/capabilities.ts");
  const { runCli } = await import("../../src/cli/run.ts");
  const { verbs } = await import("../../src/cli/verbs.ts");
  const { defineTool, textResult } = await import("../../src/mcp/define.ts");
  capabilities.push(({ mcp }) => {
    mcp.server("bench").tool(
      defineTool({ name: "echo", description: "Answers with the text it was given.", input: Type.Object({ text: Type.String() }), handler: async ({ text }) => textResult(text) }),
      defineTool({
        name: "hold",
        description: "Runs until cancelled.",
        input: Type.Object({ text: Type.String() }),
        handler: (_args, { signal }) => new Promise((resolve) => signal.addEventListener("abort", () => resolve(textResult("let go")))),
      }),
    );
    return { name: "bench" };
  });
  process.exitCode = await runCli(verbs, args);
}

async function main() {
  const { values } = parseArgs({
    options: {
      seconds: { type: "string" },
      "catalog-seconds": { type: "string" },
      rounds: { type: "string" },
      clients: { type: "string" },
      "lease-ms": { type: "string" },
      kills: { type: "string" },
      "a2a-only": { type: "boolean" },
    },
  });
  const seconds = Number(values.seconds ?? 10);
  const catalogSeconds = Number(values["catalog-seconds"] ?? 5);
  const rounds = Number(values.rounds ?? 5);
  const clients = Number(values.clients ?? 64);
  const leaseMs = Number(values["lease-ms"] ?? 3000);
  const a2aOnly = values["a2a-only"] === true;
  const kills = a2aOnly ? 0 : Number(values.kills ?? 5);

  const { serve, runPlatform } = await import("../../tests/support/cli.ts");
  const { openAuthorization } = await import("../../tests/a2a/support.ts");
  const { startPostgres } = await import("../../tests/support/postgres.ts");
  type Running = Awaited<ReturnType<typeof serve>>;

  const root = mkdtempSync(join(tmpdir(), "platform-bench-cluster-"));
  const nodes = new Set<Running>();
  let postgres: Awaited<ReturnType<typeof startPostgres>> | undefined;
  let admin: InstanceType<typeof Bun.SQL> | undefined;
  let cleaning: Promise<void> | undefined;
  const cleanup = () =>
    (cleaning ??= (async () => {
      await Promise.all([...nodes].map((node) => node.stop("SIGKILL")));
      await admin?.close().catch(() => {});
      await postgres?.remove().catch(() => {});
      rmSync(root, { recursive: true, force: true });
    })());
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void cleanup().then(() => process.exit(130)));

  // Settings every node shares: open authorization (development), the keys every node of a cluster shares, no
  // access log, limits out of the way of the load.
  const common = {
    ...openAuthorization,
    PLATFORM_LOG__ACCESS: "false",
    PLATFORM_CLUSTER__LEASE_MS: String(leaseMs),
    PLATFORM_VAULT__KEY_DIR: join(root, "vault-keys"),
    PLATFORM_VAULT__SETUP_ENABLED: "false",
    PLATFORM_CATALOG__JWT_KEY_FILE: join(root, "catalog-jwt.key"),
    PLATFORM_CATALOG__RATE_LIMIT_ANONYMOUS: "1000000000",
    PLATFORM_CATALOG__RATE_LIMIT_AUTHENTICATED: "1000000000",
  };
  const storeEnv = (url?: string): Record<string, string> => (url ? { DATABASE_URL: url } : {});
  const dataDir = (name: string) => {
    const dir = join(root, name);
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  async function startNode(name: string, url?: string): Promise<Running> {
    const node = await serve(dataDir(name), { command: [process.execPath, import.meta.path, "node"], env: { ...common, ...storeEnv(url), PLATFORM_CLUSTER__NODE_ID: name } });
    nodes.add(node);
    return node;
  }
  async function stopNodes(list: Running[]) {
    for (const node of list) nodes.delete(node);
    await Promise.all(list.map((node) => node.stop()));
  }

  try {
    // --- the store: a throwaway PostgreSQL with pg_stat_statements loaded (a restart loads it) ---
    console.error("starting PostgreSQL...");
    postgres = await startPostgres();
    admin = new Bun.SQL(postgres.adminUrl, { max: 1 });
    await admin.unsafe("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'");
    await admin.close();
    await postgres.stop();
    await postgres.start();
    admin = new Bun.SQL(postgres.adminUrl, { max: 1 });
    await admin.unsafe("CREATE EXTENSION pg_stat_statements");
    const postmaster = postmasterOf(postgres.port);
    const newDatabase = async () => {
      const url = await postgres!.database();
      return { url, name: new URL(url).pathname.slice(1) };
    };

    // --- 1. A2A ---
    const [pg1, pg3] = [await newDatabase(), await newDatabase()];
    console.error("starting five nodes...");
    const [sqliteNode, pgNode, ...threeNodes] = await Promise.all([
      startNode("sqlite"),
      startNode("pg-one", pg1.url),
      startNode("a", pg3.url),
      startNode("b", pg3.url),
      startNode("c", pg3.url),
    ]);
    const setups = [
      { name: "one node, SQLite", nodes: [sqliteNode!], database: undefined },
      { name: "one node, PostgreSQL", nodes: [pgNode!], database: pg1.name },
      { name: "three nodes, PostgreSQL (round-robin)", nodes: threeNodes, database: pg3.name },
    ];

    /** What the nodes and PostgreSQL have spent so far: CPU seconds, and statements run in `database`. */
    async function spent(list: Running[], database: string | undefined) {
      const [node, store, statements] = await Promise.all([
        Promise.all(list.map((n) => cpuSeconds(n.proc.pid))).then((all) => all.reduce((a, b) => a + b, 0)),
        treeCpuSeconds(postmaster),
        database ? statementsIn(admin!, database) : new Map<string, Statement>(),
      ]);
      return { node, store, statements, client: process.cpuUsage() };
    }
    type Spent = Awaited<ReturnType<typeof spent>>;
    interface Measured {
      round: Round;
      node: number;
      store: number;
      client: number;
      statements: Map<string, Statement>;
    }
    const difference = (after: Spent, before: Spent, round: Round): Measured => {
      const statements = new Map<string, Statement>();
      for (const [id, s] of after.statements) {
        const calls = s.calls - (before.statements.get(id)?.calls ?? 0);
        if (calls > 0) statements.set(id, { query: s.query, calls, ms: s.ms - (before.statements.get(id)?.ms ?? 0) });
      }
      const client = (after.client.user + after.client.system - before.client.user - before.client.system) / 1e6;
      return { round, node: after.node - before.node, store: after.store - before.store, client, statements };
    };

    const sender = (urls: string[]) => {
      let next = 0;
      return async () => {
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "message/send",
          params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "hello" }] }, metadata: { taskType: "echo" } },
        });
        const response = await fetch(`${urls[next++ % urls.length]}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body });
        return ((await response.json()) as { result?: { status?: { state?: string } } }).result?.status?.state === "completed";
      };
    };
    const a2aSenders = setups.map((s) => sender(s.nodes.map((n) => n.url)));
    console.error(`A2A: ${clients} clients, ${rounds} rounds of ${(seconds / rounds).toFixed(1)} s per setup, taking turns...`);
    // Warm-up: the runtimes compile their hot paths, the pools open their connections.
    for (const send of a2aSenders) await closedLoop(clients, 3, send);
    const a2aTurns = await inTurns(
      rounds,
      setups.map((setup, i) => async () => {
        // Unmeasured first: connections that went idle while the others ran are set up again outside the window.
        await closedLoop(clients, 0.25, a2aSenders[i]!);
        const before = await spent(setup.nodes, setup.database);
        const round = await closedLoop(clients, seconds / rounds, a2aSenders[i]!);
        return difference(await spent(setup.nodes, setup.database), before, round);
      }),
    );

    // --- 3. failover (on the three nodes, before the catalog section adds long-lived order actors to them) ---
    console.error(`failover: ${kills} kills, lease ${leaseMs} ms...`);
    const failovers: number[][] = [];
    const three = new Map(threeNodes.map((n, i) => [["a", "b", "c"][i]!, n]));
    for (let k = 0; k < kills; k++) {
      const victimId = ["a", "b", "c"][k % 3]!;
      const victim = three.get(victimId)!;
      const survivor = [...three.entries()].find(([id]) => id !== victimId)![1];
      failovers.push(await failover(victim, survivor, 4));
      nodes.delete(victim);
      three.set(victimId, await startNode(victimId, pg3.url));
    }
    await stopNodes([sqliteNode!, pgNode!, ...three.values()]);

    // --- 2. catalog orders under contention ---
    const pgCatalog = await newDatabase();
    const catalogSetups = a2aOnly ? [] : [
      { name: "one node, SQLite", dir: "sqlite-catalog", url: undefined as string | undefined, count: 1, database: undefined as string | undefined },
      { name: "two nodes, PostgreSQL (round-robin)", dir: "pg-catalog", url: pgCatalog.url, count: 2, database: pgCatalog.name },
    ];
    const shops = await Promise.all(
      catalogSetups.map(async (setup) => {
        const made = await runPlatform(["catalog", "admin", "--email", "bench@shop.test", "--password-stdin", "--data-dir", dataDir(setup.dir)], {
          stdin: "bench-password\n",
          env: { ...common, ...storeEnv(setup.url) },
        });
        if (made.code !== 0) throw new Error(`platform catalog admin failed: ${made.stderr}`);
        const list = await Promise.all(Array.from({ length: setup.count }, (_, i) => startNode(setup.count === 1 ? setup.dir : `${setup.dir}-${"ab"[i]}`, setup.url)));
        return { ...setup, nodes: list, ...(await openShop(list.map((n) => n.url))) };
      }),
    );
    console.error(`catalog: ${clients} clients ordering from ${productCount} products, ${rounds} rounds of ${(catalogSeconds / rounds).toFixed(1)} s each, taking turns...`);
    for (const shop of shops) await closedLoop(clients, 1, shop.order);
    const catalogTurns = await inTurns(
      rounds,
      shops.map((shop) => async () => {
        await closedLoop(clients, 0.25, shop.order);
        const before = await spent(shop.nodes, shop.database);
        const round = await closedLoop(clients, catalogSeconds / rounds, shop.order);
        return difference(await spent(shop.nodes, shop.database), before, round);
      }),
    );
    const checks = await Promise.all(shops.map((shop) => shop.check()));
    await stopNodes(shops.flatMap((shop) => shop.nodes));

    // --- the tables ---
    const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");
    const tput = (r: Round) => r.completed / r.seconds;
    const perTask = (turns: Measured[], f: (m: Measured) => number) => (turns.reduce((n, m) => n + f(m), 0) / turns.reduce((n, m) => n + m.round.completed, 0)) * 1000;
    const statementsPerTask = (turns: Measured[]) => turns.reduce((n, m) => n + [...m.statements.values()].reduce((a, s) => a + s.calls, 0), 0) / turns.reduce((n, m) => n + m.round.completed, 0);

    const a2a = a2aTurns.map((turns) => ({ turns, all: pooled(turns.map((m) => m.round)) }));
    const sqliteTput = tput(a2a[0]!.all);
    const pgRatio = tput(a2a[1]!.all) / sqliteTput;
    const ratioByRound = (i: number) => a2a[i]!.turns.map((m, r) => tput(m.round) / tput(a2a[0]!.turns[r]!.round)).sort((a, b) => a - b);
    console.log(`\nA2A: message/send of a trivial task, answered once completed; ${clients} concurrent clients, ${seconds} s per setup in ${rounds} rounds taking turns, loopback, 2 shared cores`);
    console.log("CPU per task: user+sys of the node processes and of every PostgreSQL process, from /proc; statements from pg_stat_statements (BEGIN and COMMIT included).\n");
    printTable([
      ["setup", "tasks/s", "of SQLite", "p50 ms", "p99 ms", "errors", "node CPU ms/task", "PostgreSQL CPU ms/task", "statements/task", "goal", "met"],
      ...setups.map((setup, i) => {
        const { turns, all } = a2a[i]!;
        const pg = setup.database !== undefined;
        const goal = i === 1 ? ">= 50% of SQLite" : "";
        return [
          setup.name,
          fmt(tput(all)),
          `${fmt((tput(all) / sqliteTput) * 100)}%`,
          fmt(percentile(all.latencies, 50), 2),
          fmt(percentile(all.latencies, 99), 2),
          String(all.errors),
          fmt(perTask(turns, (m) => m.node), 3),
          pg ? fmt(perTask(turns, (m) => m.store), 3) : "-",
          pg ? fmt(statementsPerTask(turns), 1) : "-",
          goal,
          i === 1 ? (pgRatio >= 0.5 ? "yes" : "no") : "",
        ];
      }),
    ]);
    console.log(`\nOf SQLite's tasks/s, round by round: one PostgreSQL node ${ratioByRound(1).map((x) => `${fmt(x * 100)}%`).join(", ")}; three nodes ${ratioByRound(2).map((x) => `${fmt(x * 100)}%`).join(", ")}`);
    console.log(`The load generator (this process) spent ${a2a.map(({ turns }) => fmt(perTask(turns, (m) => m.client), 3)).join(" / ")} ms of CPU per task on the three setups.`);

    // Projection from the three-node costs: each node on its own cores, PostgreSQL on a machine of its own.
    const nodeMs = perTask(a2a[2]!.turns, (m) => m.node);
    const storeMs = perTask(a2a[2]!.turns, (m) => m.store);
    const coresPerNode = 2;
    const nodeCeiling = (n: number) => (n * coresPerNode * 1000) / nodeMs;
    const storeCeiling = (cores: number) => (cores * 1000) / storeMs;
    console.log(
      `\nProjected scaling, if CPU is what limits and each task costs what it cost with three nodes here (${fmt(nodeMs, 3)} ms on a node, ${fmt(storeMs, 3)} ms in PostgreSQL):` +
        ` a node core carries ${fmt(1000 / nodeMs)} tasks/s, a PostgreSQL core ${fmt(1000 / storeMs)} tasks/s, so one PostgreSQL core serves ${fmt(nodeMs / storeMs, 1)} node cores.\n`,
    );
    const storeCores = [2, 4, 8, 16];
    printTable([
      ["nodes of 2 cores", "nodes' ceiling (tasks/s)", ...storeCores.map((c) => `with PostgreSQL on ${c} cores`)],
      ...[1, 2, 3, 4, 8].map((n) => [String(n), fmt(nodeCeiling(n)), ...storeCores.map((c) => fmt(Math.min(nodeCeiling(n), storeCeiling(c))))]),
    ]);

    // Which statements a task costs, on one PostgreSQL node and on three.
    const breakdown = (turns: Measured[]) => {
      const tasks = turns.reduce((n, m) => n + m.round.completed, 0);
      const all = new Map<string, Statement>();
      for (const m of turns)
        for (const s of m.statements.values()) {
          const key = s.query.replace(/\s+/g, " ");
          const seen = all.get(key) ?? { query: key, calls: 0, ms: 0 };
          all.set(key, { query: key, calls: seen.calls + s.calls, ms: seen.ms + s.ms });
        }
      return new Map([...all].map(([key, s]) => [key, { perTask: s.calls / tasks, msPerTask: s.ms / tasks }]));
    };
    const [one, threeStatements] = [breakdown(a2a[1]!.turns), breakdown(a2a[2]!.turns)];
    const keys = [...new Set([...one.keys(), ...threeStatements.keys()])].sort((a, b) => (threeStatements.get(b)?.perTask ?? 0) - (threeStatements.get(a)?.perTask ?? 0));
    console.log("\nStatements per A2A task (pg_stat_statements; execution time is PostgreSQL's own, per task):\n");
    printTable([
      ["statement", "one node: calls/task", "exec µs/task", "three nodes: calls/task", "exec µs/task"],
      ...keys
        .filter((k) => (one.get(k)?.perTask ?? 0) >= 0.01 || (threeStatements.get(k)?.perTask ?? 0) >= 0.01)
        .map((k) => [
          k.length > 110 ? `${k.slice(0, 107)}...` : k,
          fmt(one.get(k)?.perTask ?? 0, 2),
          fmt((one.get(k)?.msPerTask ?? 0) * 1000, 1),
          fmt(threeStatements.get(k)?.perTask ?? 0, 2),
          fmt((threeStatements.get(k)?.msPerTask ?? 0) * 1000, 1),
        ]),
    ]);

    if (a2aOnly) return;
    const catalog = catalogTurns.map((turns) => ({ turns, all: pooled(turns.map((m) => m.round)) }));
    const sqliteOrders = tput(catalog[0]!.all);
    console.log(`\nCatalog: ${clients} clients each placing one order after the other (1 unit of one of ${productCount} products, round-robin), ${catalogSeconds} s per setup in ${rounds} rounds taking turns\n`);
    printTable([
      ["setup", "orders/s", "of SQLite", "p50 ms", "p99 ms", "refused or failed", "node CPU ms/order", "PostgreSQL CPU ms/order", "statements/order", "stock and orders add up"],
      ...catalogSetups.map((setup, i) => {
        const { turns, all } = catalog[i]!;
        const pg = setup.database !== undefined;
        return [
          setup.name,
          fmt(tput(all)),
          `${fmt((tput(all) / sqliteOrders) * 100)}%`,
          fmt(percentile(all.latencies, 50), 2),
          fmt(percentile(all.latencies, 99), 2),
          `${all.errors}${shops[i]!.statuses.size ? ` (${[...shops[i]!.statuses].map(([s, n]) => `${n}x ${s}`).join(", ")})` : ""}`,
          fmt(perTask(turns, (m) => m.node), 3),
          pg ? fmt(perTask(turns, (m) => m.store), 3) : "-",
          pg ? fmt(statementsPerTask(turns), 1) : "-",
          checks[i]!,
        ];
      }),
    ]);

    const times = failovers.flat();
    const goal = leaseMs + 1000;
    console.log(`\nFailover: ${kills} SIGKILLs (the three nodes in turn, each started again after), 4 running tasks on the victim each time, followed over SSE on a survivor; cluster.lease_ms = ${leaseMs}\n`);
    printTable([
      ["measurement", "median", "max", "goal", "met"],
      ["SIGKILL to each task's final event on a survivor (taken over, settled)", `${fmt(median(times))} ms`, `${fmt(Math.max(...times))} ms`, `< ${goal} ms`, Math.max(...times) < goal ? "yes" : "no"],
    ]);
    console.log(`\nBy kill (ms): ${failovers.map((kill) => `[${kill.map((ms) => fmt(ms)).join(", ")}]`).join(" ")}`);
    // Speed on a shared machine is reported, not enforced; wrong stock or lost orders are failures.
    if (checks.some((c) => c !== "yes")) process.exitCode = 1;
  } finally {
    await cleanup();
  }

  /**
   * Starts `count` tasks that run until cancelled on `victim`, follows each over SSE on `survivor`, SIGKILLs the
   * victim and resolves with the time from the kill to each task's final event.
   */
  async function failover(victim: Running, survivor: Running, count: number) {
    const followed = await Promise.all(
      Array.from({ length: count }, async () => {
        const answer = (await (
          await fetch(`${victim.url}/rpc`, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "message/send",
              params: {
                message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "hold" }] },
                metadata: { taskType: "hold" },
                configuration: { blocking: false },
              },
            }),
          })
        ).json()) as { result: { id: string } };
        return follow(`${survivor.url}/tasks/${answer.result.id}/stream`);
      }),
    );
    // Killed once every task is running as stored (not merely pending, which a takeover would start again).
    await Promise.all(followed.map((f) => f.running));
    victim.proc.kill("SIGKILL");
    const killedAt = performance.now();
    await victim.proc.exited;
    const ended = await Promise.all(followed.map((f) => f.final));
    return ended.map((at) => at - killedAt);
  }
}

/** Follows a task's native SSE stream: resolves `running` once a stored state says so, `final` at the final event. */
function follow(url: string) {
  const running = Promise.withResolvers<void>();
  const final = (async () => {
    const response = await fetch(url);
    let text = "";
    for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) {
      text += chunk;
      for (let end = text.indexOf("\n\n"); end >= 0; end = text.indexOf("\n\n")) {
        const frame = text.slice(0, end);
        text = text.slice(end + 2);
        if (/^event: task\.final$/m.test(frame)) return performance.now();
        if (/"state":"running"/.test(frame)) running.resolve();
      }
    }
    throw new Error(`the stream at ${url} ended without a final event`);
  })();
  final.catch((error) => running.reject(error));
  return { running: running.promise, final };
}

const productCount = 4;

/**
 * Logs in as the admin, makes `productCount` products with ample stock, and gives an `order` that places one unit
 * of the next product through the next node, and a `check` that stock taken equals orders placed equals orders stored.
 */
async function openShop(urls: string[]) {
  const json = { "content-type": "application/json" };
  const login = (await (await fetch(`${urls[0]}/v2/auth/login`, { method: "POST", headers: json, body: JSON.stringify({ email: "bench@shop.test", password: "bench-password" }) })).json()) as {
    accessToken: string;
    customer: { id: string };
  };
  const headers = { ...json, authorization: `Bearer ${login.accessToken}` };
  const stock = 1_000_000;
  const products: string[] = [];
  for (let n = 0; n < productCount; n++) {
    const res = await fetch(`${urls[0]}/v2/products`, { method: "POST", headers, body: JSON.stringify({ name: `Contended ${n}`, price: 9.99, sku: `CONTENDED-${n}`, category: "home", stock }) });
    if (res.status !== 201) throw new Error(`making a product failed: ${res.status} ${await res.text()}`);
    products.push(((await res.json()) as { id: string }).id);
  }
  let next = 0;
  let placed = 0;
  const statuses = new Map<number, number>();
  const shippingAddress = { street: "1 Main St", city: "Springfield", country: "US", postalCode: "12345" };
  const order = async () => {
    const n = next++;
    const res = await fetch(`${urls[n % urls.length]}/v2/orders`, {
      method: "POST",
      headers,
      body: JSON.stringify({ customerId: login.customer.id, items: [{ productId: products[n % productCount], quantity: 1 }], shippingAddress }),
    });
    await res.arrayBuffer();
    if (res.status === 201) placed++;
    else statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    return res.status === 201;
  };
  /** Read through the last node, so on a cluster the check also sees what the other node wrote. */
  const check = async () => {
    const at = urls.at(-1)!;
    const left = await Promise.all(products.map(async (id) => ((await (await fetch(`${at}/v2/products/${id}`, { headers })).json()) as { stock: number }).stock));
    const taken = left.reduce((sum, s) => sum + (stock - s), 0);
    const stored = ((await (await fetch(`${at}/v2/orders?customerId=${login.customer.id}&limit=1`, { headers })).json()) as { pagination: { total: number } }).pagination.total;
    return taken === placed && stored === placed ? "yes" : `no: ${placed} placed, ${taken} units taken, ${stored} stored`;
  };
  return { order, check, statuses };
}

interface Statement {
  query: string;
  calls: number;
  /** Execution time in PostgreSQL, ms. */
  ms: number;
}

/** pg_stat_statements' counts for one database, by query id. */
async function statementsIn(admin: InstanceType<typeof Bun.SQL>, database: string): Promise<Map<string, Statement>> {
  const rows = (await admin.unsafe(
    `SELECT queryid::text AS id, min(query) AS query, sum(calls)::float8 AS calls, sum(total_exec_time)::float8 AS ms
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = $1) GROUP BY queryid`,
    [database],
  )) as { id: string; query: string; calls: number; ms: number }[];
  return new Map(rows.map((r) => [r.id, { query: r.query, calls: r.calls, ms: r.ms }]));
}

// Dispatched last, so every declaration above is initialised.
if (process.argv[2] === "node") await serveNode(process.argv.slice(3));
else await main();
