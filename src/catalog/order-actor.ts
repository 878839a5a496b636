/**
 * The order actor kind. Its `record` runs inside the transaction that stores each snapshot, and it is the
 * only code that writes an order row or moves stock for an order:
 * - first snapshot: take every item's quantity from stock (only if there is enough: a conditional update, whose
 *   row lock makes a concurrent order on any node wait and then see the new stock) and insert the order row; one
 *   short item throws, which rolls back the snapshot, the row and every reservation together;
 * - a move into `cancelled`: put the stock back.
 * So an order row, its actor and its reservation exist together or not at all.
 */
import type { ActorKind } from "../../actors/system.ts";
import { orderMachine, type OrderStatus } from "../../actors/order.machine.ts";
import { insertOrder, reserveStock, returnStock, setOrderStatus } from "./repo.ts";

/** Thrown inside the order's first transaction when an item's stock ran out; nothing was written. */
export class OutOfStock extends Error {
  override name = "OutOfStock";
  constructor(readonly productId: string) {
    super(`product ${productId} has too little stock`);
  }
}

export const orderKind: ActorKind<typeof orderMachine> = {
  kind: "catalog.order",
  machine: orderMachine,
  async record(tx, id, snapshot, previous) {
    const status = snapshot.value as OrderStatus;
    const order = snapshot.context;
    const now = new Date();
    if (!previous) {
      // In one order of products on every node, so two orders' row locks never wait on each other in a circle.
      for (const item of order.items.toSorted((a, b) => (a.productId < b.productId ? -1 : a.productId > b.productId ? 1 : 0)))
        if (!(await reserveStock(tx, item.productId, item.quantity))) throw new OutOfStock(item.productId);
      await insertOrder(tx, {
        id,
        customerId: order.customerId,
        status,
        items: order.items,
        totalCents: order.totalCents,
        shippingAddress: order.shippingAddress,
        idempotencyScope: order.idempotency?.scope ?? null,
        idempotencyKey: order.idempotency?.key ?? null,
        requestHash: order.idempotency?.requestHash ?? null,
        createdAt: new Date(order.createdAt),
        updatedAt: new Date(order.createdAt),
      });
      return;
    }
    // Only a move to another status changes the row.
    if (previous.value === status) return;
    if (status === "cancelled") for (const item of order.items) await returnStock(tx, item.productId, item.quantity);
    await setOrderStatus(tx, id, status, now);
  },
};
