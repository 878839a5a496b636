import { afterAll, expect, test } from "bun:test";
import { serve, sourceCommand, type Running } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { address } from "./support.ts";

const dir = tempDir();
const running: Running[] = [];
afterAll(async () => {
  for (const server of running) await server.stop();
  dir.remove();
});

async function run(args: string[], stdin?: string) {
  const proc = Bun.spawn([...sourceCommand, ...args, "--data-dir", dir.path], {
    stdin: stdin === undefined ? "ignore" : new Blob([stdin]),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

test("seed fills products, admin creates the first admin, and an order survives a restart of the server", async () => {
  expect((await run(["catalog", "seed", "--products", "25"])).stdout).toContain("added 25 products");
  expect((await run(["catalog", "seed", "--products", "0"])).code).toBe(2);
  const admin = await run(["catalog", "admin", "--email", "owner@shop.test", "--password-stdin"], "owner-password\n");
  expect(admin.code).toBe(0);
  const again = await run(["catalog", "admin", "--email", "owner@shop.test"]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain("already registered");
  const generated = await run(["catalog", "admin", "--email", "second@shop.test"]);
  const password = generated.stdout.match(/password: (\S+)/)![1]!;

  const env = { PLATFORM_CATALOG__RATE_LIMIT_ANONYMOUS: "1000" };
  let server = await serve(dir.path, { env });
  running.push(server);
  const post = (path: string, body: unknown, token?: string, method = "POST") =>
    fetch(`${server.url}/v2${path}`, {
      method,
      headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }));

  expect((await post("/auth/login", { email: "second@shop.test", password })).status).toBe(200);
  const { body: tokens } = await post("/auth/login", { email: "owner@shop.test", password: "owner-password" });
  const read = (path: string) => fetch(`${server.url}/v2${path}`, { headers: { authorization: `Bearer ${tokens.accessToken}` } }).then((r) => r.json() as any);
  const list = await read("/products?limit=5");
  expect(list.pagination.total).toBe(25);
  const product = list.data.find((p: { stock: number }) => p.stock > 0);
  const placed = await post("/orders", { customerId: tokens.customer.id, items: [{ productId: product.id, quantity: 1 }], shippingAddress: address }, tokens.accessToken);
  expect(placed.status).toBe(201);

  expect(await server.stop()).toBe(0);
  server = await serve(dir.path, { env });
  running.push(server);
  const moved = await post(`/orders/${placed.body.id}/status`, { status: "processing" }, tokens.accessToken, "PATCH");
  expect(moved.body.status).toBe("processing");
  const cancelled = await post(`/orders/${placed.body.id}/status`, { status: "cancelled" }, tokens.accessToken, "PATCH");
  expect(cancelled.body.status).toBe("cancelled");
  const restocked = await read(`/products/${product.id}`);
  expect(restocked.stock).toBe(product.stock);
}, 60_000); // several real processes start in turn
