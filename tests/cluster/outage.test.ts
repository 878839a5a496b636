/**
 * Losing the database under load: PostgreSQL is stopped while a node serves A2A tasks and catalog orders. Meanwhile
 * every request that needs the store is answered at once with its surface's own error (503 over REST, a JSON-RPC
 * error naming the store, an MCP tool error) and /health says the store is down; nothing is half written; once the
 * same server starts again on the same data the node carries on by itself, without a restart.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sql } from "drizzle-orm";
import { createAdmin } from "../../src/catalog/seed.ts";
import { openDatabase } from "../../src/db/client.ts";
import type { Running } from "../support/cli.ts";
import { postgresForFile, type PostgresServer } from "../support/postgres.ts";
import { tempDir } from "../support/temp.ts";
import { rpc, startNode } from "./support.ts";

const postgres = postgresForFile();
const root = tempDir();
const stock = 100_000;
let server: PostgresServer;
let url = "";
let node: Running;
let admin = "";

const call = async (method: string, path: string, { body, token, headers = {} }: { body?: unknown; token?: string; headers?: Record<string, string> } = {}) => {
  const started = performance.now();
  const res = await fetch(`${node.url}/v2${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers, ms: performance.now() - started };
};

/** Resolves when the task's SSE stream ends, which it does with the task's final event. */
const finished = async (id: string) => {
  const text = await (await fetch(`${node.url}/tasks/${id}/stream`)).text();
  return /event: task\.final/.test(text);
};

beforeAll(async () => {
  server = await postgres();
  url = await server.database();
  const store = await openDatabase({ file: "", url });
  await store.rows(sql`CREATE TABLE work_runs (key text NOT NULL, node text NOT NULL)`);
  await createAdmin(store.db, { email: "admin@shop.test", name: "Admin", password: "admin-password" });
  await store.close();
  // A lease longer than the outage: the node keeps its actors throughout and renews its lease when the store is back.
  node = await startNode({ id: "solo", url, root: root.path, leaseMs: 20_000, env: { PLATFORM_CATALOG__RATE_LIMIT_AUTHENTICATED: "1000000" } });
  admin = (await call("POST", "/auth/login", { body: { email: "admin@shop.test", password: "admin-password" } })).body.accessToken;
});
afterAll(async () => {
  await node?.stop();
  root.remove();
});

