import { afterAll, beforeAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { tempDir } from "../support/temp.ts";
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

/** Redocly CLI's own `lint`, run by this Bun on a file, offline; its JSON report. */
async function redoclyLint(file: string) {
  const cli = Bun.resolveSync("@redocly/cli/bin/cli.js", import.meta.dir);
  const lint = Bun.spawn([process.execPath, cli, "lint", file, "--format=json"], {
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(lint.stdout).text(), new Response(lint.stderr).text(), lint.exited]);
  try {
    return JSON.parse(out) as { totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; message: string }[] };
  } catch {
    throw new Error(`redocly lint printed no report: ${err}`);
  }
}

test("the document is valid: swagger-parser validates it and redocly lint finds no error, with reads public or not", async () => {
  const dir = tempDir();
  const storefront = await openShop({ PLATFORM_CATALOG__PUBLIC_READS: "true" });
  try {
    for (const [name, served] of [["default", shop], ["public reads", storefront]] as const) {
      const { body: spec } = await served.json("GET", "/openapi.json");
      await SwaggerParser.validate(structuredClone(spec));
      const file = join(dir.path, `${name.replace(" ", "-")}.json`);
      writeFileSync(file, JSON.stringify(spec));
      const report = await redoclyLint(file);
      const errors = report.problems.filter((p) => p.severity === "error");
      expect(errors, name).toEqual([]);
    }
  } finally {
    await storefront.stop();
    dir.remove();
  }
}, 30_000);

test("the document says what every answer carries: 401, 429, 500 (and 400, 413 with a body), rate-limit headers, ETags", async () => {
  const { body: spec } = await shop.json("GET", "/openapi.json");
  expect(spec.servers).toEqual([{ url: "/", description: expect.any(String) }]);
  for (const [path, operations] of Object.entries(spec.paths as Record<string, Record<string, any>>)) {
    for (const [method, operation] of Object.entries(operations)) {
      const where = `${method} ${path}`;
      const statuses = Object.keys(operation.responses);
      expect(statuses, where).toEqual(expect.arrayContaining(["401", "429", "500", ...(operation.requestBody ? ["400", "413"] : [])]));
      expect(operation.security, where).toBeDefined();
      for (const [status, response] of Object.entries(operation.responses as Record<string, any>)) {
        expect(Object.keys(response.headers), `${where} ${status}`).toEqual(expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"]));
        if (status === "204") expect(response.content, where).toBeUndefined();
      }
      expect(Object.keys(operation.responses["429"].headers)).toContain("Retry-After");
      expect(Object.keys(operation.responses["401"].headers)).toContain("WWW-Authenticate");
      if (method === "get") {
        expect(Object.keys(operation.responses["200"].headers), where).toContain("ETag");
        expect(operation.responses["304"], where).toBeDefined();
      }
      for (const parameter of operation.parameters ?? []) {
        if (parameter.schema?.default !== undefined) expect(parameter.required, `${where} ${parameter.name}`).toBe(false);
        // Plain types: no union of text and number for a number.
        expect(parameter.schema?.anyOf?.some((s: { type?: string }) => s.type === "string") && parameter.schema?.anyOf?.some((s: { type?: string }) => s.type !== "string"), `${where} ${parameter.name}`).toBeFalsy();
      }
    }
  }
  const list = spec.paths["/v2/products"].get.parameters;
  for (const name of ["page", "limit"]) expect(list.find((p: { name: string }) => p.name === name).schema.type).toBe("integer");
  expect(spec.paths["/v2/auth/login"].post.security).toContainEqual({});
});
