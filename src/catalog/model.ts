/**
 * The catalog's wire shapes, in TypeBox (Elysia's `t`): route validation and the OpenAPI document both read
 * these values. Inputs reject unknown fields; money is a number on the wire and integer cents inside.
 */
import { t, type Static, type TSchema } from "elysia";
import { Type, type TProperties } from "@sinclair/typebox";

/**
 * An object that refuses fields it does not name. `additionalProperties: false` would be silently stripped by
 * Elysia's response-normalizing mode before validation; a never-matching schema keeps the refusal.
 */
export const Strict = <P extends TProperties>(properties: P, options: { minProperties?: number; description?: string } = {}) =>
  t.Object(properties, { ...options, additionalProperties: t.Never() });

/** The same fields, each optional: what a PATCH may send. */
const optional = <P extends TProperties>(properties: P) => Type.Partial(t.Object(properties)).properties;

export const categories = ["electronics", "clothing", "books", "home", "sports"] as const;
export const Category = t.Union([t.Literal("electronics"), t.Literal("clothing"), t.Literal("books"), t.Literal("home"), t.Literal("sports")]);
export type Category = Static<typeof Category>;

export const roles = ["admin", "customer"] as const;
export const Role = t.Union([t.Literal("admin"), t.Literal("customer")]);
export type Role = Static<typeof Role>;

export const OrderStatus = t.Union([
  t.Literal("pending"),
  t.Literal("processing"),
  t.Literal("shipped"),
  t.Literal("delivered"),
  t.Literal("cancelled"),
]);

const Uuid = t.String({ format: "uuid" });
/**
 * An integer: TypeBox's own, never Elysia's `t.Integer`, which also takes numeric text ("3", "0x10", "1e2", " 3")
 * and would make every response run a TypeBox Encode pass. A body's integers are JSON numbers; a query's are read
 * from plain decimal digits by the route (http.ts), before validation.
 */
const Int = Type.Integer;
const Timestamp = t.String({ format: "date-time" });
/** Prices above this would lose cent precision long before they make sense for a shop. */
export const maxPrice = 1_000_000_000;
const Price = t.Number({ minimum: 0, maximum: maxPrice, description: "In the currency's major unit, at most 2 decimals" });

export const ErrorBody = t.Object(
  { code: t.String(), message: t.String(), details: t.Optional(t.Unknown()) },
  { description: "Every error: a stable code, a sentence for people, and details naming the offending fields" },
);

// Page numbers are bounded so that an offset always stays an exact integer.
const Paging = {
  page: Int({ minimum: 1, maximum: 1_000_000, default: 1 }),
  limit: Int({ minimum: 1, maximum: 100, default: 20 }),
};
export const Pagination = t.Object({ page: Int(), limit: Int(), total: Int(), totalPages: Int() });
export const Page = <T extends TSchema>(item: T) => t.Object({ data: t.Array(item), pagination: Pagination });
export type PageOf<T> = { data: T[]; pagination: Static<typeof Pagination> };

// --- products ---
const productFields = {
  name: t.String({ minLength: 1, maxLength: 200 }),
  description: t.String({ maxLength: 2000 }),
  price: Price,
  sku: t.String({ minLength: 1, maxLength: 64, pattern: "^[A-Z0-9-]+$" }),
  category: Category,
  stock: Int({ minimum: 0, maximum: 1_000_000_000 }),
  images: t.Array(t.String({ format: "uri", maxLength: 2000 }), { maxItems: 20 }),
  tags: t.Array(t.String({ minLength: 1, maxLength: 50 }), { maxItems: 50 }),
};
export const ProductInput = Strict({
  name: productFields.name,
  description: t.Optional(productFields.description),
  price: productFields.price,
  sku: productFields.sku,
  category: t.Optional(productFields.category),
  stock: t.Optional(productFields.stock),
  images: t.Optional(productFields.images),
  tags: t.Optional(productFields.tags),
});
export type ProductInput = Static<typeof ProductInput>;
export const ProductPatch = Strict(
  { ...optional(productFields), category: t.Optional(t.Union([Category, t.Null()], { description: "null takes the product out of its category" })) },
  { minProperties: 1 },
);
export type ProductPatch = Static<typeof ProductPatch>;
export const Product = t.Object({
  id: t.String({ description: "uuid" }),
  ...productFields,
  category: t.Union([Category, t.Null()], { description: "null for a product with no category" }),
  stock: Int({ minimum: 0 }),
  images: t.Array(t.String({ description: "URI" })),
  createdAt: t.String({ description: "ISO 8601 date-time" }),
  updatedAt: t.String({ description: "ISO 8601 date-time" }),
});
export type Product = Static<typeof Product>;
/** A list's order: by creation time, price or name (ignoring case), ascending, or descending with a leading `-`. */
export const productSorts = ["-created", "created", "price", "-price", "name", "-name"] as const;
export type ProductSort = (typeof productSorts)[number];
export const ProductQuery = Strict({
  ...Paging,
  category: t.Optional(Category),
  search: t.Optional(t.String({ minLength: 1, maxLength: 200, description: "Case-insensitive, in name and description" })),
  minPrice: t.Optional(Price),
  maxPrice: t.Optional(Price),
  sort: t.Optional(
    t.Union(
      productSorts.map((sort) => t.Literal(sort)),
      { default: "-created", description: "created, price or name (ignoring case), ascending; a leading - for descending. Newest first by default" },
    ),
  ),
});
export type ProductQuery = Static<typeof ProductQuery>;

