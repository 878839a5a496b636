import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { ProductIndex, type ProductFilter } from "../../src/catalog/product-index.ts";
import { seedProducts } from "../../src/catalog/seed.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { tempDir } from "../support/temp.ts";

// The index against a real database file, with a second connection writing as another process would.
const dir = tempDir();
let store: DatabaseHandle;
let other: Database;
beforeAll(async () => {
  store = await openDatabase(join(dir.path, "platform.db"));
  other = new Database(join(dir.path, "platform.db"));
  other.exec("PRAGMA busy_timeout = 5000");
});
afterAll(async () => {
  other.close();
  await store.close();
  dir.remove();
});

async function caughtUp(index: ProductIndex) {
  await index.level();
}

/** What the table itself says: the ids passing the filter, newest first, and how many (ASCII text only). */
function truth({ search = "", category }: ProductFilter, limit = 20) {
  const where = `(instr(lower(name), ?1) > 0 OR instr(lower(description), ?1) > 0) AND (?2 IS NULL OR category = ?2)`;
  const args = [search.toLowerCase(), category ?? null];
  const ids = other.query<{ id: string }, typeof args>(`SELECT id FROM catalog_products WHERE ${where} ORDER BY created_at DESC, id DESC LIMIT ${limit}`).all(...args);
  const { n } = other.query<{ n: number }, typeof args>(`SELECT count(*) AS n FROM catalog_products WHERE ${where}`).get(...args)!;
  return { ids: ids.map((r) => r.id), total: n };
}

const filters: ProductFilter[] = [
  { search: "warranty" },
  { search: "cotton", category: "clothing" },
  { search: "ess", category: "electronics" },
  { search: "a two-year" },
  { search: "oak shelf" },
  { search: "ti" },
  { category: "books" },
  {},
];

test("a catalog larger than one build chunk is read a chunk per turn; writes made meanwhile are caught up after", async () => {
  await seedProducts(store.db, 4500);
  const index = new ProductIndex(store.db);
  const building = index.level();
  // The build has begun; these land while it reads the table.
  const [first, last] = [
    other.query<{ id: string }, []>("SELECT id FROM catalog_products ORDER BY rowid LIMIT 1").get()!,
    other.query<{ id: string }, []>("SELECT id FROM catalog_products ORDER BY rowid DESC LIMIT 1").get()!,
  ];
  other.run("UPDATE catalog_products SET name = 'Renamed Oak Shelf' WHERE id = ?", [first.id]);
  other.run("DELETE FROM catalog_products WHERE id = ?", [last.id]);
  await building;
  await caughtUp(index);
  for (const filter of filters) expect(index.page(filter, "-created", { offset: 0, limit: 20 }), JSON.stringify(filter)).toEqual(truth(filter));
  expect(index.page({ search: "renamed oak" }, "-created", { offset: 0, limit: 20 }).ids).toEqual([first.id]);
});

test("it catches up with every writer's changes, and builds again when the log no longer reaches back", async () => {
  const index = new ProductIndex(store.db);
  await caughtUp(index);
  const { id } = other.query<{ id: string }, []>("SELECT id FROM catalog_products WHERE category = 'home' LIMIT 1").get()!;
  other.run("UPDATE catalog_products SET description = 'Glazed stoneware, zqx edition', category = 'books' WHERE id = ?", [id]);
  expect(typeof (await index.level())).toBe("string"); // a few changes are applied
  expect(index.page({ search: "zqx", category: "books" }, "-created", { offset: 0, limit: 20 }).ids).toEqual([id]);
  expect(index.page({ search: "zqx", category: "home" }, "-created", { offset: 0, limit: 20 }).total).toBe(0);
  // A price change moves it in a price sort; a stock change is not the index's business.
  other.run("UPDATE catalog_products SET price_cents = 1, stock = 0 WHERE id = ?", [id]);
  await caughtUp(index);
  expect(index.page({}, "price", { offset: 0, limit: 1 }).ids).toEqual([id]);

  // A change the log has forgotten (pruned by a reader further ahead, which keeps the newest): the index cannot
  // apply the changes one by one and reads the table again.
  other.run("UPDATE catalog_products SET name = 'Forgotten Qzv' WHERE id = ?", [id]);
  other.run("UPDATE catalog_products SET name = name || ' ' WHERE id = (SELECT id FROM catalog_products WHERE id <> ? LIMIT 1)", [id]);
  other.run("DELETE FROM catalog_product_changes WHERE seq < (SELECT max(seq) FROM catalog_product_changes)");
  await caughtUp(index);
  expect(index.page({ search: "qzv" }, "-created", { offset: 0, limit: 20 }).ids).toEqual([id]);
  for (const filter of filters) expect(index.page(filter, "-created", { offset: 0, limit: 20 })).toEqual(truth(filter));
});

test("a page deep in a long result is the same as paging there one page at a time", async () => {
  const index = new ProductIndex(store.db);
  await caughtUp(index);
  const { total } = index.page({}, "name", { offset: 0, limit: 1 });
  const walked: string[] = [];
  for (let offset = 0; offset < total; offset += 100) walked.push(...index.page({}, "name", { offset, limit: 100 }).ids);
  expect(walked).toHaveLength(total);
  expect(new Set(walked).size).toBe(total);
  expect(index.page({}, "name", { offset: 3000, limit: 7 }).ids).toEqual(walked.slice(3000, 3007));
  expect(index.page({}, "-name", { offset: 0, limit: 5 }).ids).toEqual(walked.slice(-5).reverse());
});
