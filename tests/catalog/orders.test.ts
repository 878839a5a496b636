import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { findActor } from "../../actors/repo.ts";
import { ActorPersistError } from "../../actors/system.ts";
import { orderKind } from "../../src/catalog/order-actor.ts";
import { findOrder, findProduct } from "../../src/catalog/repo.ts";
import { address, openShop, productInput, type Shop } from "./support.ts";
import { stores, storesForFile } from "../support/stores.ts";
import { failOnStalls } from "../support/loop.ts";

failOnStalls();

const fixture = storesForFile();

describe.each(stores)("on %s", (kind) => {
  let shop: Shop;
  beforeAll(async () => {
    shop = await openShop((await fixture.fresh(kind)).env);
  });
  afterAll(() => shop.stop());

  async function product(overrides: Record<string, unknown> = {}) {
    const res = await shop.json("POST", "/products", { body: productInput(overrides), token: shop.admin.token });
    expect(res.status).toBe(201);
    return res.body as { id: string; stock: number; price: number };
  }
  const stockOf = async (id: string) => (await shop.read(`/products/${id}`)).body.stock as number;
  const order = (token: string, customerId: string, items: { productId: string; quantity: number }[], headers?: Record<string, string>) =>
    shop.json("POST", "/orders", { body: { customerId, items, shippingAddress: address }, token, headers });

  test("an order takes prices from the products, totals exactly in cents, and reserves stock", async () => {
    const a = await product({ price: 0.1, stock: 5 });
    const b = await product({ price: 0.2, stock: 5 });
    const casey = await shop.customer();
    const res = await order(casey.token, casey.id, [
      { productId: a.id, quantity: 3 },
      { productId: b.id, quantity: 1 },
    ]);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      customerId: casey.id,
      status: "pending",
      totalAmount: 0.5,
      items: [
        { productId: a.id, quantity: 3, price: 0.1 },
        { productId: b.id, quantity: 1, price: 0.2 },
      ],
      shippingAddress: address,
    });
    expect(await stockOf(a.id)).toBe(2);
    expect(await stockOf(b.id)).toBe(4);
    // A later price change does not touch the placed order.
    await shop.json("PATCH", `/products/${a.id}`, { body: { price: 99 }, token: shop.admin.token });
    expect((await shop.json("GET", `/orders/${res.body.id}`, { token: casey.token })).body.totalAmount).toBe(0.5);
  });

  test("an unknown product is 400 naming the item, too little stock is 409; neither changes stock", async () => {
    const a = await product({ stock: 2 });
    const casey = await shop.customer();
    const unknown = await order(casey.token, casey.id, [
      { productId: a.id, quantity: 1 },
      { productId: crypto.randomUUID(), quantity: 1 },
    ]);
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: "VALIDATION_ERROR", details: { fields: [{ field: "items[1].productId" }] } });
    const short = await order(casey.token, casey.id, [{ productId: a.id, quantity: 3 }]);
    expect(short.status).toBe(409);
    expect(short.body).toMatchObject({ code: "CONFLICT", details: { productId: a.id, requested: 3, available: 2 } });
    // The same product twice counts together.
    const twice = await order(casey.token, casey.id, [
      { productId: a.id, quantity: 2 },
      { productId: a.id, quantity: 1 },
    ]);
    expect(twice.status).toBe(409);
    expect(await stockOf(a.id)).toBe(2);
    expect((await shop.json("GET", "/orders", { token: casey.token })).body.data).toEqual([]);
  });

  test("order input rules: items, quantities, address, customer id, unknown fields", async () => {
    const a = await product();
    const casey = await shop.customer();
    const bad: [unknown, string][] = [
      [{ customerId: casey.id, items: [], shippingAddress: address }, "items"],
      [{ customerId: casey.id, items: [{ productId: a.id, quantity: 0 }], shippingAddress: address }, "items[0].quantity"],
      [{ customerId: casey.id, items: [{ productId: a.id, quantity: 1.5 }], shippingAddress: address }, "items[0].quantity"],
      ...["3", "0x10", "1e2", " 3"].map((quantity): [unknown, string] => [{ customerId: casey.id, items: [{ productId: a.id, quantity }], shippingAddress: address }, "items[0].quantity"]),
      [{ customerId: casey.id, items: [{ productId: a.id, quantity: 1, price: 0 }], shippingAddress: address }, "items[0].price"],
      [{ customerId: casey.id, items: [{ productId: a.id, quantity: 1 }], shippingAddress: { ...address, city: undefined } }, "shippingAddress.city"],
      [{ customerId: "not-a-uuid", items: [{ productId: a.id, quantity: 1 }], shippingAddress: address }, "customerId"],
      [{ customerId: casey.id, items: [{ productId: a.id, quantity: 1 }], shippingAddress: address, status: "shipped" }, "status"],
    ];
    for (const [body, field] of bad) {
      const res = await shop.json("POST", "/orders", { body, token: casey.token });
      expect(res.status, field).toBe(400);
      expect(res.body.details.fields.map((f: { field: string }) => f.field), field).toContain(field);
    }
    expect(await stockOf(a.id)).toBe(10);
  });

  test("status moves follow the machine; any other move is 409 naming the current state; cancel returns stock", async () => {
    const a = await product({ stock: 4 });
    const casey = await shop.customer();
    const { body: placed } = await order(casey.token, casey.id, [{ productId: a.id, quantity: 3 }]);
    const move = (status: string, token = shop.admin.token) => shop.json("PATCH", `/orders/${placed.id}/status`, { body: { status }, token });

    expect((await move("processing", casey.token)).status).toBe(403);
    const skipped = await move("delivered");
    expect(skipped.status).toBe(409);
    expect(skipped.body).toMatchObject({ code: "CONFLICT", details: { currentStatus: "pending", requestedStatus: "delivered" } });
    expect(skipped.body.message).toContain("pending");
    expect((await move("processing")).body.status).toBe("processing");
    expect((await move("shipped")).body.status).toBe("shipped");
    const late = await move("cancelled");
    expect(late.status).toBe(409);
    expect(late.body.details.currentStatus).toBe("shipped");
    expect(await stockOf(a.id)).toBe(1);
    expect((await move("delivered")).body.status).toBe("delivered");
    expect((await move("pending")).body.details).toEqual({ currentStatus: "delivered", requestedStatus: "pending" });

    const { body: second } = await order(casey.token, casey.id, [{ productId: a.id, quantity: 1 }]);
    expect(await stockOf(a.id)).toBe(0);
    const cancelled = await shop.json("PATCH", `/orders/${second.id}/status`, { body: { status: "cancelled" }, token: casey.token });
    expect(cancelled.body.status).toBe("cancelled");
    expect(await stockOf(a.id)).toBe(1);
    const again = await shop.json("PATCH", `/orders/${second.id}/status`, { body: { status: "cancelled" }, token: casey.token });
    expect(again.status).toBe(409);
    expect(await stockOf(a.id)).toBe(1);
  });

  test("a customer sees and places only their own orders; an admin sees all and filters", async () => {
    const a = await product({ stock: 10 });
    const casey = await shop.customer("Casey");
    const robin = await shop.customer("Robin");
    const { body: mine } = await order(casey.token, casey.id, [{ productId: a.id, quantity: 1 }]);
    await order(robin.token, robin.id, [{ productId: a.id, quantity: 1 }]);

    expect((await order(casey.token, robin.id, [{ productId: a.id, quantity: 1 }])).status).toBe(403);
    expect((await shop.json("GET", `/orders/${mine.id}`, { token: robin.token })).status).toBe(404);
    expect((await shop.json("PATCH", `/orders/${mine.id}/status`, { body: { status: "cancelled" }, token: robin.token })).status).toBe(404);
    const robinsList = await shop.json("GET", "/orders", { token: robin.token });
    expect(robinsList.body.data.every((o: { customerId: string }) => o.customerId === robin.id)).toBe(true);
    expect((await shop.json("GET", `/orders?customerId=${casey.id}`, { token: robin.token })).body.data).toEqual([]);

    const caseys = await shop.json("GET", `/orders?customerId=${casey.id}&status=pending`, { token: shop.admin.token });
    expect(caseys.body.data.map((o: { id: string }) => o.id)).toEqual([mine.id]);
    expect((await shop.json("GET", "/orders?status=lost", { token: shop.admin.token })).status).toBe(400);
    expect((await shop.json("GET", "/orders")).status).toBe(401);
  });

  test("Idempotency-Key: a retry returns the first order and reserves nothing more; another body is a conflict", async () => {
    const a = await product({ stock: 5 });
    const casey = await shop.customer();
    const key = { "idempotency-key": `retry-${crypto.randomUUID()}` };
    const first = await order(casey.token, casey.id, [{ productId: a.id, quantity: 2 }], key);
    const retry = await order(casey.token, casey.id, [{ productId: a.id, quantity: 2 }], key);
    expect(first.status).toBe(201);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(await stockOf(a.id)).toBe(3);
    // The same content in another key order, at every level, is the same request.
    const reordered = await shop.json("POST", "/orders", {
      body: `{"shippingAddress":${JSON.stringify(Object.fromEntries(Object.entries(address).reverse()))},"items":[{"quantity":2,"productId":"${a.id}"}],"customerId":"${casey.id}"}`,
      token: casey.token,
      headers: key,
    });
    expect(reordered.status).toBe(201);
    expect(reordered.body).toEqual(first.body);
    expect(reordered.headers.get("idempotent-replayed")).toBe("true");
    const changed = await order(casey.token, casey.id, [{ productId: a.id, quantity: 1 }], key);
    expect(changed.status).toBe(409);
    expect(changed.body.details.orderId).toBe(first.body.id);
    expect(await stockOf(a.id)).toBe(3);
  });

  test("50 concurrent orders on stock 7: exactly 7 succeed, the rest are 409, every success is stored", async () => {
    const a = await product({ stock: 7 });
    const casey = await shop.customer();
    const results = await Promise.all(Array.from({ length: 50 }, () => order(casey.token, casey.id, [{ productId: a.id, quantity: 1 }])));
    const placed = results.filter((r) => r.status === 201);
    expect(placed).toHaveLength(7);
    expect(results.filter((r) => r.status === 409)).toHaveLength(43);
    expect(await stockOf(a.id)).toBe(0);
    const listed = await shop.json("GET", `/orders?customerId=${casey.id}&limit=100`, { token: shop.admin.token });
    expect(listed.body.data.map((o: { id: string }) => o.id).sort()).toEqual(placed.map((r) => r.body.id).sort());
  });

  test("when stock runs out between the check and the transaction, the snapshot, row and reservation all roll back", async () => {
    const a = await product({ stock: 1 });
    const casey = await shop.customer();
    const id = crypto.randomUUID();
    const { actors, database } = shop.runtime;
    const spawn = actors.spawn(orderKind, id, {
      customerId: casey.id,
      items: [{ productId: a.id, quantity: 2, priceCents: 100 }],
      totalCents: 200,
      shippingAddress: address,
      createdAt: Date.now(),
    });
    await expect(spawn).rejects.toThrow(ActorPersistError);
    expect(await findOrder(database.db, id)).toBeUndefined();
    expect((await findProduct(database.db, a.id))!.stock).toBe(1);
    expect(await findActor(database.db, id)).toBeUndefined();
  });
});
