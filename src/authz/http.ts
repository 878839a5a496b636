/**
 * The OPA-compatible REST API over the embedded engine, for its own listener: data (GET/POST to evaluate,
 * PUT/PATCH/DELETE to write the base document), policies, queries, the default decision (`POST /`),
 * status, config and health. Answers and errors take OPA's shapes and codes, so OPA clients (our own `opa`
 * provider among them) work unchanged; docs/rego.md lists what differs.
 */
import { Elysia } from "elysia";
import type { Logger } from "../log.ts";
import { RegoError } from "../rego/engine.ts";
import { parseJSON } from "../rego/values/json.ts";
import { checkJsonDepth } from "../strict-json.ts";
import { RObject, toJS, type Value } from "../rego/values/values.ts";
import { version as platformVersion } from "../version.ts";
import type { Bundles } from "./bundles.ts";
import { patch, put, read, remove } from "./documents.ts";
import { AuthzConfigError, OpaError } from "./errors.ts";
import type { PolicyStore } from "./policies.ts";

export interface OpaApiOptions {
  /** The document `POST /` answers with (OPA's `default_decision`), as a slash path. */
  defaultDecision?: string;
  /** Each decision gets a `decision_id` (OPA adds one when decision logging is on). */
  decisionIds?: boolean;
  /** Bundles the engine is fed from: their state shows in `/health?bundles` and `/v1/status`. */
  bundles?: Bundles;
  /** JSON nested deeper than this is refused (400 invalid_parameter) before it is parsed (server.max_json_depth). */
  maxJsonDepth?: number;
}

type Query = Record<string, string | undefined>;

/** A query flag as OPA reads one: present (`?pretty`) or true (`?pretty=true`). */
const flag = (query: Query, name: string) => name in query && query[name] !== "false";

