/**
 * Composes the one Elysia app: request ids, body limit, JSON errors, /health, MCP over HTTP, and each
 * capability's plugin. Failures are answered in the wire format of the capability whose path they are on
 * (see errors.ts); elsewhere in the runtime's `{ error: { code, message, requestId } }`.
 */
import { randomUUID } from "node:crypto";
import { Elysia } from "elysia";
import { classify, hasResponse, PayloadTooLarge, runtimeBody } from "./errors.ts";
import type { RunningRuntime } from "./runtime.ts";
import { mcpHttp } from "./mcp/http.ts";

const requestIdPattern = /^[\w.:-]{1,128}$/;

export function buildApp(runtime: RunningRuntime) {
  const { config, log, health, mcp, capabilities, metrics } = runtime;
  const bodyLimit = config.server.body_limit;
  const identifier = capabilities.find((c) => c.identify);
  const mcpTransport = mcpHttp(mcp, config.mcp, log, (request) => identifier?.identify?.(request));
  health.register("mcp", () => ({ status: "ok", servers: mcp.names(), sessions: mcpTransport.sessionCounts() }));

  const surfaces = capabilities.flatMap((c) => (c.errors ? [c.errors] : []));
  /** One answer for every failure: the error's own response, else the path owner's rendering, else ours. */
  const fail = (error: unknown, request: Request, set: { status?: unknown; headers: Record<string, unknown> }) => {
    if (hasResponse(error)) return error.toResponse();
    const path = new URL(request.url).pathname;
    const requestId = set.headers["x-request-id"] as string;
    const failure = classify(error, { method: request.method, path, requestId, bodyLimit });
    if (failure.kind === "INTERNAL") log.error("internal error", { requestId, method: request.method, path, error });
    set.status = failure.status;
    const surface = surfaces.find(({ prefix }) => path === prefix || path.startsWith(`${prefix}/`));
    if (surface) return surface.render(failure);
    set.headers["content-type"] = "application/json";
    return runtimeBody(failure);
  };

  // Bun's own body ceiling stays above ours: it would answer 413 with no body, and ours is JSON.
  const app = new Elysia()
    .onRequest(({ request, set }) => {
      const given = request.headers.get("x-request-id");
      set.headers["x-request-id"] = given && requestIdPattern.test(given) ? given : randomUUID();
    })
    // Registered before every capability so that it covers their routes; Elysia runs it first, so it also
    // hands each failure to the capability that owns the path rather than answering over it.
    .onError({ as: "global" }, ({ error, request, set }) => fail(error, request, set))
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
    // Actors commit their changes a turn at a time (see ActorKind.groupCommit), and other writes of that turn go
    // with them: an answer leaves once they are stored. /health, declared above, writes nothing and does not wait.
    // MCP answers on its own stream after this hook has run, so its tool calls wait in the MCP server instead.
    .onAfterHandle({ as: "global" }, async () => {
      if (runtime.actors.uncommitted) await runtime.actors.committed();
    })
    .use(mcpTransport.plugin);

  for (const capability of capabilities) if (capability.http) app.use(capability.http);
  // After the capabilities' own request hooks, so that a refused body carries what a capability adds to every
  // answer on its paths (the catalog's rate-limit headers), whether its length was declared or not.
  app.onRequest((ctx) => {
    const { request, set } = ctx;
    const length = request.headers.get("content-length");
    if (Number(length) > bodyLimit) return fail(new PayloadTooLarge(), request, set);
    // A body without a declared length is counted as it streams in; whoever reads it past the limit fails.
    if (length === null && request.body) ctx.request = limitBody(request, bodyLimit);
  });
  return { app, closeMcp: mcpTransport.close };
}

function limitBody(request: Request, limit: number): Request {
  let size = 0;
  const counted = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      size += chunk.byteLength;
      if (size > limit) controller.error(new PayloadTooLarge(`body over ${limit} bytes`));
      else controller.enqueue(chunk);
    },
  });
  return new Request(request, { body: request.body!.pipeThrough(counted), duplex: "half" } as RequestInit);
}
