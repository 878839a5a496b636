import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { SignJWT, UnsecuredJWT } from "jose";
import { openShop, productInput, type Shop } from "./support.ts";
import { stores, storesForFile } from "../support/stores.ts";

const fixture = storesForFile();

describe.each(stores)("on %s", (kind) => {
  let shop: Shop;
  let key: Uint8Array;
  beforeAll(async () => {
    shop = await openShop((await fixture.fresh(kind)).env);
    key = new Uint8Array(Buffer.from(readFileSync(join(shop.dataDir, "catalog-jwt.key"), "utf8"), "base64url"));
  });
  afterAll(() => shop.stop());

  const createProduct = (auth: { token?: string; apiKey?: string }) => shop.json("POST", "/products", { body: productInput(), ...auth });
  const sign = (claims: Record<string, unknown>, { secret = key, exp = Math.floor(Date.now() / 1000) + 60, alg = "HS256" } = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg }).setSubject(crypto.randomUUID()).setIssuer("platform").setAudience("platform-catalog-v2").setExpirationTime(exp).sign(secret);

  test("login gives a working access token; a wrong password or unknown email is 401 alike", async () => {
    const casey = await shop.customer();
    expect((await shop.json("GET", `/customers/${casey.id}`, { token: casey.token })).body.email).toBe(casey.email);
    const wrong = await shop.json("POST", "/auth/login", { body: { email: casey.email, password: "not-it-at-all" } });
    const unknown = await shop.json("POST", "/auth/login", { body: { email: "nobody@shop.test", password: "not-it-at-all" } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.body.code).toBe("UNAUTHORIZED");
  });

  test("missing, malformed, forged, expired and alg:none tokens are 401; a customer token on an admin route is 403", async () => {
    const admin = { role: "admin" };
    const tokens = {
      missing: undefined,
      garbage: "not.a.jwt",
      forged: await sign(admin, { secret: new TextEncoder().encode("x".repeat(32)) }),
      expired: await sign(admin, { exp: Math.floor(Date.now() / 1000) - 60 }),
      none: new UnsecuredJWT(admin).setSubject(crypto.randomUUID()).setIssuer("platform").setAudience("platform-catalog-v2").setExpirationTime("1h").encode(),
      wrongAlg: await sign(admin, { alg: "HS512", secret: new Uint8Array(64).fill(7) }),
    };
    for (const [name, token] of Object.entries(tokens)) {
      const res = await createProduct({ token });
      expect(res.status, name).toBe(401);
      expect(res.body.code, name).toBe("UNAUTHORIZED");
    }
    expect((await createProduct({ token: tokens.expired })).body.message).toContain("expired");
    const casey = await shop.customer();
    const forbidden = await createProduct({ token: casey.token });
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.code).toBe("FORBIDDEN");
    expect((await shop.read("/products?limit=1")).body.pagination.total).toBe(0);
  });

  test("product reads need a credential: 401 with a Bearer challenge without one; a customer's token or key is enough", async () => {
    const { body: product } = await createProduct({ token: shop.admin.token });
    for (const path of ["/products", `/products/${product.id}`, "/products?search=lamp&category=home"]) {
      const anonymous = await shop.json("GET", path);
      expect(anonymous.status, path).toBe(401);
      expect(anonymous.body.code).toBe("UNAUTHORIZED");
      expect(anonymous.headers.get("www-authenticate"), path).toBe('Bearer realm="catalog"');
    }
    const forged = await shop.json("GET", `/products/${product.id}`, { token: await sign({ role: "admin" }, { secret: new Uint8Array(32).fill(1) }) });
    expect(forged.status).toBe(401);
    expect(forged.headers.get("www-authenticate")).toStartWith('Bearer realm="catalog", error="invalid_token"');

    const casey = await shop.customer();
    expect((await shop.json("GET", `/products/${product.id}`, { token: casey.token })).body).toEqual(product);
    const key = await shop.json("POST", "/api-keys", { body: { name: "storefront", role: "customer", customerId: casey.id }, token: shop.admin.token });
    expect((await shop.json("GET", "/products?limit=1", { apiKey: key.body.key })).status).toBe(200);
  });

  test("every 401 carries its challenge; refusals and conflicts are answered, not logged as errors", async () => {
    const logged = shop.logged.length;
    const casey = await shop.customer();
    const refusals = [
      await shop.json("POST", "/auth/login", { body: { email: casey.email, password: "wrong-password" } }),
      await shop.json("POST", "/auth/refresh", { body: { refreshToken: "rt_unknown" } }),
      await shop.json("GET", "/orders"),
      await shop.json("GET", "/orders", { apiKey: "pk_unknown" }),
    ];
    for (const res of refusals) {
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toStartWith("Bearer");
    }
    expect((await shop.json("GET", "/customers", { token: casey.token })).status).toBe(403);
    expect((await shop.json("GET", `/orders/${crypto.randomUUID()}`, { token: casey.token })).status).toBe(404);
    expect((await shop.json("POST", "/customers", { body: { email: casey.email, name: "Again", password: "long-enough" } })).status).toBe(409);
    const errors = shop.logged.slice(logged).filter((line) => JSON.parse(line).level === "error");
    expect(errors).toEqual([]);
  });

  test("catalog.public_reads opens product reads to anyone, and the document says so; writes still need an admin", async () => {
    const storefront = await openShop({ PLATFORM_CATALOG__PUBLIC_READS: "true", ...(await fixture.fresh(kind)).env });
    try {
      const { body: product } = await storefront.json("POST", "/products", { body: productInput(), token: storefront.admin.token });
      expect((await storefront.json("GET", `/products/${product.id}`)).body).toEqual(product);
      expect((await storefront.json("GET", "/products")).body.pagination.total).toBe(1);
      expect((await storefront.json("POST", "/products", { body: productInput() })).status).toBe(401);
      const { body: spec } = await storefront.json("GET", "/openapi.json");
      expect(spec.paths["/v2/products"].get.security).toEqual([{}, { bearerAuth: [] }, { apiKey: [] }]);
      expect(spec.paths["/v2/products/{productId}"].get.security).toEqual([{}, { bearerAuth: [] }, { apiKey: [] }]);
      expect(spec.paths["/v2/products"].post.security).toEqual([{ bearerAuth: [] }, { apiKey: [] }]);
    } finally {
      await storefront.stop();
    }
    const { body: spec } = await shop.json("GET", "/openapi.json");
    expect(spec.paths["/v2/products"].get.security).toEqual([{ bearerAuth: [] }, { apiKey: [] }]);
  });

  test("refresh rotates; replaying a used refresh token is refused and revokes the whole login", async () => {
    const casey = await shop.customer();
    const first = await shop.json("POST", "/auth/refresh", { body: { refreshToken: casey.refreshToken } });
    expect(first.status).toBe(200);
    expect(first.body.refreshToken).not.toBe(casey.refreshToken);
    expect((await shop.json("GET", `/customers/${casey.id}`, { token: first.body.accessToken })).status).toBe(200);

    const replay = await shop.json("POST", "/auth/refresh", { body: { refreshToken: casey.refreshToken } });
    expect(replay.status).toBe(401);
    expect(replay.body.message).toContain("already used");
    // The newer token of the same login no longer works either.
    expect((await shop.json("POST", "/auth/refresh", { body: { refreshToken: first.body.refreshToken } })).status).toBe(401);
    expect((await shop.json("POST", "/auth/refresh", { body: { refreshToken: "rt_made_up" } })).status).toBe(401);
  });

  test("logout revokes the refresh token; other logins keep working; tokens are stored only as hashes", async () => {
    const casey = await shop.customer();
    const other = await shop.json("POST", "/auth/login", { body: { email: casey.email, password: casey.password } });
    expect((await shop.call("POST", "/auth/logout", { body: { refreshToken: casey.refreshToken } })).status).toBe(204);
    expect((await shop.json("POST", "/auth/refresh", { body: { refreshToken: casey.refreshToken } })).status).toBe(401);
    expect((await shop.json("POST", "/auth/refresh", { body: { refreshToken: other.body.refreshToken } })).status).toBe(200);
    const stored = await shop.runtime.database.rows<{ token_hash: string }>(sql`SELECT token_hash FROM catalog_refresh_tokens`);
    expect(stored.length).toBeGreaterThan(0);
    expect(stored.some((r) => r.token_hash === other.body.refreshToken)).toBe(false);
    const [hash] = await shop.runtime.database.rows<{ password_hash: string }>(sql`SELECT password_hash FROM catalog_customers WHERE id = ${casey.id}`);
    expect(hash!.password_hash).toStartWith("$argon2id$");
  });

  test("API keys: an admin creates one (shown once, stored hashed); it authenticates until revoked", async () => {
    const casey = await shop.customer();
    expect((await shop.json("POST", "/api-keys", { body: { name: "sync", role: "admin" }, token: casey.token })).status).toBe(403);
    const created = await shop.json("POST", "/api-keys", { body: { name: "warehouse sync", role: "admin" }, token: shop.admin.token });
    expect(created.status).toBe(201);
    expect(created.body.key).toStartWith("pk_");
    const listed = await shop.json("GET", "/api-keys", { token: shop.admin.token });
    expect(listed.body.find((k: { id: string }) => k.id === created.body.id)).not.toHaveProperty("key");
    const rows = await shop.runtime.database.rows<{ key_hash: string }>(sql`SELECT key_hash FROM catalog_api_keys`);
    expect(rows.some((r) => r.key_hash === created.body.key)).toBe(false);

    expect((await createProduct({ apiKey: created.body.key })).status).toBe(201);
    expect((await createProduct({ apiKey: `${created.body.key}x` })).status).toBe(401);
    expect((await shop.call("DELETE", `/api-keys/${created.body.id}`, { token: shop.admin.token })).status).toBe(204);
    expect((await createProduct({ apiKey: created.body.key })).status).toBe(401);

    const customerKey = await shop.json("POST", "/api-keys", { body: { name: "casey app", role: "customer", customerId: casey.id }, token: shop.admin.token });
    expect((await shop.json("GET", `/customers/${casey.id}`, { apiKey: customerKey.body.key })).status).toBe(200);
    expect((await createProduct({ apiKey: customerKey.body.key })).status).toBe(403);
    const noOwner = await shop.json("POST", "/api-keys", { body: { name: "x", role: "customer" }, token: shop.admin.token });
    expect(noOwner.body.details.fields[0].field).toBe("customerId");
  });

  test("customers: open sign-up, unique email, own record only, role changes by an admin only", async () => {
    const casey = await shop.customer();
    const robin = await shop.customer("Robin");
    const duplicate = await shop.json("POST", "/customers", { body: { email: casey.email.toUpperCase(), name: "Again", password: "long-enough" } });
    expect(duplicate.status).toBe(409);
    const selfPromotion = await shop.json("POST", "/customers", { body: { email: "sneaky@shop.test", name: "S", password: "long-enough", role: "admin" } });
    expect(selfPromotion.status).toBe(401);
    expect((await shop.json("POST", "/customers", { body: { email: "bad", name: "S", password: "long-enough" } })).body.details.fields[0].field).toBe("email");
    expect((await shop.json("POST", "/customers", { body: { email: "s@shop.test", name: "S", password: "short" } })).body.details.fields[0].field).toBe("password");

    expect((await shop.json("GET", `/customers/${robin.id}`, { token: casey.token })).status).toBe(403);
    expect((await shop.json("GET", "/customers", { token: casey.token })).status).toBe(403);
    const renamed = await shop.json("PATCH", `/customers/${casey.id}`, { body: { name: "Casey Q" }, token: casey.token });
    expect(renamed.body).toMatchObject({ name: "Casey Q", role: "customer" });
    expect(renamed.body).not.toHaveProperty("passwordHash");
    expect((await shop.json("PATCH", `/customers/${casey.id}`, { body: { role: "admin" }, token: casey.token })).status).toBe(403);
    expect((await shop.json("PATCH", `/customers/${casey.id}`, { body: { role: "admin" }, token: shop.admin.token })).body.role).toBe("admin");
    const all = await shop.json("GET", "/customers?limit=100", { token: shop.admin.token });
    expect(all.body.data.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining([casey.id, robin.id]));
  });
});
