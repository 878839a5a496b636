/** Rows to wire shapes, and money between the wire's number and the stored integer cents. */
import type { ApiKeyRow, CustomerRow, OrderRow, ProductRow } from "../db/schema.ts";
import { invalid } from "./errors.ts";
import type { ApiKey, Customer, Order, Product } from "./model.ts";

/** 19.99 -> 1999. A price with more than two decimals is refused rather than silently rounded. */
export function toCents(amount: number, field: string): number {
  const cents = Math.round(amount * 100);
  if (Math.abs(cents - amount * 100) > 1e-6) throw invalid([{ field, message: "must have at most 2 decimal places" }]);
  return cents;
}

export const fromCents = (cents: number) => cents / 100;

export const productView = (row: ProductRow): Product => ({
  id: row.id,
  name: row.name,
  description: row.description,
  price: fromCents(row.priceCents),
  sku: row.sku,
  category: row.category,
  stock: row.stock,
  images: row.images,
  tags: row.tags,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const customerView = (row: CustomerRow): Customer => ({
  id: row.id,
  email: row.email,
  name: row.name,
  role: row.role,
  addresses: row.addresses,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const orderView = (row: OrderRow): Order => ({
  id: row.id,
  customerId: row.customerId,
  items: row.items.map(({ productId, quantity, priceCents }) => ({ productId, quantity, price: fromCents(priceCents) })),
  status: row.status,
  totalAmount: fromCents(row.totalCents),
  shippingAddress: row.shippingAddress,
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

export const apiKeyView = (row: ApiKeyRow): ApiKey => ({
  id: row.id,
  name: row.name,
  role: row.role,
  customerId: row.customerId,
  createdAt: row.createdAt.toISOString(),
});
