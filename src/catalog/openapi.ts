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

const documentation = {
  openapi: openapiVersion,
  info: {
    title: "Catalog and order API",
    version: apiVersion,
    description: "Products, customers and orders. Errors are `{ code, message, details }`.",
  },
  components: {
    securitySchemes: {
      bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Access token from POST /v2/auth/login" },
      apiKey: { type: "apiKey", in: "header", name: "X-API-Key", description: "Server-to-server key created by an admin" },
    },
  },
};

// Only the /v2 API: the rest of the platform's routes and this plugin's own are left out.
const exclude = { paths: [/^(?!\/v2\/)/, /^\/v2\/docs/, "/v2/openapi.json"] };

export const apiDocs = () => {
  const docs = new Elysia({ name: "catalog.docs" });
  // Built on the first request, when every route is registered; the routes never change after start-up.
  let spec: object | undefined;
  const describe = () => {
    const { paths, components } = toOpenAPISchema(docs, exclude, undefined, undefined, openapiVersion);
    return { ...documentation, paths, components: { ...documentation.components, ...components } };
  };
  return docs
    .get("/openapi.json", () => (spec ??= describe()), { detail: { hide: true } })
    .get("/docs", () => new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } }), { detail: { hide: true } })
    .get("/docs/swagger-ui.css", asset(swaggerCss, "text/css; charset=utf-8"), { detail: { hide: true } })
    .get("/docs/swagger-ui-bundle.js", asset(swaggerBundle, "text/javascript; charset=utf-8"), { detail: { hide: true } });
};
