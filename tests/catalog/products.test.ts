import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openShop, productInput, type Shop } from "./support.ts";
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

  const create = (body: unknown) => shop.json("POST", "/products", { body, token: shop.admin.token });

  test("an admin creates a product; anyone reads it back with the price as a number", async () => {
    const created = await create(productInput({ price: 0.07 }));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: "Desk Lamp", price: 0.07, category: "home", stock: 10, tags: ["lighting"] });
    expect(created.body.id).toMatch(/^[0-9a-f-]{36}$/);
    const read = await shop.read(`/products/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created.body);
  });

  test("text the store cannot hold (NUL, half a surrogate pair) is refused with 400 on PostgreSQL and kept on SQLite", async () => {
    const before = (await shop.read("/products?limit=1")).body.pagination.total;
    const created = await create(productInput({ name: "Lamp\u0000", sku: "NUL-1", tags: ["a\ud800"] }));
    if (kind === "sqlite") return void expect(created.body).toMatchObject({ name: "Lamp\u0000", tags: ["a\ud800"] });
    expect(created.status).toBe(400);
    expect(created.body).toMatchObject({ code: "VALIDATION_ERROR", details: { fields: [{ field: "body", message: expect.stringContaining("NUL character") }] } });
    expect((await shop.read("/products?limit=1")).body.pagination.total).toBe(before);
  });

  test("each field rule is enforced, naming the field, and nothing is created", async () => {
    const before = (await shop.read("/products?limit=1")).body.pagination.total;
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "" }, "name"],
      [{ name: "x".repeat(201) }, "name"],
      [{ description: "x".repeat(2001) }, "description"],
      [{ price: -1 }, "price"],
      [{ price: "12" }, "price"],
      [{ price: 1.005 }, "price"],
      [{ sku: "lower-case" }, "sku"],
      [{ sku: "A B" }, "sku"],
      [{ category: "toys" }, "category"],
      [{ stock: -1 }, "stock"],
      [{ stock: 1.5 }, "stock"],
      // Integers are JSON numbers: text that reads as one is refused, not converted.
      [{ stock: "3" }, "stock"],
      [{ stock: "0x10" }, "stock"],
      [{ stock: "1e2" }, "stock"],
      [{ stock: " 3" }, "stock"],
      [{ images: ["not a uri"] }, "images[0]"],
      [{ tags: [5] }, "tags[0]"],
      [{ color: "red" }, "color"],
    ];
    for (const [override, field] of cases) {
      const res = await create(productInput(override));
      expect(res.status, JSON.stringify(override)).toBe(400);
      expect(res.body.code).toBe("VALIDATION_ERROR");
      expect(res.body.details.fields.map((f: { field: string }) => f.field)).toContain(field);
    }
    const missing = await create({ name: "No price" });
    expect(missing.status).toBe(400);
    expect(missing.body.details.fields.map((f: { field: string }) => f.field).sort()).toEqual(["price", "sku"]);
    expect((await shop.read("/products?limit=1")).body.pagination.total).toBe(before);
  });

  test("category is optional: a product without one has category null and no category filter finds it", async () => {
    const { category: _, ...uncategorised } = productInput({ name: "Gift Card Qx" });
    const created = await create(uncategorised);
    expect(created.status).toBe(201);
    expect(created.body.category).toBeNull();
    expect((await shop.read(`/products/${created.body.id}`)).body).toEqual(created.body);
    expect((await shop.read("/products?search=gift card qx")).body.data.map((p: { id: string }) => p.id)).toEqual([created.body.id]);
    for (const category of ["electronics", "clothing", "books", "home", "sports"])
      expect((await shop.read(`/products?search=gift card qx&category=${category}`)).body.pagination.total).toBe(0);
    const placed = await shop.json("PATCH", `/products/${created.body.id}`, { body: { category: "books" }, token: shop.admin.token });
    expect(placed.body.category).toBe("books");
    expect((await shop.read("/products?search=gift card qx&category=books")).body.pagination.total).toBe(1);
  });

  test("reads carry an ETag; If-None-Match with it is 304 with no body until the product changes", async () => {
    const { body: product } = await create(productInput({ name: "Etag Lamp" }));
    const auth = { token: shop.admin.token };
    for (const path of [`/products/${product.id}`, "/products?search=etag lamp", `/customers/${(await shop.customer()).id}`, "/orders"]) {
      const first = await shop.call("GET", path, auth);
      expect(first.status, path).toBe(200);
      const etag = first.headers.get("etag")!;
      expect(etag, path).toMatch(/^"[0-9a-z]+"$/);
      const body = await first.text();
      const again = await shop.call("GET", path, { ...auth, headers: { "if-none-match": etag } });
      expect(again.status, path).toBe(304);
      expect(again.headers.get("etag")).toBe(etag);
      expect(again.headers.get("x-ratelimit-remaining")).not.toBeNull();
      expect(await again.text()).toBe("");
      // Weak comparison, lists and "*" match; another tag does not.
      for (const header of [`W/${etag}`, `"other", ${etag}`, "*"]) expect((await shop.call("GET", path, { ...auth, headers: { "if-none-match": header } })).status, header).toBe(304);
      const other = await shop.call("GET", path, { ...auth, headers: { "if-none-match": '"other"' } });
      expect(other.status).toBe(200);
      expect(await other.text()).toBe(body);
    }
    const tag = (await shop.call("GET", `/products/${product.id}`, auth)).headers.get("etag")!;
    await shop.json("PATCH", `/products/${product.id}`, { body: { stock: 1 }, token: shop.admin.token });
    const changed = await shop.call("GET", `/products/${product.id}`, { ...auth, headers: { "if-none-match": tag } });
    expect(changed.status).toBe(200);
    expect(changed.headers.get("etag")).not.toBe(tag);
    expect(((await changed.json()) as { stock: number }).stock).toBe(1);
  });

  test("malformed JSON is a catalog-format 400", async () => {
    const res = await shop.json("POST", "/products", { body: '{"name": ', token: shop.admin.token });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: "VALIDATION_ERROR", details: { fields: [{ field: "body" }] } });
  });

  test("a body is a JSON object sent as JSON: text, a form, an array or a bare value is refused as such", async () => {
    const text = JSON.stringify(productInput());
    for (const [body, type, message] of [
      [text, "text/plain", "must be JSON, sent with Content-Type: application/json"],
      ["name=Lamp&price=3", "application/x-www-form-urlencoded", "must be JSON, sent with Content-Type: application/json"],
      ["[]", "application/json", "must be a JSON object"],
      ['"lamp"', "application/json", "must be a JSON object"],
      ["null", "application/json", "must be a JSON object"],
    ] as const) {
      const res = await shop.json("POST", "/products", { body, token: shop.admin.token, headers: { "content-type": type } });
      expect(res.status, `${type} ${body}`).toBe(400);
      expect(res.body.details.fields, `${type} ${body}`).toEqual([{ field: "body", message }]);
    }
    // Parameters such as a charset do not matter.
    for (const type of ["application/json; charset=utf-8", "application/json;charset=UTF-8"])
      expect((await shop.json("POST", "/products", { body: JSON.stringify(productInput()), token: shop.admin.token, headers: { "content-type": type } })).status, type).toBe(201);
  });

  test("a method a path does not answer is 405 with Allow, not 404", async () => {
    const { body: product } = await create(productInput());
    const put = await shop.json("PUT", `/products/${product.id}`, { body: {}, token: shop.admin.token });
    expect(put.status).toBe(405);
    expect(put.body.code).toBe("METHOD_NOT_ALLOWED");
    expect(put.headers.get("allow")!.split(", ").sort()).toEqual(["DELETE", "GET", "HEAD", "PATCH"]);
    expect((await shop.json("DELETE", "/orders", { token: shop.admin.token })).headers.get("allow")!.split(", ").sort()).toEqual(["GET", "HEAD", "POST"]);
    expect((await shop.json("GET", "/products/not/a/route", { token: shop.admin.token })).status).toBe(404);
  });

  test("a category can be taken away again with null", async () => {
    const { body: product } = await create(productInput({ category: "books" }));
    const cleared = await shop.json("PATCH", `/products/${product.id}`, { body: { category: null }, token: shop.admin.token });
    expect(cleared.status).toBe(200);
    expect(cleared.body.category).toBeNull();
    expect((await shop.read(`/products?category=books&search=${encodeURIComponent(product.name)}`)).body.data.map((p: { id: string }) => p.id)).not.toContain(product.id);
  });

  test("a duplicate SKU is a conflict", async () => {
    const first = await create(productInput({ sku: "DUP-1" }));
    expect(first.status).toBe(201);
    const second = await create(productInput({ sku: "DUP-1" }));
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ code: "CONFLICT", details: { field: "sku", productId: first.body.id } });
  });

  test("PATCH changes only what it names; DELETE removes; both need an admin", async () => {
    const { body: product } = await create(productInput());
    const customer = await shop.customer();
    expect((await shop.json("PATCH", `/products/${product.id}`, { body: { price: 5 }, token: customer.token })).status).toBe(403);
    expect((await shop.json("PATCH", `/products/${product.id}`, { body: { price: 5 } })).status).toBe(401);

    const patched = await shop.json("PATCH", `/products/${product.id}`, { body: { price: 24.5, stock: 3 }, token: shop.admin.token });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: product.name, price: 24.5, stock: 3, sku: product.sku });
    expect((await shop.json("PATCH", `/products/${product.id}`, { body: {}, token: shop.admin.token })).status).toBe(400);
    expect((await shop.json("PATCH", `/products/${product.id}`, { body: { id: "x" }, token: shop.admin.token })).status).toBe(400);

    expect((await shop.call("DELETE", `/products/${product.id}`, { token: shop.admin.token })).status).toBe(204);
    const gone = await shop.read(`/products/${product.id}`);
    expect(gone.status).toBe(404);
    expect(gone.body).toMatchObject({ code: "NOT_FOUND" });
    expect((await shop.call("DELETE", `/products/${product.id}`, { token: shop.admin.token })).status).toBe(404);
  });

  test("the list filters by category, price and a case-insensitive search in name or description, and pages", async () => {
    const tag = `Zq${Date.now().toString(36)}`;
    for (const [i, category, price] of [[1, "books", 5], [2, "books", 15], [3, "sports", 25]] as const)
      await create(productInput({ name: `${tag} item ${i}`, category, price }));
    await create(productInput({ name: "Plain", description: `mentions ${tag.toUpperCase()} inside`, category: "books", price: 50 }));

    const all = await shop.read(`/products?search=${tag.toLowerCase()}`);
    expect(all.body.pagination).toEqual({ page: 1, limit: 20, total: 4, totalPages: 1 });
    const books = await shop.read(`/products?search=${tag}&category=books&minPrice=10&maxPrice=60`);
    expect(books.body.data.map((p: { price: number }) => p.price).sort()).toEqual([15, 50]);

    const page2 = await shop.read(`/products?search=${tag}&limit=3&page=2`);
    expect(page2.body.pagination).toEqual({ page: 2, limit: 3, total: 4, totalPages: 2 });
    expect(page2.body.data).toHaveLength(1);
    const page1 = await shop.read(`/products?search=${tag}&limit=3&page=1`);
    expect(new Set([...page1.body.data, ...page2.body.data].map((p: { id: string }) => p.id)).size).toBe(4);
  });

  test("sort: by creation time, price or name, either direction; ties go by id, so pages neither overlap nor skip", async () => {
    const tag = `Srt${Date.now().toString(36)}`;
    type Listed = { id: string; name: string; price: number; createdAt: string };
    const made: Listed[] = [];
    for (const [name, price] of [["b-lamp", 30], ["A-lamp", 10], ["c-lamp", 20], ["a-lamp", 10], ["B-lamp", 30]] as const)
      made.push((await create(productInput({ name: `${tag} ${name}`, price }))).body);
    const listed = async (sort: string) => {
      const ids: string[] = [];
      for (let page = 1; page <= 3; page++) ids.push(...(await shop.read(`/products?search=${tag}&sort=${sort}&limit=2&page=${page}`)).body.data.map((p: { id: string }) => p.id));
      return ids;
    };
    const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
    const orders: Record<string, (a: Listed, b: Listed) => number> = {
      created: (a, b) => a.createdAt.localeCompare(b.createdAt) || byId(a, b),
      price: (a, b) => a.price - b.price || byId(a, b),
      name: (a, b) => (a.name.toLowerCase() < b.name.toLowerCase() ? -1 : a.name.toLowerCase() > b.name.toLowerCase() ? 1 : 0) || byId(a, b),
    };
    for (const [field, order] of Object.entries(orders)) {
      const ascending = [...made].sort(order).map((p) => p.id);
      expect(await listed(field), field).toEqual(ascending);
      expect(await listed(`-${field}`), `-${field}`).toEqual([...ascending].reverse());
    }
    // Newest first when no sort is given.
    expect((await shop.read(`/products?search=${tag}`)).body.data.map((p: { id: string }) => p.id)).toEqual(await listed("-created"));
  });

  test("SQL metacharacters in search are plain text", async () => {
    const { body: odd } = await create(productInput({ name: "100% cotton_tee 'quoted'; --" }));
    for (const term of ["100%", "n_t", "'quoted'; --", "%' OR 1=1 --", "\\"]) {
      const res = await shop.read(`/products?search=${encodeURIComponent(term)}`);
      expect(res.status).toBe(200);
      const ids = res.body.data.map((p: { id: string }) => p.id);
      if (odd.name.includes(term)) expect(ids).toContain(odd.id);
      else expect(ids).toEqual([]);
    }
    expect((await shop.read(`/products/${odd.id}`)).status).toBe(200);
  });

  test("invalid list parameters are 400 naming the parameter; a far page is empty", async () => {
    for (const [query, field] of [
      ["page=0", "page"],
      ["page=abc", "page"],
      ["page=99999999999", "page"],
      ["limit=101", "limit"],
      ["limit=0", "limit"],
      ["category=toys", "category"],
      ["minPrice=-5", "minPrice"],
      // Query numbers are plain decimal: no hex, exponent, sign or padding.
      ["page=0x10", "page"],
      ["page=1e1", "page"],
      ["page=%203", "page"],
      ["limit=+3", "limit"],
      ["minPrice=1e1", "minPrice"],
      ["maxPrice=0x10", "maxPrice"],
      // A parameter given twice is not read as one of its values.
      ["page=1&page=2", "page"],
      ["search=lamp&search=desk", "search"],
      ["sort=stock", "sort"],
      ["sort=name:desc", "sort"],
    ]) {
      const res = await shop.read(`/products?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.details.fields.map((f: { field: string }) => f.field), query).toContain(field);
    }
    const crossed = await shop.read("/products?minPrice=10&maxPrice=5");
    expect(crossed.status).toBe(400);
    const far = await shop.read("/products?page=1000000&limit=100");
    expect(far.status).toBe(200);
    expect(far.body.data).toEqual([]);
  });

  test("an unknown id is 404, a malformed one 400, an unknown /v2 path 404, all in the catalog format", async () => {
    expect((await shop.read(`/products/${crypto.randomUUID()}`)).body).toMatchObject({ code: "NOT_FOUND", message: expect.any(String) });
    expect((await shop.read("/products/123")).body).toMatchObject({ code: "VALIDATION_ERROR", details: { fields: [{ field: "productId" }] } });
    const unknown = await shop.json("GET", "/warehouses");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: "NOT_FOUND", details: {} });
  });
});
