/** The catalog's queries. Each takes the database or the transaction it should run in. */
import { and, count, desc, eq, gt, gte, inArray, isNull, lte, max, sql } from "drizzle-orm";
import { preparedOn } from "../db/prepared.ts";
import type { Database, Statement } from "bun:sqlite";
import type { Db, DbOrTx } from "../db/client.ts";
import {
  catalogApiKeys as apiKeys,
  catalogCustomers as customers,
  catalogOrders as orders,
  catalogProductChanges as productChanges,
  catalogProducts as products,
  catalogRefreshTokens as refreshTokens,
  type ApiKeyRow,
  type CustomerRow,
  type OrderRow,
  type ProductRow,
  type RefreshTokenRow,
} from "../db/schema.ts";

export interface Window {
  offset: number;
  limit: number;
}

const pageOf = <T>(rows: T[], total: number) => ({ rows, total });

// --- products ---
export const insertProduct = (db: DbOrTx, row: ProductRow) => void db.insert(products).values(row).run();
export const insertProducts = (db: DbOrTx, rows: ProductRow[]) => void db.insert(products).values(rows).run();

// The hottest read: prepared once per connection, so a lookup skips building its SQL again.
const productById = preparedOn((db) => db.select().from(products).where(eq(products.id, sql.placeholder("id"))).prepare());
export const findProduct = (db: DbOrTx, id: string): ProductRow | undefined => productById(db).get({ id });

// One statement, prepared once, for any number of ids (an IN list would be a new statement for each count).
const productsByIds = preparedOn((db) =>
  db
    .select()
    .from(products)
    .where(sql`${products.id} IN (SELECT value FROM json_each(${sql.placeholder("ids")}))`)
    .prepare(),
);
/** The products among `ids` that exist, in no particular order. */
export const findProducts = (db: DbOrTx, ids: string[]): ProductRow[] => productsByIds(db).all({ ids: JSON.stringify(ids) });

export const findProductBySku = (db: DbOrTx, sku: string): ProductRow | undefined =>
  db.select().from(products).where(eq(products.sku, sku)).get();

export const updateProduct = (db: DbOrTx, id: string, changes: Partial<ProductRow>): ProductRow | undefined =>
  db.update(products).set(changes).where(eq(products.id, id)).returning().get();

export const deleteProduct = (db: DbOrTx, id: string): boolean =>
  db.delete(products).where(eq(products.id, id)).returning({ id: products.id }).all().length > 0;

/** What the product index keeps of a product (product-index.ts); `createdAt` in epoch ms. */
export interface IndexedProduct {
  id: string;
  name: string;
  description: string;
  category: ProductRow["category"];
  priceCents: number;
  createdAt: number;
}
const indexed = {
  id: products.id,
  name: products.name,
  description: products.description,
  category: products.category,
  priceCents: products.priceCents,
  createdAt: sql<number>`${products.createdAt}`,
};
const rowid = sql<number>`${products}.rowid`;

export const indexedProducts = (db: DbOrTx, ids: string[]): IndexedProduct[] => db.select(indexed).from(products).where(inArray(products.id, ids)).all();

/** Up to `limit` products after `rowid` in table order: how the index reads the whole table, a chunk at a time. */
export const indexedProductsAfter = (db: DbOrTx, after: number, limit: number): (IndexedProduct & { rowid: number })[] =>
  db.select({ rowid, ...indexed }).from(products).where(gt(rowid, after)).orderBy(rowid).limit(limit).all();

export const productChangesAfter = (db: DbOrTx, seq: number, limit: number) =>
  db.select().from(productChanges).where(gt(productChanges.seq, seq)).orderBy(productChanges.seq).limit(limit).all();

export const lastProductChange = (db: DbOrTx): number => db.select({ seq: max(productChanges.seq) }).from(productChanges).get()?.seq ?? 0;

export const forgetProductChanges = (db: DbOrTx, upTo: number) => void db.delete(productChanges).where(lte(productChanges.seq, upTo)).run();

/**
 * Moves whenever the database may have changed: total_changes() counts every row this connection has written
 * (any table, rolled back or not), data_version moves when another connection or process commits. Coarse, but
 * never still while a product changed. Read with the driver's own prepared statements: drizzle could only reach
 * data_version through the pragma_data_version table, which prepares the pragma again on every read.
 */
export function changeMark(db: Db): string {
  let statements = markStatements.get(db);
  if (!statements) {
    // drizzle() returns the database with its driver as `$client`; the shared Db type leaves that member out.
    const client = (db as Db & { $client: Database }).$client;
    statements = { changes: client.prepare<[number], []>("SELECT total_changes()"), version: client.prepare<[number], []>("PRAGMA data_version") };
    markStatements.set(db, statements);
  }
  return `${statements.changes.values()[0]![0]}:${statements.version.values()[0]![0]}`;
}
const markStatements = new WeakMap<Db, { changes: Statement<[number], []>; version: Statement<[number], []> }>();

