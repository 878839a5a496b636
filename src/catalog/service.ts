/**
 * The catalog's rules: products, customers and orders, and who may do what. No wire format here; every
 * function takes the calling principal (or undefined for an anonymous caller) and returns wire-ready views.
 *
 * Placing an order checks stock up front for a clear answer; the reservation itself happens in the order actor's
 * `record` (see order-actor.ts), inside the snapshot's transaction, and checks stock again there, under the row's
 * lock, so concurrent orders on any number of nodes never sell more than there is.
 */
import { createHash, randomUUID } from "node:crypto";
import { ActorPersistError, type ActorSystem } from "../../actors/system.ts";
import { eventFor, type OrderItem } from "../../actors/order.machine.ts";
import { isUniqueViolation, type Db } from "../db/client.ts";
import type { OrderRow, ProductRow } from "../db/schema.ts";
import { hashPassword, requireRole, type Principal } from "./auth.ts";
import { conflict, forbidden, invalid, notFound, type FieldIssue } from "./errors.ts";
import type {
  Customer,
  CustomerInput,
  CustomerPatch,
  Order,
  OrderInput,
  OrderQuery,
  PageOf,
  Product,
  ProductInput,
  ProductPatch,
  ProductQuery,
} from "./model.ts";
import { orderKind, OutOfStock } from "./order-actor.ts";
import { ChangeCache } from "./change-cache.ts";
import { ProductIndex } from "./product-index.ts";
import * as repo from "./repo.ts";
import { customerView, orderView, productView, toCents } from "./views.ts";

export interface Paging {
  page: number;
  limit: number;
}

const windowOf = ({ page, limit }: Paging) => ({ offset: (page - 1) * limit, limit });
const paged = <R, V>({ rows, total }: { rows: R[]; total: number }, { page, limit }: Paging, view: (row: R) => V): PageOf<V> => ({
  data: rows.map(view),
  pagination: { page, limit, total, totalPages: Math.ceil(total / limit) },
});

/**
 * JSON with every object's keys in one order, so that a retry whose body has the same content in another key
 * order hashes the same. (Whitespace, escapes and number spellings are gone once the body is parsed.)
 */
