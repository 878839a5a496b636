/**
 * An order's life: pending -> processing -> shipped -> delivered, or cancelled from pending or processing.
 * Pure definition; the order actor kind (src/catalog/order-actor.ts) writes the order row, and reserves or
 * returns stock, in the transaction that stores each snapshot.
 */
import { setup } from "xstate";
import type { CatalogAddress } from "../src/db/schema.ts";

export interface OrderItem {
  productId: string;
  quantity: number;
  /** The product's price when the order was placed, in minor units. */
  priceCents: number;
}

export interface OrderInput {
  customerId: string;
  items: OrderItem[];
  totalCents: number;
  shippingAddress: CatalogAddress;
  createdAt: number;
  /** Set when the order was created with an Idempotency-Key, so a retry finds it. */
  idempotency?: { scope: string; key: string; requestHash: string };
}

export type OrderEvent = { type: "PROCESS" } | { type: "SHIP" } | { type: "DELIVER" } | { type: "CANCEL" };
export type OrderStatus = "pending" | "processing" | "shipped" | "delivered" | "cancelled";

export const orderMachine = setup({
  types: { context: {} as OrderInput, input: {} as OrderInput, events: {} as OrderEvent },
}).createMachine({
  id: "order",
  context: ({ input }) => input,
  initial: "pending",
  states: {
    pending: { on: { PROCESS: "processing", CANCEL: "cancelled" } },
    processing: { on: { SHIP: "shipped", CANCEL: "cancelled" } },
    shipped: { on: { DELIVER: "delivered" } },
    delivered: { type: "final" },
    cancelled: { type: "final" },
  },
});

/** The event that moves an order to each status; `pending` is only ever the start. */
export const eventFor: Record<Exclude<OrderStatus, "pending">, OrderEvent> = {
  processing: { type: "PROCESS" },
  shipped: { type: "SHIP" },
  delivered: { type: "DELIVER" },
  cancelled: { type: "CANCEL" },
};
