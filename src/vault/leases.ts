/**
 * Vault leases as actors: issuing, looking up by bearer hash, activating, revoking, and the automatic renewal
 * the machine asks for when a lease reaches its renewal point. The `vault_leases` row is written in the same
 * transaction as each snapshot.
 */
import { randomUUID } from "node:crypto";
import type { Actor } from "xstate";
import { leaseMachine, type LeaseContext, type LeaseInput, type LeaseState } from "../../actors/lease.machine.ts";
import type { ActorKind, ActorSystem } from "../../actors/system.ts";
import type { Db } from "../db/client.ts";
import * as repo from "./repo.ts";

export type LeaseActor = Actor<typeof leaseMachine>;

export interface LeaseView {
  id: string;
  state: LeaseState;
  /** Absent once the lease has ended and its actor was retired; the row still says how it ended. */
  context?: LeaseContext;
}

/** Decides whether a lease at its renewal point may live another period. */
export type RenewalPolicy = (lease: LeaseView) => boolean;

const live: LeaseState[] = ["issued", "active", "renewing"];

export class Leases {
  readonly kind: ActorKind<typeof leaseMachine>;
  readonly #usedSinceRenewal = new Set<string>();
  readonly #watchers = new Map<string, Set<(lease: LeaseView) => void>>();

  constructor(
    private readonly actors: ActorSystem,
    private readonly db: Db,
    private readonly policy: RenewalPolicy,
  ) {
    this.kind = {
      kind: "vault-lease",
      machine: leaseMachine,
      record: (tx, id, snapshot) => {
        const c = snapshot.context;
        repo.saveLease(tx, {
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

  issue(input: Omit<LeaseInput, "issuedAt">): LeaseView {
    const id = `lease_${randomUUID()}`;
    this.actors.spawn(this.kind, id, { ...input, issuedAt: Date.now() });
    this.#watch(id);
    return this.view(id)!;
  }

  view(id: string): LeaseView | undefined {
    const actor = this.actors.get(this.kind, id);
    if (!actor) {
      const row = repo.findLease(this.db, id);
      return row ? { id, state: row.state as LeaseState } : undefined;
    }
    const snapshot = actor.getSnapshot();
    return { id, state: snapshot.value as LeaseState, context: snapshot.context };
  }

  /** The live lease whose bearer value hashes to `hash`, or undefined when none is issued/active/renewing. */
  liveByHash(hash: string): LeaseView | undefined {
    const row = repo.findLeaseByHash(this.db, hash);
    if (!row) return undefined;
    const lease = this.view(row.id);
    if (!lease?.context || !live.includes(lease.state) || Date.now() >= lease.context.expiresAt) return undefined;
    return lease;
  }

  activate(id: string, ttlMs?: number): void {
    this.actors.send(this.kind, id, { type: "ACTIVATE", at: Date.now(), ttlMs });
  }

  renew(id: string): LeaseView | undefined {
    this.actors.send(this.kind, id, { type: "RENEW", at: Date.now() });
    return this.view(id);
  }

  revoke(id: string): void {
    this.actors.send(this.kind, id, { type: "REVOKE" });
  }

  /** Notes that the holder used the lease; automatic renewal only keeps leases that are in use. */
  touch(id: string): void {
    this.#usedSinceRenewal.add(id);
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
    const react = (lease: LeaseView) => {
      for (const listener of this.#watchers.get(id) ?? []) listener(lease);
      if (lease.state === "renewing") queueMicrotask(() => this.#renewal(id));
      if (lease.state === "expired" || lease.state === "revoked") {
        this.#watchers.delete(id);
        this.#usedSinceRenewal.delete(id);
      }
    };
    this.actors.subscribe(this.kind, id, (snapshot) => react({ id, state: snapshot.value as LeaseState, context: snapshot.context }));
    const current = this.view(id);
    if (current?.state === "renewing") queueMicrotask(() => this.#renewal(id));
  }

  #renewal(id: string): void {
    const lease = this.view(id);
    if (lease?.state !== "renewing") return;
    if (this.policy(lease)) {
      this.#usedSinceRenewal.delete(id);
      this.actors.send(this.kind, id, { type: "RENEW", at: Date.now() });
    } else this.actors.send(this.kind, id, { type: "RENEW_FAILED" });
  }
}