/** JSON.rawJSON (ES2025, in Bun), missing from TypeScript's lib: a number written as the given text. */
const rawJSON = (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON;

/** JSON text with integers beyond a double written exactly; indented by two when pretty and ending in a newline, as OPA writes it. */
function jsonText(body: unknown, pretty: boolean): string {
  try {
    return `${JSON.stringify(body, undefined, pretty ? 2 : undefined)}\n`;
  } catch (error) {
    // A bigint (an integer beyond a double) refuses plain JSON.stringify: only then the slower replacer.
    if (!(error instanceof TypeError)) throw error;
    return `${JSON.stringify(body, (_, v) => (typeof v === "bigint" ? rawJSON(v.toString()) : v), pretty ? 2 : undefined)}\n`;
  }
}

const respond = (status: number, body: unknown, pretty = false) =>
  new Response(jsonText(body, pretty), { status, headers: { "content-type": "application/json" } });

/** OPA's error body: `{code, message, errors?}`, always indented. */
const errorResponse = (e: OpaError) => respond(e.status, { code: e.code, message: e.message, ...(e.errors ? { errors: e.errors } : {}) }, true);

const regoErrorBody = (error: RegoError) => ({
  code: error.code,
  message: error.detail,
  ...(error.location ? { location: { file: error.location.file, row: error.location.row, col: error.location.col } } : {}),
});

/** An evaluation's error as OPA's 500 answers it. */
const evaluationError = (error: RegoError) =>
  new OpaError(500, "internal_error", "error(s) occurred while evaluating query", [regoErrorBody(error)]);

function parseBody(text: string, what: string, maxDepth: number): Value | undefined {
  if (text.trim() === "") return undefined;
  try {
    checkJsonDepth(text, maxDepth);
    return parseJSON(text);
  } catch (error) {
    throw new OpaError(400, "invalid_parameter", `${what}${error instanceof RegoError ? error.detail : (error as Error).message}`);
  }
}

/** `{"input": ...}` from a data request's body; `missing` when there is no `input` key. */
function inputOf(text: string, maxDepth: number): { input?: Value; missing: boolean } {
  const body = parseBody(text, "body contains malformed input document: ", maxDepth);
  if (body === undefined) return { missing: true };
  if (!(body instanceof RObject)) throw new OpaError(400, "invalid_parameter", "body contains malformed input document: the body must be an object such as {\"input\": {...}}");
  const input = body.get("input");
  return { input, missing: input === undefined };
}

const segments = (path: string) => path.split("/").filter((p) => p !== "").map(decodeURIComponent);

export function opaHttp(store: PolicyStore, log: Logger, options: OpaApiOptions = {}) {
  const { engine } = store;
  const defaultDecision = options.defaultDecision ?? "/system/main";
  const maxDepth = options.maxJsonDepth ?? 64;

  /** A data read: the document at `path` with OPA's optional extras (metrics, explanation, provenance, id). */
  const decide = (path: string, input: Value | undefined, query: Query, extra: Record<string, unknown> = {}) => {
    const started = performance.now();
    let answer: { result?: unknown };
    try {
      answer = engine.evaluate(path, input, { strictBuiltinErrors: flag(query, "strict-builtin-errors") || undefined });
    } catch (error) {
      if (error instanceof RegoError) throw evaluationError(error);
      throw error;
    }
    const body: Record<string, unknown> = { ...answer, ...extra };
    if (options.decisionIds) body.decision_id = crypto.randomUUID();
    if (flag(query, "provenance")) body.provenance = { version: platformVersion, revision: engine.version, bundles: options.bundles?.provenance() };
    if (query.explain !== undefined) body.explanation = []; // no trace notes are kept: an empty explanation, as OPA's without notes
    if (flag(query, "metrics")) {
      const ns = Math.round((performance.now() - started) * 1e6);
      body.metrics = { timer_rego_query_eval_ns: ns, timer_server_handler_ns: ns };
    }
    return respond(200, body, flag(query, "pretty"));
  };

  const readData = (path: string, query: Query) => {
    let input: Value | undefined;
    if (query.input !== undefined) {
      input = parseBody(query.input, "parameter contains malformed input document: ", maxDepth);
    }
    return decide(path, input, query);
  };

  const postData = (path: string, text: string, query: Query) => {
    const { input, missing } = inputOf(text, maxDepth);
    return decide(path, input, query, missing ? { warning: { code: "api_usage_warning", message: "'input' key missing from the request" } } : {});
  };

  const writeData = (change: (doc: RObject) => RObject) => {
    store.writeData(change);
    log.info("data document changed", { policyVersion: engine.version });
    return new Response(null, { status: 204 });
  };

  const runQuery = (text: string | undefined, input: Value | undefined, query: Query) => {
    if (!text) throw new OpaError(400, "invalid_parameter", "missing parameter 'q'");
    let rows: Record<string, Value>[];
    try {
      rows = engine.queryValues(text, { input, strictBuiltinErrors: flag(query, "strict-builtin-errors") || undefined });
    } catch (error) {
      if (error instanceof RegoError && (error.code === "rego_parse_error" || error.code.startsWith("rego_")))
        throw new OpaError(400, "invalid_parameter", `error(s) occurred while ${error.code === "rego_parse_error" ? "parsing" : "compiling"} query`, [regoErrorBody(error)]);
      if (error instanceof RegoError) throw evaluationError(error);
      throw error;
    }
    const body: Record<string, unknown> = rows.length ? { result: rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, toJS(v)]))) } : {};
    return respond(200, body, flag(query, "pretty"));
  };

  const notFound = (id: string) => new OpaError(404, "resource_not_found", `storage_not_found_error: policy id ${JSON.stringify(id)}`);

  return new Elysia({ name: "authz.opa-api" })
    .onError(({ error, code }) => {
      if (error instanceof OpaError) return errorResponse(error);
      if (code === "NOT_FOUND") return errorResponse(new OpaError(404, "resource_not_found", "no such endpoint"));
      log.error("OPA API internal error", { error });
      return errorResponse(new OpaError(500, "internal_error", "internal error"));
    })
    .get("/health", ({ query }) => {
      const bundles = options.bundles;
      if (("bundles" in query || "plugins" in query) && bundles && !bundles.ready())
        return respond(500, { error: "bundles" in query ? "one or more bundles are not activated" : "one or more plugins are not up" });
      return respond(200, {});
    })
    .get("/v1/config", () =>
      respond(200, {
        result: {
          default_authorization_decision: "/system/authz/allow",
          default_decision: defaultDecision,
          labels: { id: engine.version, version: platformVersion },
          ...(options.bundles ? { bundles: options.bundles.config() } : {}),
        },
      }),
    )
    .get("/v1/status", () => {
      // OPA answers this only with its status plugin on, which reports bundle activation: here, bundles.
      if (!options.bundles) throw new OpaError(500, "internal_error", "status plugin not enabled");
      return respond(200, { result: { bundles: options.bundles.status(), labels: { id: engine.version, version: platformVersion } } });
    })
    .post(
      "/",
      ({ body, query }) => {
        const input = parseBody(body as string, "unexpected parse error for input: body contains malformed input document: ", maxDepth);
        let answer: { result?: unknown };
        try {
          answer = engine.evaluate(defaultDecision, input);
        } catch (error) {
          if (error instanceof RegoError) throw evaluationError(error);
          throw error;
        }
        if (!("result" in answer)) throw new OpaError(404, "undefined_document", `document missing: data${defaultDecision.replaceAll("/", ".")}`);
        return respond(200, answer.result, flag(query, "pretty"));
      },
      { parse: "text" },
    )
    .get("/v1/data", ({ query }) => readData("", query))
    .get("/v1/data/*", ({ params, query }) => readData(params["*"], query))
    .post("/v1/data", ({ body, query }) => postData("", body as string, query), { parse: "text" })
    .post("/v1/data/*", ({ params, body, query }) => postData(params["*"], body as string, query), { parse: "text" })
    .put(
      "/v1/data/*",
      ({ params, body }) => {
        const value = parseBody(body as string, "", maxDepth) ?? null;
        return writeData((doc) => put(doc, segments(params["*"]), value));
      },
      { parse: "text" },
    )
    .put(
      "/v1/data",
      ({ body }) => {
        const value = parseBody(body as string, "", maxDepth) ?? null;
        return writeData((doc) => put(doc, [], value));
      },
      { parse: "text" },
    )
    .patch(
      "/v1/data/*",
      ({ params, body }) => {
        const operations = parseBody(body as string, "", maxDepth) ?? null;
        if (!Array.isArray(operations)) throw new OpaError(400, "invalid_parameter", "the body must be a JSON array of patch operations");
        return writeData((doc) => patch(doc, segments(params["*"]), operations));
      },
      { parse: "text" },
    )
    .delete("/v1/data/*", ({ params }) => {
      const path = segments(params["*"]);
      if (read(engine.data(), path) === undefined) throw new OpaError(404, "resource_not_found", "storage_not_found_error: document does not exist");
      return writeData((doc) => remove(doc, path) as RObject);
    })
    .get("/v1/query", ({ query }) => runQuery(query.q, undefined, query))
    .post(
      "/v1/query",
      ({ body, query }) => {
        const request = parseBody(body as string, "body contains malformed query request: ", maxDepth);
        if (!(request instanceof RObject)) throw new OpaError(400, "invalid_parameter", "missing parameter 'query'");
        const text = request.get("query");
        return runQuery(typeof text === "string" ? text : undefined, request.get("input"), query);
      },
      { parse: "text" },
    )
    .get("/v1/policies", ({ query }) => respond(200, { result: store.list().map(({ id, source }) => ({ id, raw: source })) }, flag(query, "pretty")))
    .get("/v1/policies/*", ({ params, query }) => {
      const module = store.get(params["*"]);
      if (!module) throw notFound(params["*"]);
      return respond(200, { result: { id: module.id, raw: module.source } }, flag(query, "pretty"));
    })
    .put(
      "/v1/policies/*",
      ({ params, body }) => {
        const id = params["*"];
        const source = body as string;
        if (source.trim() === "") throw new OpaError(400, "invalid_parameter", `${id}:0: rego_parse_error: empty module`);
        try {
          store.put(id, source);
        } catch (error) {
          if (error instanceof RegoError) throw new OpaError(400, "invalid_parameter", "error(s) occurred while compiling module(s)", [regoErrorBody(error)]);
          if (error instanceof AuthzConfigError) throw new OpaError(400, "invalid_parameter", error.message);
          throw error;
        }
        log.info("policy module stored", { id, policyVersion: engine.version });
        return respond(200, {});
      },
      { parse: "text" },
    )
    .delete("/v1/policies/*", ({ params }) => {
      if (!store.remove(params["*"])) throw notFound(params["*"]);
      log.info("policy module deleted", { id: params["*"], policyVersion: engine.version });
      return respond(200, {});
    });
}

