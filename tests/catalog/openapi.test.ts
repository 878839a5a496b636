import { afterAll, beforeAll, expect, test } from "bun:test";
import { openShop, type Shop } from "./support.ts";

let shop: Shop;
beforeAll(async () => {
  shop = await openShop();
});
afterAll(() => shop.stop());

test("GET /v2/openapi.json describes the routes from their schemas: version 2.0.0, both security schemes", async () => {
  const { status, body: spec } = await shop.json("GET", "/openapi.json");
  expect(status).toBe(200);
  expect(spec.openapi).toMatch(/^3\./);
  expect(spec.info.version).toBe("2.0.0");
  expect(spec.components.securitySchemes).toMatchObject({
    bearerAuth: { type: "http", scheme: "bearer" },
    apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
  });
  expect(Object.keys(spec.paths)).toEqual(
    expect.arrayContaining(["/v2/products", "/v2/products/{productId}", "/v2/orders", "/v2/orders/{orderId}/status", "/v2/customers", "/v2/auth/login"]),
  );
  expect(Object.keys(spec.paths).every((p) => p.startsWith("/v2/"))).toBe(true);
  const create = spec.paths["/v2/products"].post;
  expect(create.security).toEqual([{ bearerAuth: [] }, { apiKey: [] }]);
  const schema = create.requestBody.content["application/json"].schema;
  expect(schema.properties.sku.pattern).toBe("^[A-Z0-9-]+$");
  expect(schema.required.sort()).toEqual(["name", "price", "sku"]);
  const list = spec.paths["/v2/products"].get.parameters.map((p: { name: string }) => p.name);
  expect(list).toEqual(expect.arrayContaining(["page", "limit", "category", "search", "minPrice", "maxPrice", "sort"]));
});

test("the docs page and its script and style are served by the platform itself", async () => {
  const page = await shop.call("GET", "/docs");
  expect(page.headers.get("content-type")).toContain("text/html");
  const html = await page.text();
  const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
  expect(assets.length).toBeGreaterThanOrEqual(2);
  for (const asset of assets) {
    expect(asset).toStartWith("/v2/");
    const res = await fetch(new URL(asset, shop.base));
    expect(res.status).toBe(200);
    expect((await res.text()).length).toBeGreaterThan(10_000);
  }
  expect(html).toContain("/v2/openapi.json");
});
