/**
 * Two nodes selling the last units of one product at once: the stock's row lock lets no order take more than there
 * is, whichever node it reaches. Their limits, logins and idempotency keys hold across the two as well.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createAdmin } from "../../src/catalog/seed.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import type { Running } from "../support/cli.ts";
import { postgresForFile } from "../support/postgres.ts";
import { tempDir } from "../support/temp.ts";
import { startNode } from "./support.ts";

const postgres = postgresForFile();
const root = tempDir();
let store: DatabaseHandle;
let a: Running;
let b: Running;
let admin = "";

const call = async (node: Running, method: string, path: string, { body, token, headers = {} }: { body?: unknown; token?: string; headers?: Record<string, string> } = {}) => {
  const res = await fetch(`${node.url}/v2${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
};

beforeAll(async () => {
  const url = await (await postgres()).database();
  const env = { PLATFORM_CATALOG__RATE_LIMIT_AUTHENTICATED: "100000", PLATFORM_CATALOG__RATE_LIMIT_ANONYMOUS: "20", PLATFORM_CATALOG__RATE_LIMIT_WINDOW_SECONDS: "3600" };
  a = await startNode({ id: "a", url, root: root.path, leaseMs: 2000, env });
  b = await startNode({ id: "b", url, root: root.path, leaseMs: 2000, env });
  store = await openDatabase({ file: "", url });
  await createAdmin(store.db, { email: "admin@shop.test", name: "Admin", password: "admin-password" });
  // Signed in on one node, the token works on the other: they sign with one key.
  admin = (await call(a, "POST", "/auth/login", { body: { email: "admin@shop.test", password: "admin-password" } })).body.accessToken;
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await store?.close();
  root.remove();
});

test("100 orders for the last 7 units, half to each node at once: exactly 7 are placed, the rest refused, none oversold", async () => {
  const product = await call(b, "POST", "/products", { body: { name: "Last Lamp", price: 10, sku: "LAST-1", category: "home", stock: 7 }, token: admin });
  expect(product.status).toBe(201);
  const customer = await call(a, "POST", "/customers", { body: { email: "casey@shop.test", name: "Casey", password: "customer-password" } });
  const token = (await call(b, "POST", "/auth/login", { body: { email: "casey@shop.test", password: "customer-password" } })).body.accessToken;
  const order = (node: Running) =>
    call(node, "POST", "/orders", {
      token,
      body: { customerId: customer.body.id, items: [{ productId: product.body.id, quantity: 1 }], shippingAddress: { street: "1 Main St", city: "Springfield", country: "US", postalCode: "12345" } },
    });
  const results = await Promise.all(Array.from({ length: 100 }, (_, i) => order(i % 2 ? a : b)));
  const placed = results.filter((r) => r.status === 201);
  expect(placed).toHaveLength(7);
  expect(results.filter((r) => r.status === 409)).toHaveLength(93);
  expect(await store.rows(sql`SELECT stock FROM catalog_products WHERE id = ${product.body.id}`)).toEqual([{ stock: 0 }]);
  expect(await store.rows(sql`SELECT count(*)::int AS n FROM catalog_orders WHERE customer_id = ${customer.body.id}`)).toEqual([{ n: 7 }]);
  // Both nodes answer reads of the product with the stock as it now is.
  expect((await call(a, "GET", `/products/${product.body.id}`, { token })).body.stock).toBe(0);
  expect((await call(b, "GET", `/products/${product.body.id}`, { token })).body.stock).toBe(0);
});

test("one Idempotency-Key sent to both nodes at once places one order; both answer with it", async () => {
  const product = await call(a, "POST", "/products", { body: { name: "Kettle", price: 20, sku: "KETTLE-1", category: "home", stock: 5 }, token: admin });
  const customer = await call(b, "POST", "/customers", { body: { email: "robin@shop.test", name: "Robin", password: "customer-password" } });
  const token = (await call(a, "POST", "/auth/login", { body: { email: "robin@shop.test", password: "customer-password" } })).body.accessToken;
  const body = { customerId: customer.body.id, items: [{ productId: product.body.id, quantity: 2 }], shippingAddress: { street: "2 Elm St", city: "Springfield", country: "US", postalCode: "12345" } };
  const [first, second] = await Promise.all([a, b].map((node) => call(node, "POST", "/orders", { token, body, headers: { "idempotency-key": "order-42" } })));
  expect([first!.status, second!.status]).toEqual([201, 201]);
  expect(first!.body.id).toBe(second!.body.id);
  expect(await store.rows(sql`SELECT stock FROM catalog_products WHERE id = ${product.body.id}`)).toEqual([{ stock: 3 }]);
});

test("an anonymous client's rate limit is counted across both nodes", async () => {
  const attempt = (node: Running) => call(node, "POST", "/auth/login", { body: { email: "nobody@shop.test", password: "wrong-password" } });
  // Earlier requests of this address already count; the first answer says how many are left, on either node.
  const first = await attempt(a);
  const left = Number(first.headers.get("x-ratelimit-remaining"));
  expect(first.status).toBe(401);
  const statuses: number[] = [];
  for (let i = 0; i < left + 2; i++) statuses.push((await attempt(i % 2 ? a : b)).status);
  expect(statuses).toEqual([...Array(left).fill(401), 429, 429]);
});
