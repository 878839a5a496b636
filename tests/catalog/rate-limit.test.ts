import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SlidingWindowLimiter } from "../../src/catalog/rate-limit.ts";
import { openShop, type Shop } from "./support.ts";
import { stores, storesForFile } from "../support/stores.ts";
import { parsePrometheus } from "../support/prometheus.ts";

test("the window slides: the previous window's requests count by how much of it still overlaps", () => {
  let now = 0;
  const limiter = new SlidingWindowLimiter(60, () => now);
  for (let i = 0; i < 10; i++) expect(limiter.hit("k", 10).allowed).toBe(true);
  const refused = limiter.hit("k", 10);
  expect(refused).toMatchObject({ allowed: false, remaining: 0 });
  expect(refused.retryAfter).toBeGreaterThan(0);
  // A quarter into the next window, 75% of the previous ten still count: two more fit, not ten.
  now = 75_000;
  expect(limiter.hit("k", 10).allowed).toBe(true);
  expect(limiter.hit("k", 10).allowed).toBe(true);
  expect(limiter.hit("k", 10).allowed).toBe(false);
  // Other keys have their own budget; two windows later everything has slid out.
  expect(limiter.hit("other", 10).allowed).toBe(true);
  now = 180_000;
  expect(limiter.hit("k", 10)).toMatchObject({ allowed: true, remaining: 9 });
});

test("Retry-After points at the moment a request fits again", () => {
  let now = 0;
  const limiter = new SlidingWindowLimiter(100, () => now);
  for (let i = 0; i < 4; i++) limiter.hit("k", 4);
  const { retryAfter } = limiter.hit("k", 4);
  now += retryAfter * 1000;
  expect(limiter.hit("k", 4).allowed).toBe(true);
});

const fixture = storesForFile();

describe.each(stores)("on %s", (kind) => {
  let shop: Shop;
  beforeAll(async () => {
    shop = await openShop({ PLATFORM_CATALOG__RATE_LIMIT_ANONYMOUS: "3", PLATFORM_CATALOG__RATE_LIMIT_AUTHENTICATED: "5", ...(await fixture.fresh(kind)).env });
  });
  afterAll(() => shop.stop());

  test("every /v2 response carries the headers; past the anonymous limit it is 429 with Retry-After", async () => {
    // The shop's own setup signed in the admin anonymously once already.
    const first = await shop.call("GET", "/nowhere");
    expect(first.status).toBe(404);
    expect(first.headers.get("x-ratelimit-limit")).toBe("3");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    expect(Number(first.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
    const second = await shop.call("GET", "/products?page=0");
    expect(second.status).toBe(400);
    expect(second.headers.get("x-ratelimit-remaining")).toBe("0");
    const limited = await shop.call("GET", "/products");
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0");
    expect(await limited.json()).toMatchObject({ code: "RATE_LIMITED" });

    // An authenticated principal has its own, larger budget.
    const admin = await shop.call("GET", "/products", { token: shop.admin.token });
    expect(admin.status).toBe(200);
    expect(admin.headers.get("x-ratelimit-limit")).toBe("5");
    expect(admin.headers.get("x-ratelimit-remaining")).toBe("4");
    // A bad credential does not escape the address's limit.
    expect((await shop.call("GET", "/products", { token: "forged" })).status).toBe(429);
    // Both refusals are counted for /metrics, as a scraper reads them.
    const families = await parsePrometheus(await (await fetch(`${shop.base.replace(/\/v2$/, "")}/metrics`)).text());
    const refusals = families.find((f) => f.name === "platform_rate_limit_refusals")!.samples.find((s) => s.labels.surface === "catalog");
    expect(refusals?.value).toBe(2);
  });
});
