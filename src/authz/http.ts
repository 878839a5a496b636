/**
 * The OPA-compatible REST API over the embedded engine, for its own listener: `POST|GET /v1/data/<path>`,
 * `PUT|GET|DELETE /v1/policies/<id>`, `GET /v1/policies`, `GET /health`. Answers and errors use OPA's shapes
 * (`{result}`; `{code, message, errors?}`), so OPA clients, including our own `opa` provider, work unchanged.
 */
import { Elysia } from "elysia";
import type { Logger } from "../log.ts";
import { RegoError } from "../rego/engine.ts";
import { version as platformVersion } from "../version.ts";
import { AuthzConfigError } from "./errors.ts";
import type { PolicyStore } from "./policies.ts";

class OpaError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: unknown[],
  ) {
    super(message);
  }
}

const regoErrorBody = (error: RegoError) => ({
  code: error.code,
  message: error.detail,
  ...(error.location ? { location: { file: error.location.file, row: error.location.row, col: error.location.col } } : {}),
});

function parseInput(text: string): unknown {
  if (text.trim() === "") return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new OpaError(400, "invalid_parameter", `body contains malformed input document: ${(error as Error).message}`);
  }
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw new OpaError(400, "invalid_parameter", "body must be a JSON object such as {\"input\": {...}}");
  return (body as { input?: unknown }).input;
}

export function opaHttp(store: PolicyStore, log: Logger) {
  const { engine } = store;
  const evaluate = (path: string, input: unknown, query: Record<string, string | undefined>) => {
    let answer: { result?: unknown };
    try {
      answer = engine.evaluate(path, input);
    } catch (error) {
      if (error instanceof RegoError) throw new OpaError(500, "internal_error", error.message, [regoErrorBody(error)]);
      throw error;
    }
    return "provenance" in query && query.provenance !== "false"
      ? { ...answer, provenance: { version: platformVersion, revision: engine.version } }
      : answer;
  };
  const notFound = (id: string) => new OpaError(404, "resource_not_found", `storage_not_found_error: policy id ${JSON.stringify(id)}`);

  return new Elysia({ name: "authz.opa-api" })
    .onError(({ error, code, set }) => {
      if (error instanceof OpaError) {
        set.status = error.status;
        return { code: error.code, message: error.message, ...(error.errors ? { errors: error.errors } : {}) };
      }
      if (code === "NOT_FOUND") {
        set.status = 404;
        return { code: "resource_not_found", message: "no such endpoint" };
      }
      log.error("OPA API internal error", { error });
      set.status = 500;
      return { code: "internal_error", message: "internal error" };
    })
    .get("/health", () => ({}))
    .post("/v1/data/*", ({ params, body, query }) => evaluate(params["*"], parseInput(body as string), query), { parse: "text" })
    .get("/v1/data/*", ({ params, query }) => evaluate(params["*"], undefined, query))
    .get("/v1/policies", () => ({ result: store.list().map(({ id, source }) => ({ id, raw: source })) }))
    .get("/v1/policies/*", ({ params }) => {
      const module = store.get(params["*"]);
      if (!module) throw notFound(params["*"]);
      return { result: { id: module.id, raw: module.source } };
    })
    .put(
      "/v1/policies/*",
      ({ params, body }) => {
        const id = params["*"];
        try {
          store.put(id, body as string);
        } catch (error) {
          if (error instanceof RegoError)
            throw new OpaError(400, "invalid_parameter", "error(s) occurred while compiling module(s)", [regoErrorBody(error)]);
          if (error instanceof AuthzConfigError) throw new OpaError(400, "invalid_parameter", error.message);
          throw error;
        }
        log.info("policy module stored", { id, policyVersion: engine.version });
        return {};
      },
      { parse: "text" },
    )
    .delete("/v1/policies/*", ({ params }) => {
      if (!store.remove(params["*"])) throw notFound(params["*"]);
      log.info("policy module deleted", { id: params["*"], policyVersion: engine.version });
      return {};
    });
}
