/** The catalog's queries. Each takes the database or the transaction it should run in. */
import type { Database, Statement } from "bun:sqlite";
import { and, count, desc, eq, gt, gte, inArray, isNull, lt, lte, max, min, sql } from "drizzle-orm";
import { dialectOf, tablesOf, type DbOrTx } from "../db/client.ts";
import { preparedOn } from "../db/prepared.ts";
import type { ApiKeyRow, CustomerRow, OrderRow, ProductRow, RefreshTokenRow } from "../db/schema.ts";

export interface Window {
  offset: number;
  limit: number;
}

const first = <T>(rows: T[]): T | undefined => rows[0];

// --- products ---
export async function insertProduct(db: DbOrTx, row: ProductRow): Promise<void> {
  await db.insert(tablesOf(db).catalogProducts).values(row);
}
export async function insertProducts(db: DbOrTx, rows: ProductRow[]): Promise<void> {
  await db.insert(tablesOf(db).catalogProducts).values(rows);
}

// The hottest read: prepared once per connection, so a lookup skips building its SQL again.
const productById = preparedOn((db) => {
  const { catalogProducts: products } = tablesOf(db);
  return db.select().from(products).where(eq(products.id, sql.placeholder("id"))).prepare();
});
export const findProduct = async (db: DbOrTx, id: string): Promise<ProductRow | undefined> => first(await productById(db).execute({ id }));

export async function findProducts(db: DbOrTx, ids: string[]): Promise<ProductRow[]> {
  const { catalogProducts: products } = tablesOf(db);
  return db.select().from(products).where(inArray(products.id, ids));
}

export async function findProductBySku(db: DbOrTx, sku: string): Promise<ProductRow | undefined> {
  const { catalogProducts: products } = tablesOf(db);
  return first(await db.select().from(products).where(eq(products.sku, sku)));
}

export async function updateProduct(db: DbOrTx, id: string, changes: Partial<ProductRow>): Promise<ProductRow | undefined> {
  const { catalogProducts: products } = tablesOf(db);
  return first(await db.update(products).set(changes).where(eq(products.id, id)).returning());
}

export async function deleteProduct(db: DbOrTx, id: string): Promise<boolean> {
  const { catalogProducts: products } = tablesOf(db);
  return (await db.delete(products).where(eq(products.id, id)).returning({ id: products.id })).length > 0;
}

/** What the product index keeps of a product (product-index.ts); `createdAt` in epoch ms. */
export interface IndexedProduct {
  id: string;
  name: string;
  description: string;
  category: ProductRow["category"];
  priceCents: number;
  createdAt: number;
}

const indexedColumns = (db: DbOrTx) => {
  const { catalogProducts: products } = tablesOf(db);
  return { id: products.id, name: products.name, description: products.description, category: products.category, priceCents: products.priceCents, createdAt: products.createdAt };
};
const asIndexed = (row: Omit<IndexedProduct, "createdAt"> & { createdAt: Date }): IndexedProduct => ({ ...row, createdAt: row.createdAt.getTime() });

export async function indexedProducts(db: DbOrTx, ids: string[]): Promise<IndexedProduct[]> {
  const { catalogProducts: products } = tablesOf(db);
  return (await db.select(indexedColumns(db)).from(products).where(inArray(products.id, ids))).map(asIndexed);
}

/**
 * Up to `limit` products after `after` (a product id; "" for the start) in id order: how the index reads the whole
 * table, a chunk at a time. Keyed on the primary key, so each chunk is one index range on either store.
 */
export async function indexedProductsAfter(db: DbOrTx, after: string, limit: number): Promise<IndexedProduct[]> {
  const { catalogProducts: products } = tablesOf(db);
  return (await db.select(indexedColumns(db)).from(products).where(gt(products.id, after)).orderBy(products.id).limit(limit)).map(asIndexed);
}

export async function productChangesAfter(db: DbOrTx, seq: number, limit: number) {
  const { catalogProductChanges: changes } = tablesOf(db);
  return db.select().from(changes).where(gt(changes.seq, seq)).orderBy(changes.seq).limit(limit);
}

export async function firstProductChange(db: DbOrTx): Promise<number> {
  const { catalogProductChanges: changes } = tablesOf(db);
  return Number(first(await db.select({ seq: min(changes.seq) }).from(changes))?.seq ?? 0);
}

export async function lastProductChange(db: DbOrTx): Promise<number> {
  const { catalogProductChanges: changes } = tablesOf(db);
  return Number(first(await db.select({ seq: max(changes.seq) }).from(changes))?.seq ?? 0);
}

