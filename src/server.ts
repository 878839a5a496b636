/**
 * Composes the one Elysia app: request ids, body limit, JSON errors, /health, MCP over HTTP, and each
 * capability's plugin. Capabilities answer their own errors in their wire format; what they leave unanswered
 * gets the runtime's `{ error: { code, message, requestId } }`.
 */
import { randomUUID } from "node:crypto";
import { Elysia } from "elysia";
import type { RunningRuntime } from "./runtime.ts";
import { mcpHttp } from "./mcp/http.ts";

const requestIdPattern = /^[\w.:-]{1,128}$/;

export function buildApp(runtime: RunningRuntime) {
  const { config, log, health, mcp, capabilities } = runtime;
  const bodyLimit = config.server.body_limit;
  const mcpTransport = mcpHttp(mcp, config.mcp.default_server, log);
  health.register("mcp", () => ({ status: "ok", servers: mcp.names(), sessions: mcpTransport.sessionCounts() }));

  // Bun's own body ceiling stays above ours: it would answer 413 with no body, and ours is JSON.
  const app = new Elysia()
    .onRequest((context) => {
      const { request, set } = context;
      const given = request.headers.get("x-request-id");
      set.headers["x-request-id"] = given && requestIdPattern.test(given) ? given : randomUUID();
      const length = request.headers.get("content-length");
      if (Number(length) > bodyLimit) {
        set.status = 413;
        return errorBody("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${bodyLimit} bytes`, set.headers);
      }
      // A body without a declared length is counted as it streams in; whoever reads it past the limit fails.
      if (length === null && request.body) context.request = limitBody(request, bodyLimit);
    })
    .onError({ as: "global" }, ({ code, error, request, set }) => {
      const requestId = set.headers["x-request-id"] as string | undefined;
      switch (code) {
        case "NOT_FOUND":
          set.status = 404;
          return errorBody("NOT_FOUND", `No route for ${request.method} ${new URL(request.url).pathname}`, set.headers);
        case "PARSE":
          if (error.cause instanceof PayloadTooLarge) break;
          set.status = 400;
          return errorBody("MALFORMED_JSON", "The request body is not valid JSON", set.headers);
        case "VALIDATION":
          set.status = 400;
          return errorBody("VALIDATION_ERROR", error.messageValue?.message ?? "Invalid request", set.headers, {
            path: error.valueError?.path,
          });
      }
      if (error instanceof PayloadTooLarge || (error as Error).cause instanceof PayloadTooLarge) {
        set.status = 413;
        return errorBody("PAYLOAD_TOO_LARGE", `Request body exceeds the limit of ${bodyLimit} bytes`, set.headers);
      }
      log.error("internal error", { requestId, method: request.method, path: new URL(request.url).pathname, error });
      set.status = 500;
      return errorBody("INTERNAL_ERROR", `Internal error; quote request id ${requestId} when reporting it`, set.headers);
    })
    .get("/health", ({ set }) => {
      const report = health.report();
      if (report.status === "down") set.status = 503;
      return report;
    })
    .use(mcpTransport.plugin);

  for (const capability of capabilities) if (capability.http) app.use(capability.http);
  return { app, closeMcp: mcpTransport.close };
}

function errorBody(code: string, message: string, headers: Record<string, unknown>, details?: Record<string, unknown>) {
  headers["content-type"] = "application/json";
  return { error: { code, message, requestId: headers["x-request-id"], ...(details ? { details } : {}) } };
}

class PayloadTooLarge extends Error {
  override name = "PayloadTooLarge";
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