// --- customers ---
export const Address = Strict({
  street: t.String({ minLength: 1, maxLength: 200 }),
  city: t.String({ minLength: 1, maxLength: 100 }),
  state: t.Optional(t.String({ minLength: 1, maxLength: 100 })),
  country: t.String({ minLength: 2, maxLength: 100 }),
  postalCode: t.String({ minLength: 1, maxLength: 20 }),
});
const customerFields = {
  email: t.String({ format: "email", maxLength: 254 }),
  name: t.String({ minLength: 1, maxLength: 200 }),
  password: t.String({ minLength: 8, maxLength: 256 }),
  addresses: t.Array(Address, { maxItems: 10 }),
  role: Role,
};
export const CustomerInput = Strict({
  email: customerFields.email,
  name: customerFields.name,
  password: customerFields.password,
  addresses: t.Optional(customerFields.addresses),
  role: t.Optional(t.Union([t.Literal("admin"), t.Literal("customer")], { description: "Only an admin may set it; default customer" })),
});
export type CustomerInput = Static<typeof CustomerInput>;
export const CustomerPatch = Strict(optional(customerFields), { minProperties: 1 });
export type CustomerPatch = Static<typeof CustomerPatch>;
export const Customer = t.Object({
  id: Uuid,
  email: t.String(),
  name: t.String(),
  role: Role,
  addresses: t.Array(Address),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Customer = Static<typeof Customer>;
export const CustomerQuery = Strict({ ...Paging });

// --- orders ---
export const OrderInput = Strict({
  customerId: Uuid,
  items: t.Array(Strict({ productId: Uuid, quantity: Int({ minimum: 1, maximum: 10_000 }) }), { minItems: 1, maxItems: 100 }),
  shippingAddress: Address,
});
export type OrderInput = Static<typeof OrderInput>;
export const Order = t.Object({
  id: Uuid,
  customerId: Uuid,
  items: t.Array(t.Object({ productId: Uuid, quantity: Int(), price: t.Number() })),
  status: OrderStatus,
  totalAmount: t.Number(),
  shippingAddress: Address,
  createdAt: Timestamp,
  updatedAt: Timestamp,
});
export type Order = Static<typeof Order>;
export const OrderQuery = Strict({ ...Paging, status: t.Optional(OrderStatus), customerId: t.Optional(Uuid) });
export type OrderQuery = Static<typeof OrderQuery>;
export const StatusChange = Strict({ status: OrderStatus });
export const IdempotencyHeaders = t.Object({
  "idempotency-key": t.Optional(t.String({ minLength: 1, maxLength: 255, description: "A retry with the same key returns the first result" })),
});

// --- auth ---
export const Login = Strict({ email: t.String({ minLength: 1, maxLength: 254 }), password: t.String({ minLength: 1, maxLength: 256 }) });
export const RefreshInput = Strict({ refreshToken: t.String({ minLength: 1, maxLength: 512 }) });
export const Tokens = t.Object({
  tokenType: t.Literal("Bearer"),
  accessToken: t.String(),
  expiresIn: Int({ description: "Seconds until the access token expires" }),
  refreshToken: t.String(),
  refreshExpiresIn: Int(),
  customer: Customer,
});
export type Tokens = Static<typeof Tokens>;
export const ApiKeyInput = Strict({
  name: t.String({ minLength: 1, maxLength: 100 }),
  role: Role,
  customerId: t.Optional(t.String({ format: "uuid", description: "Required for a customer key: whose orders it acts on" })),
});
export type ApiKeyInput = Static<typeof ApiKeyInput>;
export const ApiKey = t.Object({
  id: Uuid,
  name: t.String(),
  role: Role,
  customerId: t.Union([Uuid, t.Null()]),
  createdAt: Timestamp,
});
export type ApiKey = Static<typeof ApiKey>;
export const CreatedApiKey = t.Object({ ...ApiKey.properties, key: t.String({ description: "Shown once; only its hash is stored" }) });
export type CreatedApiKey = Static<typeof CreatedApiKey>;

export const ProductParams = t.Object({ productId: Uuid });
export const OrderParams = t.Object({ orderId: Uuid });
export const CustomerParams = t.Object({ customerId: Uuid });
export const ApiKeyParams = t.Object({ keyId: Uuid });
