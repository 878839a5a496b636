/**
 * Composes the one Elysia app: request ids, body limit, JSON errors, /health, MCP over HTTP, and each
 * capability's plugin. Failures are answered in the wire format of the capability whose path they are on
 * (see errors.ts); elsewhere in the runtime's `{ error: { code, message, requestId } }`.
 */
import { randomUUID } from "node:crypto";
import { Elysia } from "elysia";
import { classify, hasResponse, PayloadTooLarge, runtimeBody } from "./errors.ts";
import { checkJsonDepth } from "./strict-json.ts";
import type { RunningRuntime } from "./runtime.ts";
import { mcpHttp } from "./mcp/http.ts";

const requestIdPattern = /^[\w.:-]{1,128}$/;

export function buildApp(runtime: RunningRuntime) {
  const { config, log, health, mcp, capabilities, metrics } = runtime;
  const { body_limit: bodyLimit, max_json_depth: maxJsonDepth } = config.server;
  const identifier = capabilities.find((c) => c.identify);
  const mcpTransport = mcpHttp(mcp, config.mcp, log, (request) => identifier?.identify?.(request));
  health.register("mcp", () => ({ status: "ok", servers: mcp.names(), sessions: mcpTransport.sessionCounts() }));

  const surfaces = [mcpTransport.errors, ...capabilities.flatMap((c) => (c.errors ? [c.errors] : []))];
  /** One answer for every failure: the error's own response, else the path owner's rendering, else ours. */
  const fail = (error: unknown, request: Request, set: { status?: unknown; headers: Record<string, unknown> }) => {
    if (hasResponse(error)) return error.toResponse();
    const path = new URL(request.url).pathname;
    const requestId = set.headers["x-request-id"] as string;
    const failure = classify(error, { method: request.method, path, requestId, bodyLimit });
    // Only a fault is an error in the log; a capability's own refusal (a 4xx it threw) is not.
    if (failure.kind === "INTERNAL") log.error("internal error", { requestId, method: request.method, path, error });
    set.status = failure.status;
    const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
    const surface = surfaces.find(({ prefix }) => (typeof prefix === "string" ? under(prefix) : prefix.some(under)));
    if (surface) return surface.render(failure);
    set.headers["content-type"] = "application/json";
    return runtimeBody(failure);
  };

  const started = new WeakMap<Request, number>();
  const access = config.log.access && log.enabled("info") ? log.child({ component: "access" }) : undefined;
  const requests = metrics.counter({ name: "platform_http_requests_total", help: "HTTP requests answered, by route and status", labelNames: ["method", "route", "status"] });
  const latency = metrics.histogram({
    name: "platform_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer, by route",
    labelNames: ["method", "route"],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  metrics.gauge({ name: "platform_mcp_sessions", help: "Open MCP sessions over HTTP, by server", labelNames: ["server"] }, () =>
    Object.entries(mcpTransport.sessionCounts()).map(([server, value]) => ({ labels: { server }, value })),
  );
  const app = new Elysia()
    .onRequest(({ request, set }) => {
      started.set(request, performance.now());
      const given = request.headers.get("x-request-id");
      set.headers["x-request-id"] = given && requestIdPattern.test(given) ? given : randomUUID();
    })
    // Registered before every capability so that it covers their routes; Elysia runs it first, so it also
    // hands each failure to the capability that owns the path rather than answering over it.
    .onError({ as: "global" }, ({ error, request, set }) => fail(error, request, set))
    // Counted, and one line per request: what, which route (never the query string or a body), how it ended, for whom.
    .onAfterResponse({ as: "global" }, ({ request, route, set, response }) => {
      const seconds = (performance.now() - (started.get(request) ?? performance.now())) / 1000;
      const status = response instanceof Response ? response.status : Number(set.status ?? 200);
      const known = route || "(no route)";
      requests.inc({ method: request.method, route: known, status });
      latency.observe({ method: request.method, route: known }, seconds);
      access?.info("request", {
        method: request.method,
        route: known,
        status,
        duration: Math.round(seconds * 10_000) / 10,
        requestId: set.headers["x-request-id"],
        caller: identifier?.identify?.(request),
      });
    })
    .get("/health", ({ set }) => {
      const { status, json } = health.json();
      if (status === "down") set.status = 503;
      set.headers["content-type"] = "application/json;charset=utf-8";
      return json;
    })
    .get("/metrics", async ({ set }) => {
      const { contentType, body } = await metrics.render();
      set.headers["content-type"] = contentType;
      return body;
    })
    // Actors commit their changes in batches after they happen: an answer leaves once the changes made so far are
    // written (a refusal reaches the code that made the change, which answers for it, not every request in flight).
    // /health, declared above, writes nothing and does not wait. MCP answers on its own stream after this hook has
    // run, so its tool calls wait in the MCP server instead.
    .onAfterHandle({ as: "global" }, async () => {
      if (runtime.actors.uncommitted) await runtime.actors.committed().catch(() => {});
    })
    .use(mcpTransport.plugin);

  for (const capability of capabilities) if (capability.http) app.use(capability.http);
  // After the capabilities' own request hooks, so that a refused body carries what a capability adds to every
  // answer on its paths (the catalog's rate-limit headers), whether its length was declared or not.
  // Not async: a request without a body (most of them) passes without a turn of the microtask queue.
  app.onRequest(({ request, set }) => {
    const length = request.headers.get("content-length");
    if (Number(length) > bodyLimit) return fail(new PayloadTooLarge(), request, set);
    // A body of undeclared length is counted as it comes, and a JSON body nested past the limit is refused, on
    // every surface, before anything parses or walks it. Both read a clone: the request itself stays the one
    // the socket delivered, which is how the client's address and its verified identity are known.
    const json = jsonish(request.headers.get("content-type"));
    if (!request.body || (length !== null && !json)) return;
    return bodyRefusal(request, bodyLimit, json ? maxJsonDepth : undefined).then((refused) => refused && fail(refused, request, set));
  });
  return { app, closeMcp: mcpTransport.close };
}

const utf8 = new TextDecoder();

/** JSON by its media type, or a body that names none (JSON-RPC and MCP clients read it as JSON anyway). */
const jsonish = (contentType: string | null) => contentType === null || /^application\/([\w.-]+\+)?json\b/i.test(contentType);

/** Why a request's body (read from a clone) is refused: too large, or JSON nested deeper than `maxDepth`. */
async function bodyRefusal(request: Request, limit: number, maxDepth: number | undefined): Promise<unknown> {
  try {
    const bytes = await readLimited(request.clone() as Request, limit);
    if (maxDepth !== undefined) checkJsonDepth(utf8.decode(bytes), maxDepth);
  } catch (error) {
    return error;
  }
}

/** The whole body, or PayloadTooLarge as soon as it passes `limit` bytes (the rest is then let go unread). */
async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  const reader = request.body!.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    size += read.value.byteLength;
    if (size > limit) {
      // Not awaited: the answer goes out at once, whatever the client is still sending.
      void reader.cancel();
      throw new PayloadTooLarge(`body over ${limit} bytes`);
    }
    chunks.push(read.value);
  }
  return Buffer.concat(chunks);
}
