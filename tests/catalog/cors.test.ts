import { afterAll, beforeAll, expect, test } from "bun:test";
import { openShop, productInput, type Shop } from "./support.ts";

let shop: Shop;
beforeAll(async () => {
  shop = await openShop({ PLATFORM_CATALOG__CORS_ORIGINS: "https://shop.example, http://localhost:5173", PLATFORM_CATALOG__RATE_LIMIT_ANONYMOUS: "20" });
});
afterAll(() => shop.stop());

const preflight = (origin: string, method = "POST", headers = "authorization, content-type") =>
  shop.call("OPTIONS", "/products", { headers: { origin, "access-control-request-method": method, "access-control-request-headers": headers } });

test("a listed origin's preflight is answered 204 with what it may send, without a credential and without being counted", async () => {
  const before = Number((await shop.call("GET", "/nowhere")).headers.get("x-ratelimit-remaining"));
  const res = await preflight("https://shop.example");
  expect(res.status).toBe(204);
  expect(res.headers.get("access-control-allow-origin")).toBe("https://shop.example");
  expect(res.headers.get("access-control-allow-methods")).toContain("PATCH");
  const allowed = res.headers.get("access-control-allow-headers")!.toLowerCase();
  for (const header of ["authorization", "content-type", "x-api-key", "idempotency-key", "if-none-match"]) expect(allowed).toContain(header);
  expect(Number(res.headers.get("access-control-max-age"))).toBeGreaterThan(0);
  expect(res.headers.get("vary")).toContain("Origin");
  expect(await res.text()).toBe("");
  expect(Number((await shop.call("GET", "/nowhere")).headers.get("x-ratelimit-remaining"))).toBe(before - 1);
});

test("an answer to a listed origin lets its script read the body and the rate-limit and ETag headers", async () => {
  const created = await shop.json("POST", "/products", { body: productInput(), token: shop.admin.token, headers: { origin: "http://localhost:5173" } });
  expect(created.status).toBe(201);
  expect(created.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
  const read = await shop.json("GET", `/products/${created.body.id}`, { token: shop.admin.token, headers: { origin: "https://shop.example" } });
  expect(read.headers.get("access-control-allow-origin")).toBe("https://shop.example");
  const exposed = read.headers.get("access-control-expose-headers")!.toLowerCase();
  for (const header of ["etag", "x-ratelimit-remaining", "retry-after", "www-authenticate"]) expect(exposed).toContain(header);
  // A refusal is readable too, so the page can show why.
  const refused = await shop.call("GET", "/products", { headers: { origin: "https://shop.example" } });
  expect(refused.status).toBe(401);
  expect(refused.headers.get("access-control-allow-origin")).toBe("https://shop.example");
});

test("an origin not listed gets no CORS headers, and its preflight is refused with the reason", async () => {
  const res = await preflight("https://evil.example");
  expect(res.status).toBe(403);
  expect(res.headers.get("access-control-allow-origin")).toBeNull();
  expect(await res.json()).toMatchObject({ code: "FORBIDDEN", message: expect.stringContaining("catalog.cors_origins") });
  const read = await shop.call("GET", "/products", { token: shop.admin.token, headers: { origin: "https://evil.example" } });
  expect(read.status).toBe(200);
  expect(read.headers.get("access-control-allow-origin")).toBeNull();
  expect(read.headers.get("vary")).toContain("Origin");
});

test("with no origins configured, /v2 sends no CORS headers at all", async () => {
  const plain = await openShop();
  try {
    const res = await plain.call("OPTIONS", "/products", { headers: { origin: "https://shop.example", "access-control-request-method": "GET" } });
    expect(res.status).toBe(403);
    const read = await plain.call("GET", "/products", { token: plain.admin.token, headers: { origin: "https://shop.example" } });
    expect(read.headers.get("access-control-allow-origin")).toBeNull();
    expect(read.headers.get("vary")).toBeNull();
  } finally {
    await plain.stop();
  }
});

test('"*" lets any origin call, without naming it back', async () => {
  const open = await openShop({ PLATFORM_CATALOG__CORS_ORIGINS: "*" });
  try {
    const res = await open.call("OPTIONS", "/products", { headers: { origin: "https://anyone.example", "access-control-request-method": "GET" } });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
  } finally {
    await open.stop();
  }
});
