/**
 * The catalog's rules: products, customers and orders, and who may do what. No wire format here; every
 * function takes the calling principal (or undefined for an anonymous caller) and returns wire-ready views.
 *
 * Placing an order is synchronous from the stock check to the actor's first stored snapshot, so no other
 * request of this process runs in between; the reservation itself happens in the order actor's `record`
 * (see order-actor.ts), inside the snapshot's transaction, and re-checks stock there.
 */
import { createHash, randomUUID } from "node:crypto";
import { ActorPersistError, type ActorSystem } from "../../actors/system.ts";
import { eventFor, type OrderItem } from "../../actors/order.machine.ts";
import type { Db } from "../db/client.ts";
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
    for (let level = this.#index.level(); typeof level !== "string"; level = this.#index.level()) await level;
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
    let mark = this.#index.level();
    while (typeof mark !== "string") {
      await mark;
      mark = this.#index.level();
    }
    // From the mark to the answer nothing else runs, so the index, the kept pages and the rows agree.
    const key = JSON.stringify([filter, sort, query.page, query.limit]);
    return this.#productPages.get(mark, key, () => {
      const { ids, total } = this.#index.page(filter, sort, windowOf(query));
      // Products kept from earlier reads are used as they are; the rest are read in one statement, and kept.
      const kept = ids.map((id) => this.#products.peek(mark, id));
      const missing = ids.filter((_, i) => !kept[i]);
      const rows = new Map(missing.length ? repo.findProducts(this.db, missing).map((row) => [row.id, row]) : []);
      const data = ids.map((id, i) => kept[i] ?? this.#products.get(mark, id, () => productView(rows.get(id)!)));
      return paged({ rows: data, total }, query, (product) => product);
    });
  }

  getProduct(principal: Principal | undefined, id: string): Product {
    this.#requireReader(principal);
    return this.#products.get(repo.changeMark(this.db), id, () => {
      const row = repo.findProduct(this.db, id);
      if (!row) throw notFound("Product", id);
      return productView(row);
    });
  }

  createProduct(principal: Principal | undefined, input: ProductInput): Product {
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
    this.#requireFreeSku(row.sku);
    repo.insertProduct(this.db, row);
    return productView(row);
  }

  updateProduct(principal: Principal | undefined, id: string, patch: ProductPatch): Product {
    requireRole(principal, "admin");
    if (!repo.findProduct(this.db, id)) throw notFound("Product", id);
    const { price, ...rest } = patch;
    if (rest.sku !== undefined) this.#requireFreeSku(rest.sku, id);
    const changes: Partial<ProductRow> = { ...rest, updatedAt: new Date() };
    if (price !== undefined) changes.priceCents = toCents(price, "price");
    return productView(repo.updateProduct(this.db, id, changes)!);
  }

  deleteProduct(principal: Principal | undefined, id: string): void {
    requireRole(principal, "admin");
    // Orders keep their own copy of each item's price, so they outlive the product.
    if (!repo.deleteProduct(this.db, id)) throw notFound("Product", id);
  }

  #requireReader(principal: Principal | undefined) {
    if (!this.publicReads) requireRole(principal, "admin", "customer");
  }

  #requireFreeSku(sku: string, ownerId?: string) {
    const holder = repo.findProductBySku(this.db, sku);
    if (holder && holder.id !== ownerId) throw conflict(`SKU ${sku} is already used by product ${holder.id}`, { field: "sku", productId: holder.id });
  }

  // --- customers ---
  /** Sign-up is open; only an admin may choose the role. */
  async createCustomer(principal: Principal | undefined, input: CustomerInput): Promise<Customer> {
    if (input.role && input.role !== "customer") requireRole(principal, "admin");
    const email = input.email.toLowerCase();
    this.#requireFreeEmail(email);
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
    this.#requireFreeEmail(email); // hashing awaited; another sign-up may have taken it meanwhile
    repo.insertCustomer(this.db, row);
    return customerView(row);
  }

  listCustomers(principal: Principal | undefined, paging: Paging): PageOf<Customer> {
    requireRole(principal, "admin");
    return paged(repo.listCustomers(this.db, windowOf(paging)), paging, customerView);
  }

  getCustomer(principal: Principal | undefined, id: string): Customer {
    this.#requireSelfOrAdmin(principal, id);
    const row = repo.findCustomer(this.db, id);
    if (!row) throw notFound("Customer", id);
    return customerView(row);
  }

  async updateCustomer(principal: Principal | undefined, id: string, patch: CustomerPatch): Promise<Customer> {
    const caller = this.#requireSelfOrAdmin(principal, id);
    if (patch.role !== undefined && caller.role !== "admin") throw forbidden("Only an admin may change a role");
    if (!repo.findCustomer(this.db, id)) throw notFound("Customer", id);
    const { password, email, ...rest } = patch;
    const changes = { ...rest, updatedAt: new Date(), ...(password ? { passwordHash: await hashPassword(password) } : {}) };
    if (email !== undefined) {
      this.#requireFreeEmail(email.toLowerCase(), id);
      Object.assign(changes, { email: email.toLowerCase() });
    }
    return customerView(repo.updateCustomer(this.db, id, changes)!);
  }

  #requireSelfOrAdmin(principal: Principal | undefined, customerId: string): Principal {
    const caller = requireRole(principal, "admin", "customer");
    if (caller.role !== "admin" && caller.customerId !== customerId) throw forbidden("A customer may only see and change their own record");
    return caller;
  }

  #requireFreeEmail(email: string, ownerId?: string) {
    const holder = repo.findCustomerByEmail(this.db, email);
    if (holder && holder.id !== ownerId) throw conflict(`Email ${email} is already registered`, { field: "email" });
  }

  // --- orders ---
  placeOrder(principal: Principal | undefined, input: OrderInput, idempotencyKey?: string): PlacedOrder {
    const caller = requireRole(principal, "admin", "customer");
    if (caller.role !== "admin" && caller.customerId !== input.customerId)
      throw forbidden("A customer may only place orders for themselves");
    const requestHash = createHash("sha256").update(canonicalJson(input)).digest("hex");
    if (idempotencyKey !== undefined) {
      const earlier = repo.findOrderByIdempotencyKey(this.db, caller.id, idempotencyKey);
      if (earlier) {
        if (earlier.requestHash !== requestHash)
          throw conflict("This Idempotency-Key was used with a different request", { idempotencyKey, orderId: earlier.id });
        return { order: orderView(earlier), replayed: true };
      }
    }
    if (!repo.findCustomer(this.db, input.customerId)) throw invalid([{ field: "customerId", message: "no such customer" }]);

    const items = this.#priceItems(input.items);
    const totalCents = items.reduce((sum, item) => sum + item.priceCents * item.quantity, 0);
    if (!Number.isSafeInteger(totalCents)) throw invalid([{ field: "items", message: "the order total is too large" }]);
    const id = randomUUID();
    try {
      this.actors.spawn(orderKind, id, {
        customerId: input.customerId,
        items,
        totalCents,
        shippingAddress: input.shippingAddress,
        createdAt: Date.now(),
        idempotency: idempotencyKey === undefined ? undefined : { scope: caller.id, key: idempotencyKey, requestHash },
      });
    } catch (error) {
      if (error instanceof ActorPersistError && error.cause instanceof OutOfStock) throw this.#outOfStock(error.cause.productId, items);
      throw error;
    }
    return { order: orderView(repo.findOrder(this.db, id)!), replayed: false };
  }

  /** Each item with the product's current price; unknown products and short stock are refused up front. */
  #priceItems(requested: OrderInput["items"]): OrderItem[] {
    const products = new Map(repo.findProducts(this.db, [...new Set(requested.map((i) => i.productId))]).map((p) => [p.id, p]));
    const unknown: FieldIssue[] = requested.flatMap((item, i) =>
      products.has(item.productId) ? [] : [{ field: `items[${i}].productId`, message: `no product ${item.productId}` }],
    );
    if (unknown.length) throw invalid(unknown);
    const wanted = new Map<string, number>();
    for (const { productId, quantity } of requested) wanted.set(productId, (wanted.get(productId) ?? 0) + quantity);
    for (const [productId, quantity] of wanted) if (products.get(productId)!.stock < quantity) throw this.#outOfStock(productId, requested);
    return requested.map(({ productId, quantity }) => ({ productId, quantity, priceCents: products.get(productId)!.priceCents }));
  }

  #outOfStock(productId: string, items: { productId: string; quantity: number }[]) {
    const requested = items.filter((i) => i.productId === productId).reduce((sum, i) => sum + i.quantity, 0);
    const available = repo.findProduct(this.db, productId)?.stock ?? 0;
    return conflict(`Insufficient stock for product ${productId}: ${requested} requested, ${available} available`, {
      productId,
      requested,
      available,
    });
  }

  listOrders(principal: Principal | undefined, query: OrderQuery): PageOf<Order> {
    const caller = requireRole(principal, "admin", "customer");
    // A customer's list is always their own; asking for someone else's gets an empty page, like any filter.
    const customerId = caller.role === "admin" ? query.customerId : query.customerId && query.customerId !== caller.customerId ? "" : caller.customerId;
    return paged(repo.listOrders(this.db, { status: query.status, customerId }, windowOf(query)), query, orderView);
  }

  getOrder(principal: Principal | undefined, id: string): Order {
    return orderView(this.#visibleOrder(principal, id));
  }

  /** Moves an order through its machine; a move the machine does not allow is a conflict naming the state. */
  changeOrderStatus(principal: Principal | undefined, id: string, status: OrderRow["status"]): Order {
    const order = this.#visibleOrder(principal, id);
    const caller = principal!;
    if (caller.role !== "admin" && status !== "cancelled") throw forbidden("A customer may only cancel an order");
    const refuse = () =>
      conflict(`Order ${id} is ${order.status}; it cannot move to ${status}`, { currentStatus: order.status, requestedStatus: status });
    if (status === "pending") throw refuse();
    const event = eventFor[status];
    // A finished order's actor may have been retired; its row still knows the (final) state.
    const actor = this.actors.get(orderKind, id);
    if (!actor || !actor.getSnapshot().can(event)) throw refuse();
    this.actors.send(orderKind, id, event);
    return orderView(repo.findOrder(this.db, id)!);
  }

  #visibleOrder(principal: Principal | undefined, id: string): OrderRow {
    const caller = requireRole(principal, "admin", "customer");
    const row = repo.findOrder(this.db, id);
    // Another customer's order is reported as missing, not forbidden: its existence is not theirs to learn.
    if (!row || (caller.role !== "admin" && row.customerId !== caller.customerId)) throw notFound("Order", id);
    return row;
  }
}
