/**
 * The `/v2` REST surface: routes, their schemas, credentials and rate limits, and the catalog's wire errors.
 * Every rule lives in the services; this file only reads the request and shapes the reply.
 */
import { Elysia, status, t } from "elysia";
import type { TObject } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { AuthService, Principal } from "./auth.ts";
import { CatalogError, describe, invalid, notFound, rateLimited, type FieldIssue } from "./errors.ts";
import {
  ApiKey,
  ApiKeyInput,
  ApiKeyParams,
  CreatedApiKey,
  Customer,
  CustomerInput,
  CustomerParams,
  CustomerPatch,
  CustomerQuery,
  ErrorBody,
  IdempotencyHeaders,
  Login,
  Order,
  OrderInput,
  OrderParams,
  OrderQuery,
  Page,
  Product,
  ProductInput,
  ProductParams,
  ProductPatch,
  ProductQuery,
  RefreshInput,
  StatusChange,
  Tokens,
} from "./model.ts";
import { jsonReply } from "./conditional.ts";
import { CorsPolicy } from "./cors.ts";
import { apiDocs } from "./openapi.ts";
import type { RateLimiter } from "./rate-limit.ts";
import type { CatalogService } from "./service.ts";

export interface CatalogHttpOptions {
  catalog: CatalogService;
  auth: AuthService;
  limiter: RateLimiter;
  limits: { authenticated: number; anonymous: number };
  /** Product reads open to anyone: the document then says so. */
  publicReads: boolean;
  /** Origins whose browser pages may call (catalog.cors_origins). */
  corsOrigins: readonly string[];
}

// Either scheme is accepted on each secured route; on the others a credential may be sent (it is checked and
// counted) but none is needed.
const security: Record<string, string[]>[] = [{ bearerAuth: [] }, { apiKey: [] }];
const secured = { security };
const open = { security: [{}, ...security] };
const errors = (...codes: number[]) => Object.fromEntries(codes.map((code) => [code, ErrorBody]));

const plainDecimal = { integer: /^\d+$/, number: /^\d+(\.\d+)?$/ };
/**
 * A list route's query schema, and the hook that reads its numbers before validation: from plain decimal text
 * only ("0x10", "1e2", " 3" and "+3" are refused), each checked against its own schema so that a failure names
 * its parameter. Everything else in a query is text.
 */
const listQuery = <S extends TObject>(schema: S) => ({
  query: schema,
  transform({ query, request }: { query: Record<string, unknown>; request: Request }) {
    const issues: FieldIssue[] = [];
    // A parameter given twice is refused, not read as one of its values.
    const given = new URL(request.url).searchParams;
    for (const field of new Set(given.keys())) if (given.getAll(field).length > 1) issues.push({ field, message: "is given more than once" });
    for (const [field, text] of Object.entries(query)) {
      if (issues.some((issue) => issue.field === field)) continue;
      const rule = schema.properties[field];
      if (typeof text !== "string" || (rule?.type !== "integer" && rule?.type !== "number")) continue;
      const value = plainDecimal[rule.type as "integer" | "number"].test(text) ? Number(text) : Number.NaN;
      if (Value.Check(rule, value)) query[field] = value;
      else issues.push({ field, message: `${describe(rule)}, written in plain decimal` });
    }
    if (issues.length) throw invalid(issues);
  },
});

/** Bodies are JSON, by their Content-Type (`application/json`, with or without parameters such as a charset). */
const json = /^application\/json\s*(;|$)/;

/** Whether a request is for /v2, read from its URL without parsing it: this is asked of every request. */
function onCatalogPath(url: string): boolean {
  const path = url.indexOf("/", url.indexOf("//") + 2);
  const next = url[path + 3];
  return url.startsWith("/v2", path) && (next === undefined || next === "/" || next === "?");
}