/** Takes `quantity` from stock only if that much is there; false (and nothing changed) otherwise. */
export const reserveStock = (db: DbOrTx, productId: string, quantity: number): boolean =>
  db
    .update(products)
    .set({ stock: sql`${products.stock} - ${quantity}` })
    .where(and(eq(products.id, productId), gte(products.stock, quantity)))
    .returning({ id: products.id })
    .all().length > 0;

export const returnStock = (db: DbOrTx, productId: string, quantity: number) =>
  void db
    .update(products)
    .set({ stock: sql`${products.stock} + ${quantity}` })
    .where(eq(products.id, productId))
    .run();

// --- customers ---
export const insertCustomer = (db: DbOrTx, row: CustomerRow) => void db.insert(customers).values(row).run();

export const findCustomer = (db: DbOrTx, id: string): CustomerRow | undefined =>
  db.select().from(customers).where(eq(customers.id, id)).get();

export const findCustomerByEmail = (db: DbOrTx, email: string): CustomerRow | undefined =>
  db.select().from(customers).where(eq(customers.email, email)).get();

export const updateCustomer = (db: DbOrTx, id: string, changes: Partial<CustomerRow>): CustomerRow | undefined =>
  db.update(customers).set(changes).where(eq(customers.id, id)).returning().get();

export const listCustomers = (db: DbOrTx, window: Window) =>
  pageOf(
    db.select().from(customers).orderBy(desc(customers.createdAt), desc(customers.id)).limit(window.limit).offset(window.offset).all(),
    db.select({ n: count() }).from(customers).get()!.n,
  );

// --- orders ---
export const insertOrder = (db: DbOrTx, row: OrderRow) => void db.insert(orders).values(row).run();

export const findOrder = (db: DbOrTx, id: string): OrderRow | undefined => db.select().from(orders).where(eq(orders.id, id)).get();

export const findOrderByIdempotencyKey = (db: DbOrTx, scope: string, key: string): OrderRow | undefined =>
  db
    .select()
    .from(orders)
    .where(and(eq(orders.idempotencyScope, scope), eq(orders.idempotencyKey, key)))
    .get();

export const setOrderStatus = (db: DbOrTx, id: string, status: OrderRow["status"], updatedAt: Date) =>
  void db.update(orders).set({ status, updatedAt }).where(eq(orders.id, id)).run();

export function listOrders(db: DbOrTx, filter: { status?: string; customerId?: string }, window: Window) {
  const where = and(
    filter.status === undefined ? undefined : eq(orders.status, filter.status as OrderRow["status"]),
    filter.customerId === undefined ? undefined : eq(orders.customerId, filter.customerId),
  );
  const rows = db.select().from(orders).where(where).orderBy(desc(orders.createdAt), desc(orders.id)).limit(window.limit).offset(window.offset).all();
  return pageOf(rows, db.select({ n: count() }).from(orders).where(where).get()!.n);
}

// --- refresh tokens ---
export const insertRefreshToken = (db: DbOrTx, row: RefreshTokenRow) => void db.insert(refreshTokens).values(row).run();

export const findRefreshToken = (db: DbOrTx, tokenHash: string): RefreshTokenRow | undefined =>
  db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).get();

/** Marks a token used; false when it already was, so two racing refreshes cannot both succeed. */
export const useRefreshToken = (db: DbOrTx, id: string, at: Date): boolean =>
  db
    .update(refreshTokens)
    .set({ usedAt: at })
    .where(and(eq(refreshTokens.id, id), isNull(refreshTokens.usedAt), isNull(refreshTokens.revokedAt)))
    .returning({ id: refreshTokens.id })
    .all().length > 0;

export const revokeFamily = (db: DbOrTx, familyId: string, at: Date) =>
  void db
    .update(refreshTokens)
    .set({ revokedAt: at })
    .where(and(eq(refreshTokens.familyId, familyId), isNull(refreshTokens.revokedAt)))
    .run();

// --- API keys ---
export const insertApiKey = (db: DbOrTx, row: ApiKeyRow) => void db.insert(apiKeys).values(row).run();

export const findApiKeyByHash = (db: DbOrTx, keyHash: string): ApiKeyRow | undefined =>
  db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .get();

export const listApiKeys = (db: DbOrTx): ApiKeyRow[] =>
  db.select().from(apiKeys).where(isNull(apiKeys.revokedAt)).orderBy(desc(apiKeys.createdAt)).all();

export const revokeApiKey = (db: DbOrTx, id: string, at: Date): boolean =>
  db
    .update(apiKeys)
    .set({ revokedAt: at })
    .where(and(eq(apiKeys.id, id), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id })
    .all().length > 0;
