/**
 * Mounted inside the /v2 plugin, so its routes are relative to /v2.
 * `GET /v2/openapi.json`, generated from the route schemas by @elysiajs/openapi's converter, and `GET /v2/docs`, a
 * Swagger UI page whose script and style the platform serves itself (from swagger-ui-dist), so it renders with no
 * network.
 */
// The converter alone, not the package's plugin: the plugin's module bundles zod, valibot and TypeMap, which add
// about 20 ms to a start from source and re-register TypeBox's formats process-wide with slower checks.
import { toOpenAPISchema } from "@elysiajs/openapi/openapi";
import { Elysia } from "elysia";
import { ErrorBody } from "./model.ts";
// As files, not text: the 1.4 MB bundle is read when the docs page asks for it, not held in memory from start-up.
import swaggerBundle from "swagger-ui-dist/swagger-ui-bundle.js" with { type: "file" };
import swaggerCss from "swagger-ui-dist/swagger-ui.css" with { type: "file" };

export const apiVersion = "2.0.0";

const page = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Catalog API v2</title>
  <link rel="stylesheet" href="/v2/docs/swagger-ui.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/v2/docs/swagger-ui-bundle.js"></script>
  <script>window.ui = SwaggerUIBundle({ url: "/v2/openapi.json", dom_id: "#swagger-ui" });</script>
</body>
</html>`;

const asset = (path: string, type: string) => () =>
  new Response(Bun.file(path), { headers: { "content-type": type, "cache-control": "public, max-age=86400" } });

const openapiVersion = "3.1.2";

const integerHeader = (description: string) => ({ description, schema: { type: "integer", minimum: 0 } });
const errorReply = (description: string) => ({ description, content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } });

const documentation = {
  openapi: openapiVersion,
  info: {
    title: "Catalog and order API",
    version: apiVersion,
    description:
      "Products, customers and orders. Errors are `{ code, message, details }`. Every answer carries the caller's rate limit " +
      "(`X-RateLimit-*`); reads carry an `ETag` and answer 304 to a current `If-None-Match`.",
  },
  // Relative: the paths are absolute (/v2/...) on whatever host served this document.
  servers: [{ url: "/", description: "The server that served this document" }],
  components: {
    securitySchemes: {
      bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Access token from POST /v2/auth/login" },
      apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "Server-to-server key created by an admin" },
    },
    headers: {
      "X-RateLimit-Limit": integerHeader("Requests allowed per window to this caller (a customer, an API key, or an address)"),
      "X-RateLimit-Remaining": integerHeader("Requests left in the current window"),
      "X-RateLimit-Reset": integerHeader("Epoch seconds at which the current window ends"),
      "Retry-After": integerHeader("Seconds until a request would be allowed again"),
      ETag: { description: "The entity tag of this representation, for If-None-Match", schema: { type: "string" } },
      "WWW-Authenticate": { description: "The Bearer challenge (RFC 6750)", schema: { type: "string" } },
    },
  },
};

const rateLimitHeaders = Object.fromEntries(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"].map((name) => [name, { $ref: `#/components/headers/${name}` }]));
const header = (name: string) => ({ [name]: { $ref: `#/components/headers/${name}` } });

type Operation = {
  parameters?: { in: string; required?: boolean; schema?: { default?: unknown } }[];
  requestBody?: unknown;
  responses: Record<string, { description: string; content?: unknown; headers?: Record<string, unknown> }>;
};

/**
 * What the converter cannot know from a route's schemas, added to every operation: the answers any request can
 * get (401 for a credential that does not verify, 429, 500, and 400 and 413 where a body is read), the headers
 * every answer carries, conditional reads, and no body on a 204. A parameter with a default is not required.
 */
function finish(method: string, operation: Operation): Operation {
  for (const parameter of operation.parameters ?? []) if (parameter.schema?.default !== undefined) parameter.required = false;
  const { responses } = operation;
  responses["401"] ??= errorReply("A credential was sent and does not verify");
  responses["429"] ??= errorReply("Too many requests");
  responses["500"] ??= errorReply("An internal fault; details.requestId names it in the server's log");
  if (operation.requestBody) {
    responses["400"] ??= errorReply("The body is not valid JSON or breaks a field rule");
    responses["413"] ??= errorReply("The body is larger than the server accepts");
  }
  if (method === "get") {
    operation.parameters = [
      ...(operation.parameters ?? []),
      { name: "If-None-Match", in: "header", required: false, description: "ETags of copies the client has", schema: { type: "string" } } as never,
    ];
    responses["304"] = { description: "The client's copy is current", headers: header("ETag") };
  }
  for (const [status, response] of Object.entries(responses)) {
    if (status === "204") {
      delete response.content;
      response.description = "Done; no content";
    }
    response.headers = {
      ...rateLimitHeaders,
      ...(status === "429" ? header("Retry-After") : {}),
      ...(status === "401" ? header("WWW-Authenticate") : {}),
      ...(method === "get" && status === "200" ? header("ETag") : {}),
      ...response.headers,
    };
  }
  return operation;
}

// Only the /v2 API: the rest of the platform's routes and this plugin's own are left out.
const exclude = { paths: [/^(?!\/v2\/)/, /^\/v2\/docs/, "/v2/openapi.json"] };

export const apiDocs = () => {
  const docs = new Elysia({ name: "catalog.docs" });
  // Built on the first request, when every route is registered; the routes never change after start-up.
  let spec: object | undefined;
  const describe = () => {
    const { paths, components } = toOpenAPISchema(docs, exclude, undefined, undefined, openapiVersion);
    for (const operations of Object.values(paths as Record<string, Record<string, Operation>>))
      for (const [method, operation] of Object.entries(operations)) finish(method, operation);
    return {
      ...documentation,
      paths,
      components: { ...documentation.components, ...components, schemas: { ...components.schemas, Error: ErrorBody } },
    };
  };
  return docs
    .get("/openapi.json", () => (spec ??= describe()), { detail: { hide: true } })
    .get("/docs", () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }), { detail: { hide: true } })
    .get("/docs/swagger-ui.css", asset(swaggerCss, "text/css; charset=utf-8"), { detail: { hide: true } })
    .get("/docs/swagger-ui-bundle.js", asset(swaggerBundle, "text/javascript; charset=utf-8"), { detail: { hide: true } });
};
