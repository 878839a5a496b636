/**
 * `bun scripts/bench/audit.ts [--seconds S] [--rounds R] [--clients C]`
 *
 * What the authorization audit costs in the store against the data dir's file. Every A2A call is authorized, and
 * every decision audited: the same load as the A2A section of cluster.ts (message/send of a trivial task, answered
 * once completed, from closed-loop clients) against four real `platform serve` nodes (cluster.ts run as `node`): one
 * on SQLite and one on PostgreSQL (a throwaway cluster of Debian's server), each with
 * `authorization.audit.destination` set to the file and to `store://`. The setups take turns, round by round. Prints
 * one table: tasks/s, p50/p99, CPU per task of the node (and of PostgreSQL), the store's ratio to the file on each
 * dialect, and the audit records each node wrote and dropped (from /health), which shows every decision was audited.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { closedLoop, cpuSeconds, inTurns, percentile, pooled, postmasterOf, printTable, treeCpuSeconds, type Round } from "./support.ts";

const { values } = parseArgs({ options: { seconds: { type: "string" }, rounds: { type: "string" }, clients: { type: "string" } } });
const seconds = Number(values.seconds ?? 10);
const rounds = Number(values.rounds ?? 5);
const clients = Number(values.clients ?? 64);

const { serve } = await import("../../tests/support/cli.ts");
const { openAuthorization } = await import("../../tests/a2a/support.ts");
const { startPostgres } = await import("../../tests/support/postgres.ts");
type Running = Awaited<ReturnType<typeof serve>>;

const root = mkdtempSync(join(tmpdir(), "platform-bench-audit-"));
const nodes: Running[] = [];
let postgres: Awaited<ReturnType<typeof startPostgres>> | undefined;
let cleaning: Promise<void> | undefined;
const cleanup = () =>
  (cleaning ??= (async () => {
    await Promise.all(nodes.map((node) => node.stop("SIGKILL")));
    await postgres?.remove().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  })());
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void cleanup().then(() => process.exit(130)));

try {
  console.error("starting PostgreSQL and four nodes...");
  postgres = await startPostgres();
  const common = { ...openAuthorization, PLATFORM_LOG__ACCESS: "false", PLATFORM_VAULT__SETUP_ENABLED: "false", PLATFORM_VAULT__KEY_DIR: join(root, "vault-keys") };
  const setups = [
    { name: "SQLite, audit to the file", store: "sqlite", url: undefined as string | undefined, destination: "" },
    { name: "SQLite, audit to the store", store: "sqlite", url: undefined, destination: "store://" },
    { name: "PostgreSQL, audit to the file", store: "postgresql", url: await postgres.database(), destination: `file://${join(root, "pg-audit.jsonl")}` },
    { name: "PostgreSQL, audit to the store", store: "postgresql", url: await postgres.database(), destination: "" },
  ];
  const running = await Promise.all(
    setups.map(async (setup, i) => {
      const dataDir = join(root, `node-${i}`);
      mkdirSync(dataDir);
      const env = { ...common, ...(setup.url ? { DATABASE_URL: setup.url } : {}), PLATFORM_AUTHORIZATION__AUDIT__DESTINATION: setup.destination };
      const node = await serve(dataDir, { command: [process.execPath, join(import.meta.dir, "cluster.ts"), "node"], env });
      nodes.push(node);
      const health = (await (await fetch(`${node.url}/health`)).json()) as { subsystems: { authorization: { audit: { destination: string } } } };
      return { ...setup, node, auditsTo: health.subsystems.authorization.audit.destination };
    }),
  );
  const postmaster = postmasterOf(postgres.port);

  const send = (url: string) => async () => {
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: { message: { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text: "hello" }] }, metadata: { taskType: "echo" } },
    });
    const response = await fetch(`${url}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body });
    return ((await response.json()) as { result?: { status?: { state?: string } } }).result?.status?.state === "completed";
  };
  const senders = running.map((r) => send(r.node.url));
  console.error(`${clients} clients, ${rounds} rounds of ${(seconds / rounds).toFixed(1)} s per setup, taking turns...`);
  for (const s of senders) await closedLoop(clients, 3, s);
  const turns = await inTurns(
    rounds,
    running.map((setup, i) => async () => {
      await closedLoop(clients, 0.25, senders[i]!);
      const spent = async () => ({ node: await cpuSeconds(setup.node.proc.pid), store: setup.url ? await treeCpuSeconds(postmaster) : 0 });
      const before = await spent();
      const round = await closedLoop(clients, seconds / rounds, senders[i]!);
      const after = await spent();
      return { round, node: after.node - before.node, store: after.store - before.store };
    }),
  );
  const audits = await Promise.all(
    running.map(async ({ node }) => {
      const health = (await (await fetch(`${node.url}/health`)).json()) as { subsystems: { authorization: { allowed: number; denied: number; audit: { written: number; pending: number; dropped: number } } } };
      const { allowed, denied, audit } = health.subsystems.authorization;
      return { decisions: allowed + denied, ...audit };
    }),
  );

  const fmt = (n: number, digits = 0) => (Number.isFinite(n) ? n.toFixed(digits) : "-");
  const tput = (r: Round) => r.completed / r.seconds;
  const all = turns.map((list) => pooled(list.map((m) => m.round)));
  const perTask = (i: number, f: (m: (typeof turns)[number][number]) => number) => (turns[i]!.reduce((n, m) => n + f(m), 0) / all[i]!.completed) * 1000;
  console.log(`\nAudit destination: A2A message/send of a trivial task (each call one authorization decision, audited); ${clients} clients, ${seconds} s per setup in ${rounds} rounds taking turns, loopback, 2 shared cores\n`);
  printTable([
    ["setup", "audits to", "tasks/s", "store/file", "p50 ms", "p99 ms", "errors", "node CPU ms/task", "PostgreSQL CPU ms/task", "decisions", "audited", "dropped"],
    ...running.map((setup, i) => {
      const file = i % 2 === 0 ? i : i - 1;
      return [
        setup.name,
        setup.auditsTo.startsWith("file://") ? "file://…/audit.jsonl" : setup.auditsTo,
        fmt(tput(all[i]!)),
        i % 2 === 1 ? `${fmt((tput(all[i]!) / tput(all[file]!)) * 100)}%` : "",
        fmt(percentile(all[i]!.latencies, 50), 2),
        fmt(percentile(all[i]!.latencies, 99), 2),
        String(all[i]!.errors),
        fmt(perTask(i, (m) => m.node), 3),
        setup.url ? fmt(perTask(i, (m) => m.store), 3) : "-",
        String(audits[i]!.decisions),
        String(audits[i]!.written + audits[i]!.pending),
        String(audits[i]!.dropped),
      ];
    }),
  ]);
  const ratios = (store: number) => turns[store]!.map((m, r) => tput(m.round) / tput(turns[store - 1]![r]!.round)).map((x) => `${fmt(x * 100)}%`);
  console.log(`\nStore/file, round by round: SQLite ${ratios(1).join(", ")}; PostgreSQL ${ratios(3).join(", ")}`);
} finally {
  await cleanup();
}