export async function forgetProductChanges(db: DbOrTx, upTo: number): Promise<void> {
  const { catalogProductChanges: changes } = tablesOf(db);
  await db.delete(changes).where(lte(changes.seq, upTo));
}

/**
 * Moves whenever the products may have changed, so values read from them can be kept until it moves. SQLite:
 * total_changes() counts every row this connection has written (any table, rolled back or not), data_version moves
 * when another connection or process commits; coarse, but never still while a product changed. Read with the
 * driver's own prepared statements (drizzle would prepare the pragma again on every read). PostgreSQL, whose writers
 * are other nodes too: the last logged product change (catalog_product_changes, written by triggers under one lock,
 * so in commit order), and the stock of no product is kept, as orders on any node change it.
 */
export async function changeMark(db: DbOrTx): Promise<string> {
  if (dialectOf(db) === "postgresql") return `${await lastProductChange(db)}:${crypto.randomUUID()}`;
  let statements = markStatements.get(db);
  if (!statements) {
    const client = sqliteOf(db);
    statements = { changes: client.prepare<[number], []>("SELECT total_changes()"), version: client.prepare<[number], []>("PRAGMA data_version") };
    markStatements.set(db, statements);
  }
  return `${statements.changes.values()[0]![0]}:${statements.version.values()[0]![0]}`;
}
const markStatements = new WeakMap<DbOrTx, { changes: Statement<[number], []>; version: Statement<[number], []> }>();

/** The bun:sqlite connection under a SQLite handle (see src/db/sqlite.ts). */
const sqliteOf = (db: DbOrTx): Database => (db as unknown as { $client: Database }).$client;

/** Takes `quantity` from stock only if that much is there; false (and nothing changed) otherwise. The row stays locked until the transaction ends. */
export async function reserveStock(db: DbOrTx, productId: string, quantity: number): Promise<boolean> {
  const { catalogProducts: products } = tablesOf(db);
  const rows = await db
    .update(products)
    .set({ stock: sql`${products.stock} - ${quantity}` })
    .where(and(eq(products.id, productId), gte(products.stock, quantity)))
    .returning({ id: products.id });
  return rows.length > 0;
}

export async function returnStock(db: DbOrTx, productId: string, quantity: number): Promise<void> {
  const { catalogProducts: products } = tablesOf(db);
  await db
    .update(products)
    .set({ stock: sql`${products.stock} + ${quantity}` })
    .where(eq(products.id, productId));
}

// --- customers ---
export async function insertCustomer(db: DbOrTx, row: CustomerRow): Promise<void> {
  await db.insert(tablesOf(db).catalogCustomers).values(row);
}

export async function findCustomer(db: DbOrTx, id: string): Promise<CustomerRow | undefined> {
  const { catalogCustomers: customers } = tablesOf(db);
  return first(await db.select().from(customers).where(eq(customers.id, id)));
}

export async function findCustomerByEmail(db: DbOrTx, email: string): Promise<CustomerRow | undefined> {
  const { catalogCustomers: customers } = tablesOf(db);
  return first(await db.select().from(customers).where(eq(customers.email, email)));
}

export async function updateCustomer(db: DbOrTx, id: string, changes: Partial<CustomerRow>): Promise<CustomerRow | undefined> {
  const { catalogCustomers: customers } = tablesOf(db);
  return first(await db.update(customers).set(changes).where(eq(customers.id, id)).returning());
}

export async function listCustomers(db: DbOrTx, window: Window) {
  const { catalogCustomers: customers } = tablesOf(db);
  const [rows, [total]] = await Promise.all([
    db.select().from(customers).orderBy(desc(customers.createdAt), desc(customers.id)).limit(window.limit).offset(window.offset),
    db.select({ n: count() }).from(customers),
  ]);
  return { rows, total: Number(total!.n) };
}

// --- orders ---
export async function insertOrder(db: DbOrTx, row: OrderRow): Promise<void> {
  await db.insert(tablesOf(db).catalogOrders).values(row);
}

export async function findOrder(db: DbOrTx, id: string): Promise<OrderRow | undefined> {
  const { catalogOrders: orders } = tablesOf(db);
  return first(await db.select().from(orders).where(eq(orders.id, id)));
}

export async function findOrderByIdempotencyKey(db: DbOrTx, scope: string, key: string): Promise<OrderRow | undefined> {
  const { catalogOrders: orders } = tablesOf(db);
  return first(await db.select().from(orders).where(and(eq(orders.idempotencyScope, scope), eq(orders.idempotencyKey, key))));
}

