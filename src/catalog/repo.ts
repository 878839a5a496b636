/** The catalog's queries. Each takes the database or the transaction it should run in. */
import type { Database, Statement } from "bun:sqlite";
import { and, count, desc, eq, gte, ilike, inArray, isNull, lte, or, sql, type SQL } from "drizzle-orm";
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

export interface ProductFilter {
  category?: string;
  search?: string;
  minPriceCents?: number;
  maxPriceCents?: number;
}

export async function listProducts(db: DbOrTx, filter: ProductFilter, window: Window) {
  const { catalogProducts: products } = tablesOf(db);
  const where = productWhere(db, filter);
  const [rows, [total]] = await Promise.all([
    db.select().from(products).where(where).orderBy(desc(products.createdAt), desc(products.id)).limit(window.limit).offset(window.offset),
    db.select({ n: count() }).from(products).where(where),
  ]);
  return { rows, total: Number(total!.n) };
}

function productWhere(db: DbOrTx, { category, search, minPriceCents, maxPriceCents }: ProductFilter): SQL | undefined {
  const { catalogProducts: products } = tablesOf(db);
  const conditions: (SQL | undefined)[] = [
    category === undefined ? undefined : eq(products.category, category as ProductRow["category"]),
    minPriceCents === undefined ? undefined : gte(products.priceCents, minPriceCents),
    maxPriceCents === undefined ? undefined : lte(products.priceCents, maxPriceCents),
  ];
  if (search !== undefined) conditions.push(searchCondition(db, search));
  return and(...conditions);
}

/**
 * Products whose name or description contains `term`, ignoring case.
 *
 * SQLite: the trigram full-text index (migration 0004_catalog_search) answers terms of 3 or more characters, counted
 * in code points as the index counts them; a shorter term has no trigram to look up, so it is matched by scanning with
 * LIKE (which folds ASCII case only). PostgreSQL: ILIKE, which the pg_trgm indexes answer for 3 or more characters
 * (migration 0001_catalog_search) and a scan otherwise.
 */
function searchCondition(db: DbOrTx, term: string): SQL {
  const { catalogProducts: products } = tablesOf(db);
  // The term is a bound parameter; escaping only stops % and _ in it from acting as wildcards.
  const pattern = `%${term.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
  if (dialectOf(db) === "postgresql") return or(ilike(products.name, pattern), ilike(products.description, pattern))!;
  if ([...term].length >= 3) {
    // One double-quoted FTS5 string is one phrase: AND, OR, NEAR(, *, ^ and column names in it are plain text.
    const phrase = `"${term.replaceAll('"', '""')}"`;
    return sql`${products}.rowid IN (SELECT rowid FROM catalog_products_search WHERE catalog_products_search MATCH ${phrase})`;
  }
  return or(sql`${products.name} LIKE ${pattern} ESCAPE '\\'`, sql`${products.description} LIKE ${pattern} ESCAPE '\\'`)!;
}

/**
 * Moves whenever the products may have changed, so values read from them can be kept until it moves. SQLite:
 * total_changes() counts every row this connection has written (any table, rolled back or not), data_version moves
 * when another connection or process commits; coarse, but never still while a product changed. Read with the
 * driver's own prepared statements (drizzle would prepare the pragma again on every read). PostgreSQL, whose writers
 * are other nodes too: no mark stands still, so nothing is kept.
 */
export function changeMark(db: DbOrTx): string {
  if (dialectOf(db) === "postgresql") return crypto.randomUUID();
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
