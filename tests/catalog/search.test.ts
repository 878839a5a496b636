import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { address, openShop, productInput, type Shop } from "./support.ts";
import { stores, storesForFile } from "../support/stores.ts";

const fixture = storesForFile();

describe.each(stores)("on %s", (kind) => {
  // A shop of its own, so every product a search can find was made by this file.
  let shop: Shop;
  beforeAll(async () => {
    shop = await openShop((await fixture.fresh(kind)).env);
  });
  afterAll(() => shop.stop());

  interface Listed {
    id: string;
    name: string;
    description: string;
  }

  const create = async (name: string, description = "", category = "books") => {
    const res = await shop.json("POST", "/products", { body: productInput({ name, description, category }), token: shop.admin.token });
    expect(res.status).toBe(201);
    return res.body as Listed;
  };

  /** Every product the API lists for `search` (all pages), and the total it reports. */
  async function search(term: string, extra = "") {
    const found: Listed[] = [];
    for (let page = 1; ; page++) {
      const res = await shop.read(`/products?search=${encodeURIComponent(term)}&limit=100&page=${page}${extra}`);
      expect(res.status, term).toBe(200);
      found.push(...res.body.data);
      if (page >= res.body.pagination.totalPages) return { ids: found.map((p) => p.id).sort(), total: res.body.pagination.total as number };
    }
  }

  /** What a case-insensitive substring search must return, computed here from the products themselves. */
  const expected = (products: Listed[], term: string) =>
    products
      .filter((p) => [p.name, p.description].some((text) => text.toLowerCase().includes(term.toLowerCase())))
      .map((p) => p.id)
      .sort();

  test("every term, long or short, finds exactly the products containing it, ignoring case", async () => {
    const products = [
      await create("Oak Bookshelf", "Solid oak, five shelves"),
      await create("Wireless Headphones", "Noise-cancelling, 30 h battery"),
      await create("Cotton T-Shirt", "Organic COTTON, slim fit"),
      await create("Lamp", "A warm lamp for late reading"),
      await create("Été Collection Scarf", "Light summer scarf"),
      await create("Emoji 😀ab mug", "a😀 on the side"),
      await create("XY", ""),
    ];
    const terms = ["oak", "OAK", "Oa", "o", "k", "shelf", "wIrElEsS", "30 h", "cotton", "T-Sh", "ton, s", "lamp", "AMP", "été", "ÉTÉ", "😀ab", "a😀", "😀", "xy", "x", "É", "ÉT", "late reading", "missing"];
    for (const term of terms) {
      const { ids, total } = await search(term);
      const reference = expected(products, term);
      expect(ids, term).toEqual(reference);
      expect(total, term).toBe(reference.length);
    }
    expect((await search("ÉTÉ")).ids).toEqual([products[4]!.id]);
  });

  test("query-language and SQL metacharacters are plain text", async () => {
    const odd = [
      await create('The "Quoted" Edition', "Says AND means and"),
      await create("Star * Map", "NEAR(the sea) OR the lake"),
      await create("100% cotton_tee", "col:umn ^caret -minus (paren) 'single'; --"),
    ];
    const everyone = [...odd];
    const terms = ['"', '"Quoted"', 'd" E', "*", "Star *", "AND", "AND means", "NEAR(", "NEAR(the", "OR the", "%", "100%", "_", "n_t", "col:umn", "^caret", "-minus", "(paren)", "'single'; --", "%' OR 1=1 --", '" OR "', "\\", "a\\b", "***", "x AND y", "NOT"];
    for (const term of terms) {
      const { ids, total } = await search(term);
      const reference = expected(everyone, term);
      expect(ids, term).toEqual(reference);
      expect(total, term).toBe(reference.length);
    }
    expect((await search("Star *")).ids).toEqual([odd[1]!.id]);
    expect((await search("AND means")).ids).toEqual([odd[0]!.id]);
  });

  test("renames, description changes and deletes are reflected at once; stock changes leave search alone", async () => {
    const before = await create("Pinecone Planter", "Terracotta pot for herbs", "home");
    expect((await search("pinecone")).ids).toEqual([before.id]);

    const renamed = await shop.json("PATCH", `/products/${before.id}`, { body: { name: "Driftwood Planter" }, token: shop.admin.token });
    expect(renamed.status).toBe(200);
    expect((await search("pinecone")).ids).toEqual([]);
    expect((await search("driftwood")).ids).toEqual([before.id]);
    expect((await search("terracotta")).ids).toEqual([before.id]);

    await shop.json("PATCH", `/products/${before.id}`, { body: { description: "Glazed stoneware pot" }, token: shop.admin.token });
    expect((await search("terracotta")).ids).toEqual([]);
    expect((await search("stoneware")).ids).toEqual([before.id]);

    // An order takes stock through its own write path; the product stays findable, with its new stock.
    const customer = await shop.customer();
    const order = await shop.json("POST", "/orders", {
      body: { customerId: customer.id, items: [{ productId: before.id, quantity: 3 }], shippingAddress: address },
      token: customer.token,
    });
    expect(order.status).toBe(201);
    const listed = await shop.read("/products?search=driftwood&category=home");
    expect(listed.body.data.map((p: { id: string; stock: number }) => [p.id, p.stock])).toEqual([[before.id, 7]]);

    expect((await shop.call("DELETE", `/products/${before.id}`, { token: shop.admin.token })).status).toBe(204);
    for (const term of ["driftwood", "stoneware", "dr"]) expect((await search(term)).ids, term).toEqual([]);
  });

  test("search combines with category and price filters and pages with an exact total", async () => {
    const tag = `Qv${Date.now().toString(36)}`;
    for (let i = 0; i < 7; i++) await create(`${tag} sports item ${i}`, "", "sports");
    for (let i = 0; i < 4; i++) await create(`Other ${i}`, `mentions ${tag.toLowerCase()}`, "home");
    const page = (n: number, extra: string) => shop.read(`/products?search=${tag}&limit=3&page=${n}${extra}`);
    expect((await page(1, "&category=sports")).body.pagination).toEqual({ page: 1, limit: 3, total: 7, totalPages: 3 });
    expect((await page(3, "&category=sports")).body.data).toHaveLength(1);
    expect((await page(1, "")).body.pagination.total).toBe(11);
    expect((await page(2, "&category=home")).body.data).toHaveLength(1);
    expect((await page(1, "&category=books")).body.pagination.total).toBe(0);
  });

  test("a term of the longest allowed length is a search like any other; a NUL in a term is refused by name", async () => {
    const long = await shop.read(`/products?search=${"ab".repeat(100)}`);
    expect(long.status).toBe(200);
    expect(long.body.pagination.total).toBe(0);
    const nul = await shop.read(`/products?search=${encodeURIComponent("ab\u0000cd")}`);
    expect(nul.status).toBe(400);
    expect(nul.body).toMatchObject({ code: "VALIDATION_ERROR", details: { fields: [{ field: "search" }] } });
  });
});