export async function setOrderStatus(db: DbOrTx, id: string, status: OrderRow["status"], updatedAt: Date): Promise<void> {
  const { catalogOrders: orders } = tablesOf(db);
  await db.update(orders).set({ status, updatedAt }).where(eq(orders.id, id));
}

export async function listOrders(db: DbOrTx, filter: { status?: string; customerId?: string }, window: Window) {
  const { catalogOrders: orders } = tablesOf(db);
  const where = and(
    filter.status === undefined ? undefined : eq(orders.status, filter.status as OrderRow["status"]),
    filter.customerId === undefined ? undefined : eq(orders.customerId, filter.customerId),
  );
  const [rows, [total]] = await Promise.all([
    db.select().from(orders).where(where).orderBy(desc(orders.createdAt), desc(orders.id)).limit(window.limit).offset(window.offset),
    db.select({ n: count() }).from(orders).where(where),
  ]);
  return { rows, total: Number(total!.n) };
}

// --- refresh tokens ---
export async function insertRefreshToken(db: DbOrTx, row: RefreshTokenRow): Promise<void> {
  await db.insert(tablesOf(db).catalogRefreshTokens).values(row);
}

export async function findRefreshToken(db: DbOrTx, tokenHash: string): Promise<RefreshTokenRow | undefined> {
  const { catalogRefreshTokens: tokens } = tablesOf(db);
  return first(await db.select().from(tokens).where(eq(tokens.tokenHash, tokenHash)));
}

/** Marks a token used; false when it already was, so two racing refreshes (on any nodes) cannot both succeed. */
export async function useRefreshToken(db: DbOrTx, id: string, at: Date): Promise<boolean> {
  const { catalogRefreshTokens: tokens } = tablesOf(db);
  const rows = await db
    .update(tokens)
    .set({ usedAt: at })
    .where(and(eq(tokens.id, id), isNull(tokens.usedAt), isNull(tokens.revokedAt)))
    .returning({ id: tokens.id });
  return rows.length > 0;
}

export async function revokeFamily(db: DbOrTx, familyId: string, at: Date): Promise<void> {
  const { catalogRefreshTokens: tokens } = tablesOf(db);
  await db
    .update(tokens)
    .set({ revokedAt: at })
    .where(and(eq(tokens.familyId, familyId), isNull(tokens.revokedAt)));
}

// --- API keys ---
export async function insertApiKey(db: DbOrTx, row: ApiKeyRow): Promise<void> {
  await db.insert(tablesOf(db).catalogApiKeys).values(row);
}

export async function findApiKeyByHash(db: DbOrTx, keyHash: string): Promise<ApiKeyRow | undefined> {
  const { catalogApiKeys: keys } = tablesOf(db);
  return first(await db.select().from(keys).where(and(eq(keys.keyHash, keyHash), isNull(keys.revokedAt))));
}

export async function listApiKeys(db: DbOrTx): Promise<ApiKeyRow[]> {
  const { catalogApiKeys: keys } = tablesOf(db);
  return db.select().from(keys).where(isNull(keys.revokedAt)).orderBy(desc(keys.createdAt));
}

export async function revokeApiKey(db: DbOrTx, id: string, at: Date): Promise<boolean> {
  const { catalogApiKeys: keys } = tablesOf(db);
  const rows = await db
    .update(keys)
    .set({ revokedAt: at })
    .where(and(eq(keys.id, id), isNull(keys.revokedAt)))
    .returning({ id: keys.id });
  return rows.length > 0;
}

// --- rate limits shared by nodes ---

/** Requests counted for `key` in `window`. */
export async function rateCount(db: DbOrTx, key: string, window: number): Promise<number> {
  const { catalogRateLimits: limits } = tablesOf(db);
  return first(await db.select({ count: limits.count }).from(limits).where(and(eq(limits.key, key), eq(limits.window, window))))?.count ?? 0;
}

/** Counts one request for `key` in `window` unless its count has reached `cap`; the new count, or undefined when refused. */
export async function countRateHit(db: DbOrTx, key: string, window: number, cap: number): Promise<number | undefined> {
  const { catalogRateLimits: limits } = tablesOf(db);
  const [row] = await db
    .insert(limits)
    .values({ key, window, count: 1 })
    .onConflictDoUpdate({ target: [limits.key, limits.window], set: { count: sql`${limits.count} + 1` }, setWhere: sql`${limits.count} < ${cap}` })
    .returning({ count: limits.count });
  return row?.count;
}

export async function forgetRateWindowsBefore(db: DbOrTx, window: number): Promise<void> {
  const { catalogRateLimits: limits } = tablesOf(db);
  await db.delete(limits).where(lt(limits.window, window));
}
