/**
 * Who may manage the vault's services: an operator, never an agent. An operator comes in one of two ways, both
 * vault leases whose bearer value is kept only as its SHA-256 hash, with a lifetime, revocable, and audited:
 *
 * - a setup-page session (purpose `session`), opened by the page's one-time link and carried in its cookie;
 * - an admin token (purpose `admin`), issued by `platform vault admin-token` in the process that owns the data
 *   dir, sent to /vault/v1/admin in a header, never in a cookie.
 *
 * Each stands for proof of the same thing: access to the machine's data dir (the server's log, or its files). An
 * agent's AppRole token is neither, and is refused here.
 */
import type { Audit } from "./audit.ts";
import type { Caller } from "./approle.ts";
import { randomToken, sha256 } from "./crypto.ts";
import { assertValid, VaultError } from "./errors.ts";
import { isLive, type Leases } from "./leases.ts";
import { AdminTokenInput, type IssuedAdminToken } from "./model.ts";

/** The setup page acts as this caller: every service. */
const setupCaller: Caller = { name: "setup", services: ["*"] };

export class AdminAccess {
  constructor(
    private readonly leases: Leases,
    private readonly audit: Audit,
    private readonly options: { sessionSeconds: number },
  ) {}

  /** Opens a setup-page session; returns the cookie's value, which is not kept. */
  async openSession(): Promise<string> {
    const value = randomToken("");
    const ttlMs = this.options.sessionSeconds * 1000;
    const lease = await this.leases.issue({ purpose: "session", holder: "setup", hash: sha256(value), ttlMs, maxExpiresAt: Date.now() + ttlMs, autoRenew: false });
    await this.leases.activate(lease.id);
    return value;
  }

  /** The caller a setup-page session cookie's value stands for, or undefined when it is no live session. */
  async session(value: string | undefined): Promise<Caller | undefined> {
    const lease = value ? await this.leases.liveByHash(sha256(value)) : undefined;
    return lease?.context?.purpose === "session" && lease.context.holder === "setup" ? setupCaller : undefined;
  }

  /** A new admin token; its value is shown once, here, and only its hash is kept. */
  async issueToken(input: AdminTokenInput): Promise<IssuedAdminToken> {
    assertValid(AdminTokenInput, input);
    const { operator, ttl_seconds = 3600 } = input;
    const holder = `admin:${operator}`;
    const token = randomToken("pva_");
    const ttlMs = ttl_seconds * 1000;
    const lease = await this.leases.issue({ purpose: "admin", holder, hash: sha256(token), ttlMs, maxExpiresAt: Date.now() + ttlMs, autoRenew: false });
    await this.leases.activate(lease.id);
    await this.audit.record({ caller: holder, operation: "issue_admin_token", path: `lease/${lease.id}` }, "ok");
    return { token, lease_id: lease.id, expires_at: new Date((await this.leases.view(lease.id))!.context!.expiresAt).toISOString() };
  }

  /** The operator an admin token stands for; an agent's token is refused with PERMISSION_DENIED, anything else 401. */
  async authenticate(token: string | undefined): Promise<Caller> {
    const lease = token ? await this.leases.liveByHash(sha256(token)) : undefined;
    if (lease?.context?.purpose === "admin") return { name: lease.context.holder, services: ["*"] };
    if (lease?.context?.purpose === "token")
      throw new VaultError("PERMISSION_DENIED", "An agent's token cannot manage services; an operator uses an admin token ('platform vault admin-token')");
    throw new VaultError("UNAUTHENTICATED", "A valid admin token is required ('platform vault admin-token'; expired and revoked ones are refused)");
  }

  /** Ends an admin token before its time. The lease must be live in this process (see Leases.adopt). */
  revokeToken(leaseId: string, by: string): Promise<void> {
    return this.audit({ caller: by, operation: "revoke_admin_token", path: `lease/${leaseId.slice(0, 64)}` }, async () => {
      const lease = await this.leases.view(leaseId);
      if (lease?.context?.purpose !== "admin" || !isLive(lease.state)) throw new VaultError("NOT_FOUND", `No live admin token with lease id ${leaseId.slice(0, 64)}`);
      await this.leases.revoke(leaseId);
    });
  }
}
