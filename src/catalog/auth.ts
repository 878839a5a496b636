/**
 * Who is calling: passwords (Bun.password), short-lived HS256 access tokens (jose), rotating refresh tokens
 * and API keys. Refresh tokens and API keys are random and stored only as SHA-256 hashes; a refresh token
 * works once, and presenting a used one revokes every token of that login.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Db } from "../db/client.ts";
import type { CustomerRow } from "../db/schema.ts";
import { CatalogError, forbidden, invalid, notFound, unauthorized } from "./errors.ts";
import { roles, type ApiKey, type ApiKeyInput, type CreatedApiKey, type Role, type Tokens } from "./model.ts";
import {
  findApiKeyByHash,
  findCustomer,
  findCustomerByEmail,
  findRefreshToken,
  insertApiKey,
  insertRefreshToken,
  listApiKeys,
  revokeApiKey,
  revokeFamily,
  useRefreshToken,
} from "./repo.ts";
import { apiKeyView, customerView } from "./views.ts";

/** jose is loaded with the first token, not at start-up, where it costs 10-15 ms when run from source. */
const jose = () => import("jose");

/** An authenticated caller. `id` scopes its rate limit and idempotency keys. */
export interface Principal {
  id: string;
  role: Role;
  /** The customer a person is, or a customer API key acts for. */
  customerId?: string;
}

export interface Credentials {
  authorization?: string | null;
  apiKey?: string | null;
}

const algorithm = "HS256";
const issuer = "platform";
const audience = "platform-catalog-v2";

export const sha256 = (value: string) => createHash("sha256").update(value).digest("hex");
const secret = (prefix: string) => `${prefix}_${randomBytes(32).toString("base64url")}`;

export const hashPassword = (password: string) => Bun.password.hash(password, "argon2id");
// Verified against when the email is unknown, so a wrong email costs as long as a wrong password.
// Made on the first login, not at start-up: an argon2id hash takes tens of milliseconds.
let decoyHash: Promise<string> | undefined;