test("PostgreSQL stopped and started under load: clear errors at once meanwhile, nothing half written, recovery by itself after", async () => {
  const product = (await call("POST", "/products", { body: { name: "Lamp", price: 10, sku: "LAMP-1", category: "home", stock }, token: admin })).body;
  const customer = (await call("POST", "/customers", { body: { email: "casey@shop.test", name: "Casey", password: "customer-password" } })).body;
  const token = (await call("POST", "/auth/login", { body: { email: "casey@shop.test", password: "customer-password" } })).body.accessToken;
  const order = (quantity = 1) =>
    call("POST", "/orders", {
      token,
      body: { customerId: customer.id, items: [{ productId: product.id, quantity }], shippingAddress: { street: "1 Main St", city: "Springfield", country: "US", postalCode: "12345" } },
    });
  const mcp = new Client({ name: "test", version: "1.0.0" });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${node.url}/mcp/cluster-test`)));

  // Load: four clients each sending a task and placing an order in turn, until told to stop.
  const accepted: string[] = [];
  const refusals: { what: string; status: number; code: unknown; ms: number }[] = [];
  let stopLoad = false;
  let served = 0;
  const enough = Promise.withResolvers<void>();
  let sent = 0;
  const client = async (n: number) => {
    while (!stopLoad) {
      const key = `load-${n}-${sent++}`;
      const started = performance.now();
      const answer = await rpc(node.url, "task.send", { type: "work", payload: { key, ms: 5 }, blocking: false });
      if (answer.result) accepted.push(answer.result.id);
      else refusals.push({ what: "task", status: 200, code: answer.error?.code, ms: performance.now() - started });
      const placed = await order();
      if (placed.status !== 201) refusals.push({ what: "order", status: placed.status, code: placed.body?.code, ms: placed.ms });
      if (answer.result && placed.status === 201 && ++served === 40) enough.resolve();
    }
  };
  const load = Promise.all([0, 1, 2, 3].map(client));
  await enough.promise;
  // Tasks whose work ends while the store is down (it is stopped at once, and takes longer than this to come
  // back): their outcome cannot be stored then, and is once it is back.
  for (const n of [1, 2, 3]) {
    const { result } = await rpc(node.url, "task.send", { type: "work", payload: { key: `across-${n}`, ms: 150 }, blocking: false });
    accepted.push(result.id);
  }

  await server.stop();
  // The node hears of the dropped connections at once and says so (its /health turns with this line).
  await node.waitForLine((line) => line.includes('"message":"store unreachable"'));

  const health = await fetch(`${node.url}/health`);
  expect(health.status).toBe(503);
  expect(((await health.json()) as any).subsystems.database).toMatchObject({ status: "down", dialect: "postgresql", reachable: false });

  const refusedOrder = await order();
  expect(refusedOrder.status).toBe(503);
  expect(refusedOrder.body).toMatchObject({ code: "SERVICE_UNAVAILABLE", message: expect.stringContaining("store") });
  expect(refusedOrder.headers.get("retry-after")).toBe("1");
  expect(refusedOrder.ms).toBeLessThan(3000);

  const startedRpc = performance.now();
  const refusedTask = await rpc(node.url, "task.send", { type: "work", payload: { key: "while-down", ms: 0 }, blocking: true });
  expect(refusedTask.error).toMatchObject({ code: -32603, message: expect.stringContaining("store"), data: { store: "unreachable" } });
  expect(performance.now() - startedRpc).toBeLessThan(3000);

  // A tool that needs the store answers a tool error saying so (not the failed query).
  const tool = (await mcp.callTool({ name: "work", arguments: { key: "mcp-while-down", ms: 0 } })) as { isError?: boolean; content: { text: string }[] };
  expect(tool.isError).toBe(true);
  expect(tool.content[0]!.text).toContain("store");
  expect(tool.content[0]!.text).not.toContain("INSERT");

  // Reads that need the store fail the same way on the REST surfaces.
  const product503 = await call("GET", `/products/${product.id}`, { token });
  expect(product503.status).toBe(503);

  await server.start();
  // The node notices by itself (it pings the store every two seconds): no restart, no request needed.
  await node.waitForLine((line) => line.includes('"message":"store reachable again"'));
  stopLoad = true;
  await load;
  // Every answer given while the store was down was an error of the kind above, and none took long.
  expect(refusals.length).toBeGreaterThan(0);
  for (const refusal of refusals) {
    expect(refusal.what === "task" ? refusal.code : refusal.status).toBe(refusal.what === "task" ? -32603 : 503);
    expect(refusal.ms).toBeLessThan(3000);
  }

  // New work succeeds: a blocking task runs to its end, an order is placed, the tool works.
  const after = await rpc(node.url, "task.send", { type: "work", payload: { key: "after", ms: 0 }, blocking: true });
  expect(after.result).toMatchObject({ state: "completed" });
  expect((await order()).status).toBe(201);
  expect(((await mcp.callTool({ name: "work", arguments: { key: "mcp-after", ms: 0 } })) as { isError?: boolean }).isError).toBeFalsy();
  await mcp.close();
  // Every task accepted before, during or after the outage comes to its end.
  expect(await Promise.all(accepted.map(finished))).toEqual(accepted.map(() => true));

  const store = await openDatabase({ file: "", url });
  try {
    // The lease was renewed after the restart, by the store's clock.
    const [lease] = await store.rows<{ live: boolean }>(sql`SELECT expires_at > now() + interval '10 seconds' AS live FROM cluster_nodes WHERE id = 'solo'`);
    expect(lease).toEqual({ live: true });
    // Each task's row and its actor agree, and every one is final.
    const tasks = await store.rows<{ id: string; state: string; status: string; same: boolean }>(
      sql`SELECT t.id, t.state, a.status, (t.revision = a.revision) AS same FROM a2a_tasks t JOIN actors a ON a.id = t.id`,
    );
    expect(tasks.length).toBeGreaterThanOrEqual(accepted.length + 1);
    expect(tasks.filter((t) => !t.same || t.status !== "done" || !["completed", "failed", "cancelled"].includes(t.state))).toEqual([]);
    expect((await store.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM a2a_tasks t LEFT JOIN actors a ON a.id = t.id WHERE a.id IS NULL`))[0]).toEqual({ n: 0 });
    // No task's work was done twice.
    expect(await store.rows(sql`SELECT key FROM work_runs GROUP BY key HAVING count(*) > 1`)).toEqual([]);
    // Every unit that left the stock is in exactly one stored order, and every order has its actor.
    const [sold] = await store.rows<{ n: number }>(sql`SELECT coalesce(sum((item->>'quantity')::int), 0)::int AS n FROM catalog_orders, jsonb_array_elements(items) AS item`);
    const [left] = await store.rows<{ stock: number }>(sql`SELECT stock FROM catalog_products WHERE id = ${product.id}`);
    expect(left!.stock).toBe(stock - sold!.n);
    expect((await store.rows<{ n: number }>(sql`SELECT count(*)::int AS n FROM catalog_orders o LEFT JOIN actors a ON a.id = o.id WHERE a.id IS NULL`))[0]).toEqual({ n: 0 });
  } finally {
    await store.close();
  }
});
