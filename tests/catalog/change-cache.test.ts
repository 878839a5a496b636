import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { ChangeCache } from "../../src/catalog/change-cache.ts";
import { seedProducts } from "../../src/catalog/seed.ts";
import { CatalogService } from "../../src/catalog/service.ts";
import { address, openShop, productInput, type Shop } from "./support.ts";

test("a kept page is served until the mark moves, then everything is computed again", async () => {
  const cache = new ChangeCache<string>(10);
  let computed = 0;
  const page = (mark: string, key: string) => cache.get(mark, key, async () => `${key}@${mark}#${++computed}`);
  expect(await page("m1", "a")).toBe("a@m1#1");
  expect(await page("m1", "a")).toBe("a@m1#1");
  expect(await page("m1", "b")).toBe("b@m1#2");
  expect(await page("m2", "a")).toBe("a@m2#3");
  expect(await page("m2", "b")).toBe("b@m2#4");
});

test("a full cache lets go of the page it has kept longest", async () => {
  const cache = new ChangeCache<number>(2);
  let computed = 0;
  const page = (key: string) => cache.get("m", key, async () => ++computed);
  expect([await page("a"), await page("b"), await page("c")]).toEqual([1, 2, 3]);
  expect(await page("b")).toBe(2);
  expect(await page("c")).toBe(3);
  expect(await page("a")).toBe(4);
});

test("a value whose computation fails is not kept", async () => {
  const cache = new ChangeCache<number>(10);
  let computed = 0;
  await expect(
    cache.get("m", "a", async () => {
      computed++;
      throw new Error("no such row");
    }),
  ).rejects.toThrow("no such row");
  expect(await cache.get("m", "a", async () => ++computed)).toBe(2);
});

let shop: Shop;
beforeAll(async () => {
  shop = await openShop();
});
afterAll(() => shop.stop());

test("a list reflects writes made by another connection to the same database file", async () => {
  const { body: lamp } = await shop.json("POST", "/products", { body: productInput({ name: "Brass Lantern", category: "home" }), token: shop.admin.token });
  const list = () => shop.read("/products?search=lantern&category=home");
  expect((await list()).body.data.map((p: { stock: number }) => p.stock)).toEqual([10]);

  // As another process would: its own connection, writing behind the server's back.
  const other = new Database(join(shop.dataDir, "platform.db"));
  try {
    other.run("UPDATE catalog_products SET stock = 4 WHERE id = ?", [lamp.id]);
    expect((await list()).body.data.map((p: { stock: number }) => p.stock)).toEqual([4]);
    other.run("UPDATE catalog_products SET name = 'Brass Candle' WHERE id = ?", [lamp.id]);
    expect((await list()).body.pagination.total).toBe(0);
    expect((await shop.read("/products?search=candle&category=home")).body.data.map((p: { id: string }) => p.id)).toEqual([lamp.id]);
  } finally {
    other.close();
  }
});

test("a list reflects this server's own writes, stock taken by orders included", async () => {
  const { body: kettle } = await shop.json("POST", "/products", { body: productInput({ name: "Copper Kettle", category: "home" }), token: shop.admin.token });
  const list = () => shop.read("/products?search=kettle&category=home");
  expect((await list()).body.pagination.total).toBe(1);
  await shop.json("PATCH", `/products/${kettle.id}`, { body: { stock: 2 }, token: shop.admin.token });
  expect((await list()).body.data[0].stock).toBe(2);
  const customer = await shop.customer();
  const order = await shop.json("POST", "/orders", {
    body: { customerId: customer.id, items: [{ productId: kettle.id, quantity: 1 }], shippingAddress: address },
    token: customer.token,
  });
  expect(order.status).toBe(201);
  expect((await list()).body.data[0].stock).toBe(1);
  expect((await shop.call("DELETE", `/products/${kettle.id}`, { token: shop.admin.token })).status).toBe(204);
  expect((await list()).body.pagination.total).toBe(0);
});

test("a product read by id reflects writes made by another connection to the same database file", async () => {
  const { body: lamp } = await shop.json("POST", "/products", { body: productInput({ name: "Tin Lamp", category: "home" }), token: shop.admin.token });
  const read = () => shop.read(`/products/${lamp.id}`);
  expect((await read()).body.stock).toBe(10);
  expect((await read()).body.stock).toBe(10);

  const other = new Database(join(shop.dataDir, "platform.db"));
  try {
    other.run("UPDATE catalog_products SET stock = 3, tags = '[\"tin\"]' WHERE id = ?", [lamp.id]);
    expect((await read()).body).toMatchObject({ stock: 3, tags: ["tin"] });
    other.run("DELETE FROM catalog_products WHERE id = ?", [lamp.id]);
    expect((await read()).status).toBe(404);
  } finally {
    other.close();
  }
});

test("a product read by id reflects this server's own writes, stock taken by orders included", async () => {
  const { body: mug } = await shop.json("POST", "/products", { body: productInput({ name: "Enamel Mug", category: "home" }), token: shop.admin.token });
  const read = () => shop.read(`/products/${mug.id}`);
  expect((await read()).body).toEqual(mug);
  const patched = await shop.json("PATCH", `/products/${mug.id}`, { body: { stock: 2, price: 7.5 }, token: shop.admin.token });
  expect((await read()).body).toEqual(patched.body);
  const customer = await shop.customer();
  const order = await shop.json("POST", "/orders", {
    body: { customerId: customer.id, items: [{ productId: mug.id, quantity: 1 }], shippingAddress: address },
    token: customer.token,
  });
  expect(order.status).toBe(201);
  expect((await read()).body.stock).toBe(1);
  expect((await shop.json("PATCH", `/orders/${order.body.id}/status`, { body: { status: "cancelled" }, token: customer.token })).status).toBe(200);
  expect((await read()).body.stock).toBe(2);
  expect((await shop.call("DELETE", `/products/${mug.id}`, { token: shop.admin.token })).status).toBe(204);
  expect((await read()).status).toBe(404);
});

test("a page is whole when the products it lists push others out of the full product cache", async () => {
  // A service of its own over the shop's database, whose product cache (10,000) is filled by reads by id.
  const catalog = new CatalogService(shop.runtime.database.db, shop.runtime.actors);
  const admin = { id: "test", role: "admin" as const };
  await seedProducts(shop.runtime.database.db, 10_100);
  await catalog.productsIndexed();
  const all = (await shop.runtime.database.rows<{ id: string }>(sql`SELECT id FROM catalog_products ORDER BY created_at DESC, id DESC`)).map((r) => r.id);
  const firstPage = all.slice(0, 100);
  // The second half of the first page is kept first, so it is what the cache lets go of first; then others fill it.
  for (const id of [...firstPage.slice(50), ...all.slice(100, 10_050)]) await catalog.getProduct(admin, id);
  // Keeping the first half as the page is made pushes out the second half before it is taken.
  const page = await catalog.listProducts(admin, { page: 1, limit: 100 });
  expect(page.data.map((p) => p.id)).toEqual(firstPage);
  expect(page.data.every((p) => typeof p.name === "string")).toBe(true);
});