/** Reads the HS256 key, creating a random one (readable by the owner only) the first time. */
export function loadSigningKey(config: Config): Uint8Array {
  const file = config.catalog.jwt_key_file || join(config.data_dir, "catalog-jwt.key");
  if (!existsSync(file)) {
    try {
      writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  const key = Buffer.from(readFileSync(file, "utf8").trim(), "base64url");
  if (key.length < 32) throw new Error(`JWT signing key in ${file} is shorter than 32 bytes`);
  return new Uint8Array(key);
}

/** Throws UNAUTHORIZED without a principal, FORBIDDEN when its role is not among `allowed`. */
export function requireRole(principal: Principal | undefined, ...allowed: Role[]): Principal {
  if (!principal) throw unauthorized();
  if (!allowed.includes(principal.role)) throw forbidden(`This needs the ${allowed.join(" or ")} role`);
  return principal;
}

/** How many verified access tokens are remembered; past it, the one remembered longest is forgotten. */
const keptTokens = 10_000;

export class AuthService {
  readonly #db: Db;
  readonly #key: Uint8Array;
  readonly #accessSeconds: number;
  readonly #refreshSeconds: number;
  /**
   * Access tokens already verified, with whom they name and when they expire. A token's claims never change,
   * so remembering them is the same as verifying again (an HMAC and a key import each time) until it expires.
   */
  readonly #verified = new Map<string, { principal: Principal; expiresAt: number }>();

  constructor(db: Db, key: Uint8Array, { access_token_seconds, refresh_token_seconds }: Config["catalog"]) {
    this.#db = db;
    this.#key = key;
    this.#accessSeconds = access_token_seconds;
    this.#refreshSeconds = refresh_token_seconds;
  }

  async login(email: string, password: string): Promise<Tokens> {
    const customer = await findCustomerByEmail(this.#db, email.trim().toLowerCase());
    const ok = await Bun.password.verify(password, customer?.passwordHash ?? (await (decoyHash ??= hashPassword(randomUUID()))));
    if (!customer || !ok) throw unauthorized("Invalid email or password");
    return this.#issue(customer, randomUUID());
  }

  /** Trades a refresh token for a new pair. A token works once; a second use revokes its whole login. */
  async refresh(token: string): Promise<Tokens> {
    const now = new Date();
    const outcome = await this.#db.transaction(async (tx) => {
      const stored = await findRefreshToken(tx, sha256(token));
      if (!stored || stored.revokedAt) return { refused: "Refresh token is not valid" } as const;
      if (stored.usedAt || !(await useRefreshToken(tx, stored.id, now))) {
        await revokeFamily(tx, stored.familyId, now);
        return { refused: "Refresh token was already used; every token of this login is now revoked" } as const;
      }
      if (stored.expiresAt <= now) return { refused: "Refresh token has expired" } as const;
      const customer = await findCustomer(tx, stored.customerId);
      return customer ? { customer, familyId: stored.familyId } : ({ refused: "Refresh token is not valid" } as const);
    });
    if ("refused" in outcome) throw unauthorized(outcome.refused);
    return this.#issue(outcome.customer, outcome.familyId);
  }

  /** Revokes the login the refresh token belongs to. */
  async logout(token: string): Promise<void> {
    const stored = await findRefreshToken(this.#db, sha256(token));
    if (!stored || stored.revokedAt) throw unauthorized("Refresh token is not valid");
    await revokeFamily(this.#db, stored.familyId, new Date());
  }

  /** The caller, or undefined when no credential was sent. A credential that does not verify is refused. */
  async authenticate({ authorization, apiKey }: Credentials): Promise<Principal | undefined> {
    if (apiKey) {
      const key = await findApiKeyByHash(this.#db, sha256(apiKey));
      if (!key) throw unauthorized("API key is not valid");
      return { id: `key:${key.id}`, role: key.role, customerId: key.customerId ?? undefined };
    }
    if (!authorization) return undefined;
    const [scheme, token] = authorization.split(" ");
    if (scheme?.toLowerCase() !== "bearer" || !token) throw unauthorized("Authorization must be 'Bearer <token>'");
    const known = this.#verified.get(token);
    if (known && known.expiresAt > Date.now()) return known.principal;
    const { errors: joseErrors, jwtVerify } = await jose();
    try {
      const { payload } = await jwtVerify(token, this.#key, { algorithms: [algorithm], issuer, audience, requiredClaims: ["exp", "sub"] });
      const role = roles.find((r) => r === payload.role);
      if (!role) throw unauthorized("Access token carries no valid role", { invalidToken: true });
      const principal: Principal = { id: `customer:${payload.sub}`, role, customerId: payload.sub! };
      this.#verified.delete(token);
      if (this.#verified.size >= keptTokens) this.#verified.delete(this.#verified.keys().next().value!);
      this.#verified.set(token, { principal, expiresAt: payload.exp! * 1000 });
      return principal;
    } catch (error) {
      if (error instanceof CatalogError) throw error;
      const expired = error instanceof joseErrors.JWTExpired;
      throw unauthorized(expired ? "Access token has expired; refresh it" : "Access token is not valid", { invalidToken: true });
    }
  }

  async createApiKey(principal: Principal | undefined, input: ApiKeyInput): Promise<CreatedApiKey> {
    const admin = requireRole(principal, "admin");
    if (input.role === "customer" && !input.customerId)
      throw invalid([{ field: "customerId", message: "is required for a customer key" }]);
    if (input.role === "admin" && input.customerId)
      throw invalid([{ field: "customerId", message: "only a customer key acts for a customer" }]);
    if (input.customerId && !(await findCustomer(this.#db, input.customerId)))
      throw invalid([{ field: "customerId", message: "no such customer" }]);
    const key = secret("pk");
    const row = {
      id: randomUUID(),
      name: input.name,
      keyHash: sha256(key),
      role: input.role,
      customerId: input.customerId ?? null,
      createdBy: admin.id,
      createdAt: new Date(),
      revokedAt: null,
    };
    await insertApiKey(this.#db, row);
    return { ...apiKeyView(row), key };
  }

  async listApiKeys(principal: Principal | undefined): Promise<ApiKey[]> {
    requireRole(principal, "admin");
    return (await listApiKeys(this.#db)).map(apiKeyView);
  }

  async revokeApiKey(principal: Principal | undefined, id: string): Promise<void> {
    requireRole(principal, "admin");
    if (!(await revokeApiKey(this.#db, id, new Date()))) throw notFound("API key", id);
  }

  async #issue(customer: CustomerRow, familyId: string): Promise<Tokens> {
    const now = Date.now();
    const { SignJWT } = await jose();
    const accessToken = await new SignJWT({ role: customer.role })
      .setProtectedHeader({ alg: algorithm, typ: "JWT" })
      .setSubject(customer.id)
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor(now / 1000) + this.#accessSeconds)
      .setJti(randomUUID())
      .sign(this.#key);
    const refreshToken = secret("rt");
    await insertRefreshToken(this.#db, {
      id: randomUUID(),
      familyId,
      customerId: customer.id,
      tokenHash: sha256(refreshToken),
      expiresAt: new Date(now + this.#refreshSeconds * 1000),
      usedAt: null,
      revokedAt: null,
      createdAt: new Date(now),
    });
    return {
      tokenType: "Bearer",
      accessToken,
      expiresIn: this.#accessSeconds,
      refreshToken,
      refreshExpiresIn: this.#refreshSeconds,
      customer: customerView(customer),
    };
  }
}