export const catalogHttp = ({ catalog, auth, limiter, limits, publicReads, corsOrigins }: CatalogHttpOptions) => {
  const reads = publicReads ? open : secured;
  const cors = new CorsPolicy(corsOrigins);
  /** Who each admitted request is, by its context's `set` (the one object every stage of a request shares). */
  const principals = new WeakMap<object, Principal | undefined>();
  const plugin = new Elysia({ name: "catalog.http", prefix: "/v2" })
    // Before anything reads the body: every /v2 request is counted and carries the rate-limit headers, including
    // one whose body turns out malformed or too large.
    .onRequest(async ({ request, server, set }) => {
      if (!onCatalogPath(request.url)) return;
      const origin = request.headers.get("origin");
      Object.assign(set.headers, cors.headers(origin));
      // A preflight carries no credential and asks nothing of the API: it is answered here, and not counted.
      if (request.method === "OPTIONS" && request.headers.has("access-control-request-method")) return cors.preflight(origin);
      let principal: Principal | undefined;
      let refusal: CatalogError | undefined;
      try {
        principal = await auth.authenticate({ authorization: request.headers.get("authorization"), apiKey: request.headers.get("x-api-key") });
      } catch (error) {
        if (!(error instanceof CatalogError)) throw error;
        refusal = error;
      }
      const key = principal?.id ?? `ip:${server?.requestIP(request)?.address ?? "unknown"}`;
      const decision = await limiter.hit(key, principal ? limits.authenticated : limits.anonymous);
      set.headers["x-ratelimit-limit"] = String(decision.limit);
      set.headers["x-ratelimit-remaining"] = String(decision.remaining);
      set.headers["x-ratelimit-reset"] = String(decision.reset);
      if (!decision.allowed) throw rateLimited(decision.retryAfter);
      if (refusal) throw refusal;
      principals.set(set, principal);
    })
    .derive({ as: "scoped" }, ({ set }) => ({ principal: principals.get(set) }))
    // A body is a JSON object: text, a form, an array or a bare value is refused as such, not field by field.
    .onTransform({ as: "scoped" }, ({ request, body }) => {
      if (body === undefined) return;
      if (!json.test(request.headers.get("content-type") ?? ""))
        throw invalid([{ field: "body", message: "must be JSON, sent with Content-Type: application/json" }]);
      if (body === null || typeof body !== "object" || Array.isArray(body)) throw invalid([{ field: "body", message: "must be a JSON object" }]);
    })
    // Every read is JSON with an ETag; a client whose copy is current gets 304 and no body.
    .onAfterHandle({ as: "scoped" }, ({ request, response }) => {
      if (request.method === "GET" && response !== null && typeof response === "object" && !(response instanceof Response))
        return jsonReply(response, request.headers.get("if-none-match"));
    })
    .use(apiDocs())

    // --- auth ---
    .post("/auth/login", ({ body }) => auth.login(body.email, body.password), {
      body: Login,
      response: { 200: Tokens, ...errors(400, 401, 429) },
      detail: { tags: ["auth"], summary: "Sign in with email and password", ...open },
    })
    .post("/auth/refresh", ({ body }) => auth.refresh(body.refreshToken), {
      body: RefreshInput,
      response: { 200: Tokens, ...errors(400, 401, 429) },
      detail: { tags: ["auth"], summary: "Trade a refresh token for a new token pair (the old one stops working)", ...open },
    })
    .post(
      "/auth/logout",
      async ({ body, set }) => {
        await auth.logout(body.refreshToken);
        set.status = 204;
      },
      { body: RefreshInput, response: { 204: t.Void(), ...errors(400, 401, 429) }, detail: { tags: ["auth"], summary: "Revoke a login", ...open } },
    )
    .post("/api-keys", async ({ principal, body }) => status(201, await auth.createApiKey(principal, body)), {
      body: ApiKeyInput,
      response: { 201: CreatedApiKey, ...errors(400, 401, 403, 429) },
      detail: { tags: ["auth"], summary: "Create an API key (admin)", ...secured },
    })
    .get("/api-keys", ({ principal }) => auth.listApiKeys(principal), {
      response: { 200: t.Array(ApiKey), ...errors(401, 403, 429) },
      detail: { tags: ["auth"], summary: "List active API keys (admin)", ...secured },
    })
    .delete(
      "/api-keys/:keyId",
      async ({ principal, params, set }) => {
        await auth.revokeApiKey(principal, params.keyId);
        set.status = 204;
      },
      { params: ApiKeyParams, response: { 204: t.Void(), ...errors(400, 401, 403, 404, 429) }, detail: { tags: ["auth"], summary: "Revoke an API key (admin)", ...secured } },
    )

    // --- products ---
    .get("/products", ({ principal, query }) => catalog.listProducts(principal, query), {
      ...listQuery(ProductQuery),
      response: { 200: Page(Product), ...errors(400, 401, 403, 429) },
      detail: { tags: ["products"], summary: "List products, newest first, with filters", ...reads },
    })
    .post("/products", async ({ principal, body }) => status(201, await catalog.createProduct(principal, body)), {
      body: ProductInput,
      response: { 201: Product, ...errors(400, 401, 403, 409, 429) },
      detail: { tags: ["products"], summary: "Create a product (admin)", ...secured },
    })
    .get("/products/:productId", ({ principal, params }) => catalog.getProduct(principal, params.productId), {
      params: ProductParams,
      response: { 200: Product, ...errors(400, 401, 403, 404, 429) },
      detail: { tags: ["products"], summary: "Get a product", ...reads },
    })
    .patch("/products/:productId", ({ principal, params, body }) => catalog.updateProduct(principal, params.productId, body), {
      params: ProductParams,
      body: ProductPatch,
      response: { 200: Product, ...errors(400, 401, 403, 404, 409, 429) },
      detail: { tags: ["products"], summary: "Change a product (admin)", ...secured },
    })
    .delete(
      "/products/:productId",
      async ({ principal, params, set }) => {
        await catalog.deleteProduct(principal, params.productId);
        set.status = 204;
      },
      { params: ProductParams, response: { 204: t.Void(), ...errors(400, 401, 403, 404, 429) }, detail: { tags: ["products"], summary: "Delete a product (admin)", ...secured } },
    )

    // --- customers ---
    .post("/customers", async ({ principal, body }) => status(201, await catalog.createCustomer(principal, body)), {
      body: CustomerInput,
      response: { 201: Customer, ...errors(400, 401, 403, 409, 429) },
      detail: { tags: ["customers"], summary: "Sign up (an admin may also set the role)", ...open },
    })
    .get("/customers", ({ principal, query }) => catalog.listCustomers(principal, query), {
      ...listQuery(CustomerQuery),
      response: { 200: Page(Customer), ...errors(400, 401, 403, 429) },
      detail: { tags: ["customers"], summary: "List customers (admin)", ...secured },
    })
    .get("/customers/:customerId", ({ principal, params }) => catalog.getCustomer(principal, params.customerId), {
      params: CustomerParams,
      response: { 200: Customer, ...errors(400, 401, 403, 404, 429) },
      detail: { tags: ["customers"], summary: "Get a customer (admin, or the customer themselves)", ...secured },
    })
    .patch("/customers/:customerId", ({ principal, params, body }) => catalog.updateCustomer(principal, params.customerId, body), {
      params: CustomerParams,
      body: CustomerPatch,
      response: { 200: Customer, ...errors(400, 401, 403, 404, 409, 429) },
      detail: { tags: ["customers"], summary: "Change a customer (admin, or the customer themselves)", ...secured },
    })

    // --- orders ---
    .post(
      "/orders",
      async ({ principal, body, headers, set }) => {
        const { order, replayed } = await catalog.placeOrder(principal, body, headers["idempotency-key"]);
        if (replayed) set.headers["idempotent-replayed"] = "true";
        return status(201, order);
      },
      {
        body: OrderInput,
        headers: IdempotencyHeaders,
        response: { 201: Order, ...errors(400, 401, 403, 409, 429) },
        detail: { tags: ["orders"], summary: "Place an order; stock is reserved with it, atomically", ...secured },
      },
    )
    .get("/orders", ({ principal, query }) => catalog.listOrders(principal, query), {
      ...listQuery(OrderQuery),
      response: { 200: Page(Order), ...errors(400, 401, 403, 429) },
      detail: { tags: ["orders"], summary: "List orders (a customer sees only their own)", ...secured },
    })
    .get("/orders/:orderId", ({ principal, params }) => catalog.getOrder(principal, params.orderId), {
      params: OrderParams,
      response: { 200: Order, ...errors(400, 401, 403, 404, 429) },
      detail: { tags: ["orders"], summary: "Get an order", ...secured },
    })
    .patch("/orders/:orderId/status", ({ principal, params, body }) => catalog.changeOrderStatus(principal, params.orderId, body.status), {
      params: OrderParams,
      body: StatusChange,
      response: { 200: Order, ...errors(400, 401, 403, 404, 409, 429) },
      detail: {
        tags: ["orders"],
        summary: "Move an order: processing, shipped, delivered (admin) or cancelled (admin or its customer)",
        ...secured,
      },
    })
    .all(
      "/*",
      ({ request, set }) => {
        const path = new URL(request.url).pathname;
        const allowed = methodsFor(path);
        if (!allowed.length) throw notFound("Route", `${request.method} ${path}`);
        set.headers.allow = allowed.join(", ");
        throw new CatalogError("METHOD_NOT_ALLOWED", `${path} answers ${allowed.join(", ")}, not ${request.method}`, { allowed });
      },
      { detail: { hide: true } },
    );
  /** The methods this API answers at `path` (GET with HEAD), read from its routes once they are all declared. */
  let routes: { method: string; pattern: RegExp }[] | undefined;
  const methodsFor = (path: string) => {
    routes ??= plugin.routes
      .filter((route) => route.method !== "ALL")
      .map(({ method, path: declared }) => ({ method, pattern: new RegExp(`^${declared.replace(/[.]/g, "\\.").replace(/:[^/]+/g, "[^/]+")}$`) }));
    const methods = new Set(routes.filter(({ pattern }) => pattern.test(path)).map((route) => route.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods];
  };
  return plugin;
};
