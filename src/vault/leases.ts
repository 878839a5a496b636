/**
 * Vault leases as actors: issuing, looking up by bearer hash, activating, revoking, and the automatic renewal
 * the machine asks for when a lease reaches its renewal point. The `vault_leases` row is written in the same
 * transaction as each snapshot.
 *
 * The renewal decision is made once per arrival in `renewing`, on a later turn of the event loop (never as a
 * microtask of the notification that announced it), and either answer moves the lease out of `renewing`.
 */
import { randomUUID } from "node:crypto";
import type { Actor } from "xstate";
import { leaseMachine, type LeaseContext, type LeaseInput, type LeaseState } from "../../actors/lease.machine.ts";
import type { ActorKind, ActorSystem } from "../../actors/system.ts";
import type { Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import * as repo from "./repo.ts";

export type LeaseActor = Actor<typeof leaseMachine>;

export interface LeaseView {
  id: string;
  state: LeaseState;
  /** Absent once the lease has ended and its actor was retired; the row still says how it ended. */
  context?: LeaseContext;
}

/** Decides whether a lease at its renewal point may live another period. */
export type RenewalPolicy = (lease: LeaseView) => Promise<boolean>;

/** What happened to a lease without anyone asking: the vault's audit trail records each. */
export type LeaseEvent = "lease_renewed" | "lease_not_renewed" | "lease_expired";

const liveStates: readonly LeaseState[] = ["issued", "active", "renewing", "expiring"];
/** Whether a lease in `state` still admits its holder. */
export const isLive = (state: LeaseState | string): boolean => liveStates.includes(state as LeaseState);

export class Leases {
  readonly kind: ActorKind<typeof leaseMachine>;
  readonly #usedSinceRenewal = new Set<string>();
  readonly #watchers = new Map<string, Set<(lease: LeaseView) => void>>();

  constructor(
    private readonly actors: ActorSystem,
    private readonly db: Db,
    private readonly hooks: {
      policy: RenewalPolicy;
      /** Told of each renewal decision and each expiry, for the audit trail. */
      happened(event: LeaseEvent, lease: LeaseView): void;
      log: Logger;
    },
  ) {
    this.kind = {
      kind: "vault-lease",
      machine: leaseMachine,
      record: async (tx, id, snapshot) => {
        const c = snapshot.context;
        await repo.saveLease(tx, {
          id,
          purpose: c.purpose,
          state: String(snapshot.value),
          hash: c.hash ?? null,
          holder: c.holder,
          secretIdAccessor: c.secretIdAccessor ?? null,
          expiresAt: new Date(c.expiresAt),
          renewals: c.renewals,
          issuedAt: new Date(c.issuedAt),
        });
      },
      restored: (actor) => this.#watch(actor.id),
    };
    actors.register(this.kind);
  }

  async issue(input: Omit<LeaseInput, "issuedAt">): Promise<LeaseView> {
    const id = `lease_${randomUUID()}`;
    const actor = await this.actors.spawn(this.kind, id, { ...input, issuedAt: Date.now() });
    this.#watch(id);
    const snapshot = actor.getSnapshot();
    return { id, state: snapshot.value as LeaseState, context: snapshot.context };
  }

  /**
   * Brings a stored lease to life in this process, for a CLI verb that owns the data dir while no server runs
   * (and so holds every lease's only live copy). False when there is no such unfinished lease.
   */
  adopt(id: string): Promise<boolean> {
    // Watched as a restored lease is (the kind's `restored`).
    return this.actors.adopt(this.kind, id);
  }

  /** The lease as its live actor has it, or as its row says once it has ended and its actor was retired. */
  async view(id: string): Promise<LeaseView | undefined> {
    const live = this.#live(id);
    if (live) return live;
    const row = await repo.findLease(this.db, id);
    return row ? { id, state: row.state as LeaseState } : undefined;
  }

  #live(id: string): LeaseView | undefined {
    const snapshot = this.actors.get(this.kind, id)?.getSnapshot();
    return snapshot && { id, state: snapshot.value as LeaseState, context: snapshot.context };
  }

  /** The live lease whose bearer value hashes to `hash`, or undefined when none is issued/active/renewing. */
  async liveByHash(hash: string): Promise<LeaseView | undefined> {
    const row = await repo.findLeaseByHash(this.db, hash);
    if (!row) return undefined;
    const lease = this.#live(row.id);
    if (!lease?.context || !isLive(lease.state) || Date.now() >= lease.context.expiresAt) return undefined;
    return lease;
  }

  async activate(id: string, ttlMs?: number): Promise<void> {
    await this.actors.send(this.kind, id, { type: "ACTIVATE", at: Date.now(), ttlMs });
  }

  async renew(id: string): Promise<LeaseView | undefined> {
    await this.actors.send(this.kind, id, { type: "RENEW", at: Date.now() });
    return this.view(id);
  }

  async revoke(id: string): Promise<void> {
    await this.actors.send(this.kind, id, { type: "REVOKE" });
  }

  /**
   * Notes that the holder used the lease; automatic renewal only keeps leases that are in use. A lease that was
   * not renewed at its renewal point (unused then) is renewed now that it is used again, if the policy allows.
   */
  touch(id: string): void {
    this.#usedSinceRenewal.add(id);
    if (this.actors.get(this.kind, id)?.getSnapshot().value === "expiring") this.#decideLater(id);
  }

  usedSinceRenewal(id: string): boolean {
    return this.#usedSinceRenewal.has(id);
  }

  /** Calls `listener` on each change of the lease until it ends; returns the unsubscribe function. */
  onChange(id: string, listener: (lease: LeaseView) => void): () => void {
    let set = this.#watchers.get(id);
    if (!set) this.#watchers.set(id, (set = new Set()));
    set.add(listener);
    return () => void set.delete(listener);
  }

  #watch(id: string): void {
    let previous = this.#live(id)?.state;
    const react = (lease: LeaseView) => {
      const arrived = lease.state !== previous;
      previous = lease.state;
      for (const listener of this.#watchers.get(id) ?? []) listener(lease);
      if (!arrived) return;
      if (lease.state === "renewing") this.#decideLater(id);
      if (lease.state === "expired") this.hooks.happened("lease_expired", lease);
      if (lease.state === "expired" || lease.state === "revoked") {
        this.#watchers.delete(id);
        this.#usedSinceRenewal.delete(id);
      }
    };
    this.actors.subscribe(this.kind, id, (snapshot) => react({ id, state: snapshot.value as LeaseState, context: snapshot.context }));
    // Restored at its renewal point (the process stopped before deciding): decide now.
    if (previous === "renewing") this.#decideLater(id);
  }

  /**
   * Decides on a later turn, so the turn that announced `renewing` (or the use of an `expiring` lease) has ended
   * first. In `renewing` either answer leaves the state; in `expiring` only a renewal is sent.
   */
  #decideLater(id: string): void {
    setImmediate(async () => {
      const lease = this.#live(id);
      if (lease?.state !== "renewing" && lease?.state !== "expiring") return; // decided, renewed or revoked meanwhile
      let renew: boolean;
      try {
        renew = await this.hooks.policy(lease);
      } catch (error) {
        // The store could not say: renewing stands until its expiry, unless its holder renews it meanwhile.
        this.hooks.log.error("vault lease renewal could not be decided", { leaseId: id, error });
        return;
      }
      if (this.#live(id)?.state !== lease.state) return; // moved while the policy was read
      if (!renew && lease.state === "expiring") return;
      this.#usedSinceRenewal.delete(id);
      try {
        await this.actors.send(this.kind, id, renew ? { type: "RENEW", at: Date.now() } : { type: "RENEWAL_DECLINED" });
      } catch (error) {
        // Not stored, so it stays `renewing`, whose deadline is its expiry: it ends then, unless its holder renews it.
        this.hooks.log.error("vault lease renewal decision could not be stored", { leaseId: id, error });
        return;
      }
      this.hooks.happened(renew ? "lease_renewed" : "lease_not_renewed", lease);
    });
  }
}
