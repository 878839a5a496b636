/**
 * `platform cluster status` as a person and a script use it, against real nodes on one PostgreSQL store: it lists
 * every node with its URL, heartbeat and lease, and the actors each holds by kind, agreeing with each node's own
 * /health; a node that stopped shows as expired; a store it cannot reach is a clear error that keeps the password
 * out; on SQLite it says there is one node.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../src/db/client.ts";
import { Keyring } from "../../src/vault/keys.ts";
import { countDataKeys } from "../../src/vault/repo.ts";
import { runPlatform, serve, type Running } from "../support/cli.ts";
import { postgresForFile } from "../support/postgres.ts";
import { tempDir } from "../support/temp.ts";
import { rpc, startNode } from "./support.ts";

const postgres = postgresForFile();
const root = tempDir();
const leaseMs = 3000;
let url = "";
let a: Running;
let b: Running;

const status = (args: string[], env: Record<string, string> = { DATABASE_URL: url }) =>
  runPlatform(["cluster", "status", "--data-dir", join(root.path, "cli"), ...args], { env });

beforeAll(async () => {
  url = await (await postgres()).database();
  [a, b] = await Promise.all([startNode({ id: "a", url, root: root.path, leaseMs }), startNode({ id: "b", url, root: root.path, leaseMs })]);
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  root.remove();
});

test("two nodes started at once on a fresh store create one set of vault keys between them, which opens", async () => {
  const store = await openDatabase({ file: "", url });
  try {
    expect(await countDataKeys(store.db)).toBe(1);
  } finally {
    await store.close();
  }
  const dir = join(root.path, "vault-keys");
  expect(readdirSync(dir).filter((name) => name.includes(".key")).sort()).toEqual(["master.key", "unseal.key"]);
  const keyring = new Keyring(dir);
  expect(keyring.open(keyring.readUnsealMaterial()).current).toBe(1);
});

test("lists each node with its URL, a fresh heartbeat, a standing lease and the actors it holds by kind, as /health does", async () => {
  const tasks = await Promise.all([1, 2, 3].map(async () => (await rpc(a.url, "task.send", { type: "hold", blocking: false })).result));
  expect(tasks.map((task) => task.state)).toEqual(["running", "running", "running"]);
  const store = await openDatabase({ file: "", url });
  const [{ kind }] = (await store.rows<{ kind: string }>(sql`SELECT kind FROM actors WHERE id = ${tasks[0].id}`)) as [{ kind: string }];
  await store.close();

  const run = await status(["--json"]);
  expect(run.code).toBe(0);
  const report = JSON.parse(run.stdout);
  expect(report.store).toEqual({ dialect: "postgresql", location: url });
  expect(report.nodes.map((node: any) => [node.id, node.url, node.live])).toEqual([
    ["a", a.url, true],
    ["b", b.url, true],
  ]);
  for (const node of report.nodes) {
    // Renewed every third of the lease: a live node's last heartbeat is at most that old, and its lease stands.
    expect(node.heartbeatAgeMs).toBeLessThanOrEqual(leaseMs);
    expect(node.expiresInMs).toBeGreaterThan(0);
  }
  const [onA, onB] = report.nodes;
  expect(onA.actors.byKind[kind]).toBe(3);
  expect(onB.actors.byKind[kind]).toBeUndefined();

  // Each node's /health names it, its store and how many actors it owns: what the store says it holds.
  for (const [node, listed] of [[a, onA], [b, onB]] as const) {
    const health = (await (await fetch(`${node.url}/health`)).json()) as any;
    expect(health.node).toBe(listed.id);
    expect(health.subsystems.database).toMatchObject({ status: "ok", dialect: "postgresql", reachable: true });
    expect(health.subsystems.cluster).toMatchObject({ status: "ok", node: listed.id, owned: listed.actors.total });
  }

  const table = await status([]);
  expect(table.code).toBe(0);
  expect(table.stdout).toContain("2 nodes, 2 alive");
  expect(table.stdout).toMatch(new RegExp(`^a +${a.url.replaceAll(".", "\\.")} +\\d+\\.\\d s ago +in \\d+\\.\\d s +alive +\\d+ \\(.*${kind} 3`, "m"));

  await Promise.all(tasks.map((task) => rpc(a.url, "task.cancel", { id: task.id })));
});

test("a node that stopped shows as expired, holding nothing", async () => {
  expect(await b.stop()).toBe(0);
  const report = JSON.parse((await status(["--json"])).stdout);
  expect(report.nodes.find((node: any) => node.id === "b")).toMatchObject({ live: false, actors: { total: 0 } });
  expect(report.nodes.find((node: any) => node.id === "a")).toMatchObject({ live: true });
  expect((await status([])).stdout).toMatch(/^b +\S+ +\d+\.\d s ago +\d+\.\d s ago +expired +0$/m);
});

test("a store it cannot reach is a clear error naming it, without its password", async () => {
  const { port } = await postgres();
  // A port nothing listens on, on the same host as the test's server.
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const closed = probe.port;
  probe.stop(true);
  expect(closed).not.toBe(port);
  const run = await status(["--json"], { DATABASE_URL: `postgres://platform:s3cret-word@127.0.0.1:${closed}/platform` });
  expect(run.code).toBe(1);
  expect(run.stdout).toBe("");
  expect(run.stderr).toContain(`platform cluster: the PostgreSQL store at postgres://platform:***@127.0.0.1:${closed}/platform could not be opened`);
  expect(run.stderr).not.toContain("s3cret-word");
});

test("on SQLite it says there is one node: the one serving the data dir", async () => {
  const dataDir = join(root.path, "single");
  const single = await serve(dataDir);
  try {
    const run = await runPlatform(["cluster", "status", "--json", "--data-dir", dataDir]);
    expect(run.code).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.store.dialect).toBe("sqlite");
    expect(report.nodes).toHaveLength(1);
    expect(report.nodes[0]).toMatchObject({ url: single.url, live: true });
    expect((await runPlatform(["cluster", "status", "--data-dir", dataDir])).stdout).toStartWith("SQLite store platform.db: one node");
  } finally {
    await single.stop();
  }
});
