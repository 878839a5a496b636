/**
 * A vault lease: an agent's token, a setup-page session, an operator's admin token, or a credential handed to a
 * command. Pure configuration; the vault's lease service sends the events and performs renewals. Expiry rides on
 * the actor system's persisted `deadline` (the renewal point while active, the expiry otherwise), so it survives
 * restarts.
 *
 * At its renewal point an auto-renewing lease enters `renewing`, where the lease service decides once: RENEW
 * (back to `active` for another period) or RENEWAL_DECLINED (to `expiring`, which only waits for the expiry).
 * No state answers the decision's event by staying where it is, so a decision can never be asked for twice.
 */
import { assign, setup } from "xstate";
import type { DeadlineEvent } from "./system.ts";

export type LeasePurpose = "token" | "session" | "admin" | "exec";

export interface LeaseInput {
  purpose: LeasePurpose;
  /** Who holds it: a role name, `setup`, `admin:<operator>`, or the service a command runs for. */
  holder: string;
  /** SHA-256 of the bearer value (tokens, sessions); the value itself never enters a snapshot. */
  hash?: string;
  secretIdAccessor?: string;
  /** Lifetime of one period, and the latest moment renewals may reach. */
  ttlMs: number;
  maxExpiresAt: number;
  /** Renewed automatically (at two thirds of each period) while its holder keeps using it. */
  autoRenew: boolean;
  issuedAt: number;
}

export interface LeaseContext extends LeaseInput {
  expiresAt: number;
  renewals: number;
  deadline: number;
}

export type LeaseEvent =
  | { type: "ACTIVATE"; at: number; ttlMs?: number }
  | { type: "RENEW"; at: number }
  | { type: "RENEWAL_DECLINED" }
  | { type: "REVOKE" }
  | DeadlineEvent;

const renewPoint = (context: LeaseContext, expiresAt: number) =>
  context.autoRenew ? Math.min(expiresAt, expiresAt - Math.floor(context.ttlMs / 3)) : expiresAt;

const extended = (context: LeaseContext, at: number, ttlMs = context.ttlMs) => {
  const expiresAt = Math.min(at + ttlMs, context.maxExpiresAt);
  return { expiresAt, deadline: renewPoint(context, expiresAt) };
};

export const leaseMachine = setup({
  types: { context: {} as LeaseContext, input: {} as LeaseInput, events: {} as LeaseEvent },
  guards: {
    renewable: ({ context }) => context.autoRenew && context.expiresAt < context.maxExpiresAt && context.deadline < context.expiresAt,
  },
  actions: {
    activate: assign(({ context, event }) => (event.type === "ACTIVATE" ? extended(context, event.at, event.ttlMs) : {})),
    renew: assign(({ context, event }) =>
      event.type === "RENEW" ? { ...extended(context, event.at), renewals: context.renewals + 1 } : {},
    ),
    waitForExpiry: assign(({ context }) => ({ deadline: context.expiresAt })),
  },
}).createMachine({
  id: "vault-lease",
  context: ({ input }) => {
    const expiresAt = Math.min(input.issuedAt + input.ttlMs, input.maxExpiresAt);
    return { ...input, expiresAt, renewals: 0, deadline: expiresAt };
  },
  initial: "issued",
  states: {
    issued: {
      on: { ACTIVATE: { target: "active", actions: "activate" }, REVOKE: "revoked", DEADLINE: "expired" },
    },
    active: {
      on: {
        RENEW: { target: "active", reenter: true, actions: "renew" },
        REVOKE: "revoked",
        DEADLINE: [{ guard: "renewable", target: "renewing", actions: "waitForExpiry" }, { target: "expired" }],
      },
    },
    renewing: {
      on: {
        RENEW: { target: "active", actions: "renew" },
        RENEWAL_DECLINED: "expiring",
        REVOKE: "revoked",
        DEADLINE: "expired",
      },
    },
    // Not renewed automatically; its holder may still renew it explicitly until it expires.
    expiring: {
      on: {
        RENEW: { target: "active", actions: "renew" },
        REVOKE: "revoked",
        DEADLINE: "expired",
      },
    },
    expired: { type: "final" },
    revoked: { type: "final" },
  },
});

export type LeaseState = "issued" | "active" | "renewing" | "expiring" | "expired" | "revoked";
