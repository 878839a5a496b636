/**
 * AppRole-style login. A role has a public role_id and any number of secret_ids, stored only as SHA-256 hashes,
 * optionally limited in uses and lifetime, and revocable. Logging in with both returns a short-lived token (a
 * vault-lease actor) that is renewed automatically while it is used, up to the role's maximum lifetime.
 */
import { randomUUID } from "node:crypto";
import type { Db } from "../db/client.ts";
import { randomToken, sha256 } from "./crypto.ts";
import { VaultError } from "./errors.ts";
import { isLive, type Leases, type LeaseView } from "./leases.ts";
import type { LoginInput, RoleInput, SecretIdInput } from "./model.ts";
import * as repo from "./repo.ts";

export interface Caller {
  /** Role name, `setup`, or the verified identity of an MCP caller. */
  name: string;
  /** Services the caller may use; `*` for all. */
  services: string[];
}

export interface IssuedToken {
  token: string;
  lease_id: string;
  expires_at: string;
  renewable: boolean;
}

export class AppRoles {
  constructor(
    private readonly db: Db,
    private readonly leases: Leases,
    private readonly defaults: { tokenTtlSeconds: number; tokenMaxTtlSeconds: number },
  ) {}

  async createRole(input: RoleInput): Promise<{ name: string; role_id: string }> {
    if (await repo.findRole(this.db, input.name)) throw new VaultError("SERVICE_EXISTS", `A role named ${input.name} already exists`);
    const roleId = randomUUID();
    await repo.insertRole(this.db, {
      name: input.name,
      roleId,
      services: input.services,
      tokenTtlSeconds: input.token_ttl_seconds ?? this.defaults.tokenTtlSeconds,
      tokenMaxTtlSeconds: input.token_max_ttl_seconds ?? this.defaults.tokenMaxTtlSeconds,
      createdAt: new Date(),
    });
    return { name: input.name, role_id: roleId };
  }

  /** A new secret_id for the role; its value is shown once, here, and only its hash is kept. */
  async createSecretId(roleName: string, input: SecretIdInput = {}): Promise<{ secret_id: string; accessor: string; expires_at: string | null }> {
    if (!(await repo.findRole(this.db, roleName))) throw new VaultError("NOT_FOUND", `No role named ${roleName}`);
    const secretId = randomToken("psi_");
    const accessor = `sia_${randomUUID()}`;
    const expiresAt = input.ttl_seconds ? new Date(Date.now() + input.ttl_seconds * 1000) : null;
    await repo.insertSecretId(this.db, {
      accessor,
      roleName,
      hash: sha256(secretId),
      usesLeft: input.uses ?? null,
      expiresAt,
      revokedAt: null,
      createdAt: new Date(),
    });
    return { secret_id: secretId, accessor, expires_at: expiresAt?.toISOString() ?? null };
  }

  /** Revokes a secret_id and every token issued with it. */
  async revokeSecretId(accessor: string): Promise<void> {
    if (!(await repo.findSecretId(this.db, accessor))) throw new VaultError("NOT_FOUND", `No secret_id with accessor ${accessor}`);
    await repo.revokeSecretId(this.db, accessor);
    for (const lease of await repo.leasesOfSecretId(this.db, accessor))
      if (isLive(lease.state)) await this.leases.revoke(lease.id);
  }

  async login({ role_id, secret_id }: LoginInput): Promise<IssuedToken> {
    const refused = new VaultError("UNAUTHENTICATED", "Login refused: unknown role_id, or a wrong, used-up, expired or revoked secret_id");
    const role = await repo.findRoleByRoleId(this.db, role_id);
    const secret = await repo.findSecretIdByHash(this.db, sha256(secret_id));
    if (!role || !secret || secret.roleName !== role.name || !usable(secret)) throw refused;
    // One atomic update counts the use, so racing logins (on any node) cannot both take a secret_id's last use.
    if (!(await repo.useSecretId(this.db, secret.accessor, new Date()))) throw refused;
    const token = randomToken("pvt_");
    const lease = await this.leases.issue({
      purpose: "token",
      holder: role.name,
      hash: sha256(token),
      secretIdAccessor: secret.accessor,
      ttlMs: role.tokenTtlSeconds * 1000,
      maxExpiresAt: Date.now() + role.tokenMaxTtlSeconds * 1000,
      autoRenew: true,
    });
    await this.leases.activate(lease.id);
    return view(token, (await this.leases.view(lease.id))!);
  }

  /** The caller a token stands for; refuses unknown, expired and revoked tokens. */
  async authenticate(token: string | undefined): Promise<Caller & { leaseId: string }> {
    const lease = token ? await this.leases.liveByHash(sha256(token)) : undefined;
    // Only an agent's token: a setup-page session or an admin token never stands for a role.
    if (lease?.context?.purpose !== "token") throw new VaultError("UNAUTHENTICATED", "A valid vault token is required (expired and revoked tokens are refused)");
    const role = await repo.findRole(this.db, lease.context.holder);
    if (!role) throw new VaultError("UNAUTHENTICATED", "The token's role no longer exists");
    // A secret_id revoked by another process (the CLI) ends its tokens here too.
    const secret = lease.context.secretIdAccessor ? await repo.findSecretId(this.db, lease.context.secretIdAccessor) : undefined;
    if (!secret || secret.revokedAt !== null) {
      await this.leases.revoke(lease.id);
      throw new VaultError("UNAUTHENTICATED", "The token was revoked with its secret_id");
    }
    this.leases.touch(lease.id);
    return { name: role.name, services: role.services, leaseId: lease.id };
  }

  async renew(token: string): Promise<IssuedToken> {
    const { leaseId } = await this.authenticate(token);
    const lease = (await this.leases.view(leaseId))!;
    if (!(await this.mayRenew(lease))) throw new VaultError("UNAUTHENTICATED", "The token cannot be renewed (its secret_id was revoked or it reached its maximum lifetime)");
    return view(token, (await this.leases.renew(leaseId))!);
  }

  async revoke(token: string): Promise<void> {
    const { leaseId } = await this.authenticate(token);
    await this.leases.revoke(leaseId);
  }

  /** A token lives another period only while its secret_id stands and its maximum lifetime allows. */
  async mayRenew(lease: LeaseView): Promise<boolean> {
    const context = lease.context;
    if (!context || context.expiresAt >= context.maxExpiresAt) return false;
    const secret = context.secretIdAccessor ? await repo.findSecretId(this.db, context.secretIdAccessor) : undefined;
    return secret !== undefined && secret.revokedAt === null && (secret.expiresAt === null || secret.expiresAt.getTime() > Date.now());
  }
}

const usable = (secret: { revokedAt: Date | null; expiresAt: Date | null; usesLeft: number | null }) =>
  secret.revokedAt === null && (secret.expiresAt === null || secret.expiresAt.getTime() > Date.now()) && (secret.usesLeft === null || secret.usesLeft > 0);

const view = (token: string, lease: LeaseView): IssuedToken => ({
  token,
  lease_id: lease.id,
  expires_at: new Date(lease.context!.expiresAt).toISOString(),
  renewable: lease.context!.autoRenew,
});