const canonicalJson = (value: unknown) =>
  JSON.stringify(value, (_key, inner: unknown) =>
    inner && typeof inner === "object" && !Array.isArray(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : inner,
  );

export interface PlacedOrder {
  order: Order;
  /** True when an Idempotency-Key matched an earlier order and that order is returned again. */
  replayed: boolean;
}

/** How many product list pages are kept between writes (a page of 20 products is some 10 KB, of 100 some 50 KB). */
const keptProductPages = 256;
/** How many single products are kept between writes (some 600 bytes each). */
const keptProducts = 10_000;

export class CatalogService {
  readonly #productPages = new ChangeCache<PageOf<Product>>(keptProductPages);
  // A lookup by id is the hottest read; kept views spare the row's decoding and shaping, not the change check.
  readonly #products = new ChangeCache<Product>(keptProducts);
  readonly #index: ProductIndex;

  constructor(
    readonly db: Db,
    readonly actors: ActorSystem,
    /** Whether anyone may read products (catalog.public_reads); otherwise a customer or an admin. */
    readonly publicReads = false,
  ) {
    this.#index = new ProductIndex(db);
  }

  /** Stops work in progress before the database closes. */
  close() {
    this.#index.close();
  }

  // --- products ---
  /** Builds the product index ahead of the first list, and answers once it is level with the database. */
  async productsIndexed(): Promise<void> {
    await this.#index.level();
  }

  async listProducts(principal: Principal | undefined, query: ProductQuery): Promise<PageOf<Product>> {
    this.#requireReader(principal);
    const filter = {
      category: query.category,
      search: query.search,
      minPriceCents: query.minPrice === undefined ? undefined : Math.round(query.minPrice * 100),
      maxPriceCents: query.maxPrice === undefined ? undefined : Math.round(query.maxPrice * 100),
    };
    if (filter.minPriceCents !== undefined && filter.maxPriceCents !== undefined && filter.minPriceCents > filter.maxPriceCents)
      throw invalid([{ field: "minPrice", message: "must not exceed maxPrice" }]);
    // The index keeps a product's name and description apart with a NUL; no term needs one.
    if (query.search?.includes("\0")) throw invalid([{ field: "search", message: "must not contain NUL characters" }]);
    const sort = query.sort ?? "-created";
    const mark = await this.#index.level();
    // The page is taken from the index as of the mark, at once (page() is synchronous); products are read after.
    const key = JSON.stringify([filter, sort, query.page, query.limit]);
    return this.#productPages.get(mark, key, async () => {
      const { ids, total } = this.#index.page(filter, sort, windowOf(query));
      // Products kept from earlier reads are used as they are; the rest are read in one statement, and kept.
      const kept = ids.map((id) => this.#products.peek(mark, id));
      const missing = ids.filter((_, i) => !kept[i]);
      const rows = new Map(missing.length ? (await repo.findProducts(this.db, missing)).map((row) => [row.id, row]) : []);
      const data = await Promise.all(
        ids.map((id, i) =>
          kept[i] ??
          this.#products.get(mark, id, async () => {
            const row = rows.get(id);
            // Deleted between the index's catch-up and this read: the next catch-up drops it from the index.
            if (!row) throw notFound("Product", id);
            return productView(row);
          }),
        ),
      );
      return paged({ rows: data, total }, query, (product) => product);
    });
  }

  async getProduct(principal: Principal | undefined, id: string): Promise<Product> {
    this.#requireReader(principal);
    return this.#products.get(await repo.changeMark(this.db), id, async () => {
      const row = await repo.findProduct(this.db, id);
      if (!row) throw notFound("Product", id);
      return productView(row);
    });
  }

  async createProduct(principal: Principal | undefined, input: ProductInput): Promise<Product> {
    requireRole(principal, "admin");
    const now = new Date();
    const row: ProductRow = {
      id: randomUUID(),
      name: input.name,
      description: input.description ?? "",
      priceCents: toCents(input.price, "price"),
      sku: input.sku,
      category: input.category ?? null,
      stock: input.stock ?? 0,
      images: input.images ?? [],
      tags: input.tags ?? [],
      createdAt: now,
      updatedAt: now,
    };
    await this.#requireFreeSku(row.sku);
    await repo.insertProduct(this.db, row).catch((error) => this.#skuTaken(error, row.sku));
    return productView(row);
  }

  async updateProduct(principal: Principal | undefined, id: string, patch: ProductPatch): Promise<Product> {
    requireRole(principal, "admin");
    if (!(await repo.findProduct(this.db, id))) throw notFound("Product", id);
    const { price, ...rest } = patch;
    if (rest.sku !== undefined) await this.#requireFreeSku(rest.sku, id);
    const changes: Partial<ProductRow> = { ...rest, updatedAt: new Date() };
    if (price !== undefined) changes.priceCents = toCents(price, "price");
    const row = await repo.updateProduct(this.db, id, changes).catch((error) => this.#skuTaken(error, rest.sku));
    if (!row) throw notFound("Product", id);
    return productView(row);
  }

  async deleteProduct(principal: Principal | undefined, id: string): Promise<void> {
    requireRole(principal, "admin");
    // Orders keep their own copy of each item's price, so they outlive the product.
    if (!(await repo.deleteProduct(this.db, id))) throw notFound("Product", id);
  }

  /** A write refused by the SKU's unique index: another request (on any node) took the SKU since it was checked. */
  async #skuTaken(error: unknown, sku: string | undefined): Promise<never> {
    if (sku !== undefined && isUniqueViolation(error)) await this.#requireFreeSku(sku);
    throw error;
  }

  #requireReader(principal: Principal | undefined) {
    if (!this.publicReads) requireRole(principal, "admin", "customer");
  }

  async #requireFreeSku(sku: string, ownerId?: string) {
    const holder = await repo.findProductBySku(this.db, sku);
    if (holder && holder.id !== ownerId) throw conflict(`SKU ${sku} is already used by product ${holder.id}`, { field: "sku", productId: holder.id });
  }

  // --- customers ---
  /** Sign-up is open; only an admin may choose the role. */
  async createCustomer(principal: Principal | undefined, input: CustomerInput): Promise<Customer> {
    if (input.role && input.role !== "customer") requireRole(principal, "admin");
    const email = input.email.toLowerCase();
    await this.#requireFreeEmail(email);
    const now = new Date();
    const row = {
      id: randomUUID(),
      email,
      name: input.name,
      role: input.role ?? "customer",
      passwordHash: await hashPassword(input.password),
      addresses: input.addresses ?? [],
      createdAt: now,
      updatedAt: now,
    };
    // Hashing was awaited: another sign-up (on any node) may have taken the email meanwhile; the unique index decides.
    await repo.insertCustomer(this.db, row).catch(async (error) => {
      if (isUniqueViolation(error)) await this.#requireFreeEmail(email);
      throw error;
    });
    return customerView(row);
  }

  async listCustomers(principal: Principal | undefined, paging: Paging): Promise<PageOf<Customer>> {
    requireRole(principal, "admin");
    return paged(await repo.listCustomers(this.db, windowOf(paging)), paging, customerView);
  }

  async getCustomer(principal: Principal | undefined, id: string): Promise<Customer> {
    this.#requireSelfOrAdmin(principal, id);
    const row = await repo.findCustomer(this.db, id);
    if (!row) throw notFound("Customer", id);
    return customerView(row);
  }

  async updateCustomer(principal: Principal | undefined, id: string, patch: CustomerPatch): Promise<Customer> {
    const caller = this.#requireSelfOrAdmin(principal, id);
    if (patch.role !== undefined && caller.role !== "admin") throw forbidden("Only an admin may change a role");
    if (!(await repo.findCustomer(this.db, id))) throw notFound("Customer", id);
    const { password, email, ...rest } = patch;
    const changes = { ...rest, updatedAt: new Date(), ...(password ? { passwordHash: await hashPassword(password) } : {}) };
    if (email !== undefined) {
      await this.#requireFreeEmail(email.toLowerCase(), id);
      Object.assign(changes, { email: email.toLowerCase() });
    }
    const row = await repo.updateCustomer(this.db, id, changes);
    if (!row) throw notFound("Customer", id);
    return customerView(row);
  }

  #requireSelfOrAdmin(principal: Principal | undefined, customerId: string): Principal {
    const caller = requireRole(principal, "admin", "customer");
    if (caller.role !== "admin" && caller.customerId !== customerId) throw forbidden("A customer may only see and change their own record");
    return caller;
  }

  async #requireFreeEmail(email: string, ownerId?: string) {
    const holder = await repo.findCustomerByEmail(this.db, email);
    if (holder && holder.id !== ownerId) throw conflict(`Email ${email} is already registered`, { field: "email" });
  }

  // --- orders ---
  async placeOrder(principal: Principal | undefined, input: OrderInput, idempotencyKey?: string): Promise<PlacedOrder> {
    const caller = requireRole(principal, "admin", "customer");
    if (caller.role !== "admin" && caller.customerId !== input.customerId)
      throw forbidden("A customer may only place orders for themselves");
    const requestHash = createHash("sha256").update(canonicalJson(input)).digest("hex");
    const replay = async (): Promise<PlacedOrder | undefined> => {
      const earlier = idempotencyKey === undefined ? undefined : await repo.findOrderByIdempotencyKey(this.db, caller.id, idempotencyKey);
      if (!earlier) return undefined;
      if (earlier.requestHash !== requestHash) throw conflict("This Idempotency-Key was used with a different request", { idempotencyKey, orderId: earlier.id });
      return { order: orderView(earlier), replayed: true };
    };
    const earlier = await replay();
    if (earlier) return earlier;
    if (!(await repo.findCustomer(this.db, input.customerId))) throw invalid([{ field: "customerId", message: "no such customer" }]);

    const items = await this.#priceItems(input.items);
    const totalCents = items.reduce((sum, item) => sum + item.priceCents * item.quantity, 0);
    if (!Number.isSafeInteger(totalCents)) throw invalid([{ field: "items", message: "the order total is too large" }]);
    const id = randomUUID();
    try {
      await this.actors.spawn(orderKind, id, {
        customerId: input.customerId,
        items,
        totalCents,
        shippingAddress: input.shippingAddress,
        createdAt: Date.now(),
        idempotency: idempotencyKey === undefined ? undefined : { scope: caller.id, key: idempotencyKey, requestHash },
      });
    } catch (error) {
      if (error instanceof ActorPersistError && error.cause instanceof OutOfStock) throw await this.#outOfStock(error.cause.productId, items);
      // The same key sent twice at once (to one node or two): the unique index let one order in; this is its replay.
      if (error instanceof ActorPersistError && isUniqueViolation(error.cause)) {
        const replayed = await replay();
        if (replayed) return replayed;
      }
      throw error;
    }
    return { order: orderView((await repo.findOrder(this.db, id))!), replayed: false };
  }

  /** Each item with the product's current price; unknown products and short stock are refused up front. */
  async #priceItems(requested: OrderInput["items"]): Promise<OrderItem[]> {
    const products = new Map((await repo.findProducts(this.db, [...new Set(requested.map((i) => i.productId))])).map((p) => [p.id, p]));
    const unknown: FieldIssue[] = requested.flatMap((item, i) =>
      products.has(item.productId) ? [] : [{ field: `items[${i}].productId`, message: `no product ${item.productId}` }],
    );
    if (unknown.length) throw invalid(unknown);
    const wanted = new Map<string, number>();
    for (const { productId, quantity } of requested) wanted.set(productId, (wanted.get(productId) ?? 0) + quantity);
    for (const [productId, quantity] of wanted) if (products.get(productId)!.stock < quantity) throw await this.#outOfStock(productId, requested);
    return requested.map(({ productId, quantity }) => ({ productId, quantity, priceCents: products.get(productId)!.priceCents }));
  }

  async #outOfStock(productId: string, items: { productId: string; quantity: number }[]) {
    const requested = items.filter((i) => i.productId === productId).reduce((sum, i) => sum + i.quantity, 0);
    const available = (await repo.findProduct(this.db, productId))?.stock ?? 0;
    return conflict(`Insufficient stock for product ${productId}: ${requested} requested, ${available} available`, {
      productId,
      requested,
      available,
    });
  }

  async listOrders(principal: Principal | undefined, query: OrderQuery): Promise<PageOf<Order>> {
    const caller = requireRole(principal, "admin", "customer");
    // A customer's list is always their own; asking for someone else's gets an empty page, like any filter.
    const customerId = caller.role === "admin" ? query.customerId : query.customerId && query.customerId !== caller.customerId ? "" : caller.customerId;
    return paged(await repo.listOrders(this.db, { status: query.status, customerId }, windowOf(query)), query, orderView);
  }

  async getOrder(principal: Principal | undefined, id: string): Promise<Order> {
    return orderView(await this.#visibleOrder(principal, id));
  }

  /** Moves an order through its machine; a move the machine does not allow is a conflict naming the state. */
  async changeOrderStatus(principal: Principal | undefined, id: string, status: OrderRow["status"]): Promise<Order> {
    const order = await this.#visibleOrder(principal, id);
    const caller = principal!;
    if (caller.role !== "admin" && status !== "cancelled") throw forbidden("A customer may only cancel an order");
    const refuse = () =>
      conflict(`Order ${id} is ${order.status}; it cannot move to ${status}`, { currentStatus: order.status, requestedStatus: status });
    if (status === "pending") throw refuse();
    const event = eventFor[status];
    // A finished order's actor may have been retired; its row still knows the (final) state.
    const actor = this.actors.get(orderKind, id);
    if (!actor || !actor.getSnapshot().can(event)) throw refuse();
    await this.actors.send(orderKind, id, event);
    return orderView((await repo.findOrder(this.db, id))!);
  }

  async #visibleOrder(principal: Principal | undefined, id: string): Promise<OrderRow> {
    const caller = requireRole(principal, "admin", "customer");
    const row = await repo.findOrder(this.db, id);
    // Another customer's order is reported as missing, not forbidden: its existence is not theirs to learn.
    if (!row || (caller.role !== "admin" && row.customerId !== caller.customerId)) throw notFound("Order", id);
    return row;
  }
}
