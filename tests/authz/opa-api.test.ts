import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { opaHttp } from "../../src/authz/http.ts";
import { PolicyStore } from "../../src/authz/policies.ts";
import { opaProvider } from "../../src/authz/provider.ts";
import type { RegoEngine } from "../../src/rego/engine.ts";
import { embedded, enforcer, orderBot, planner, policyEngine, quiet, reporter, td } from "./support.ts";

let engine: RegoEngine;
let app: ReturnType<typeof opaHttp>;
let base = "";

beforeAll(() => {
  engine = policyEngine();
  app = opaHttp(new PolicyStore(engine, { policyPath: "platform/authz", development: false }), quiet).listen({ hostname: "127.0.0.1", port: 0 });
  base = `http://127.0.0.1:${app.server!.port}`;
});
afterAll(() => app.stop(true));

const call = async (method: string, path: string, body?: string) => {
  const response = await fetch(`${base}${path}`, { method, body });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

describe("OPA REST API", () => {
  test("POST /v1/data/<path> answers {result}; an undefined document answers {}", async () => {
    const input = { caller_spiffe_id: planner, callee_spiffe_id: `${td}/platform`, action: "catalog:read", context: {} };
    const whole = await call("POST", "/v1/data/platform/authz", JSON.stringify({ input }));
    expect(whole.status).toBe(200);
    expect(whole.body.result).toMatchObject({ allow: true, reason: "allowed: caller capability" });
    expect((await call("POST", "/v1/data/platform/authz/allow", JSON.stringify({ input }))).body).toEqual({ result: true });
    expect((await call("POST", "/v1/data/no/such/package", JSON.stringify({ input }))).body).toEqual({});
    expect((await call("GET", "/v1/data/authz/classification_levels")).body).toEqual({ result: { public: 0, internal: 1, confidential: 2, restricted: 3 } });
    expect((await call("POST", "/v1/data/platform/authz/allow?provenance=true", JSON.stringify({ input }))).body.provenance).toMatchObject({
      revision: engine.version,
    });
  });

  test("a body nested past the depth limit is a 400 invalid_parameter before anything parses it, on every route", async () => {
    const deep = (depth: number) => `{"input":${"[".repeat(depth)}1${"]".repeat(depth)}}`;
    for (const depth of [65, 1_001, 100_000]) {
      for (const [method, path] of [["POST", "/v1/data/platform/authz"], ["POST", "/"], ["PUT", "/v1/data/deep"], ["POST", "/v1/query"]] as const) {
        const answer = await call(method, path, deep(depth));
        expect(answer).toMatchObject({ status: 400, body: { code: "invalid_parameter", message: expect.stringContaining("JSON nests deeper than 64 levels") } });
      }
    }
    expect((await call("GET", "/v1/data/deep")).body).toEqual({});
  });

  test("a malformed body is a 400 in OPA's error shape", async () => {
    expect(await call("POST", "/v1/data/platform/authz", "{nope")).toMatchObject({ status: 400, body: { code: "invalid_parameter" } });
    expect(await call("POST", "/v1/data/platform/authz", "[1]")).toMatchObject({ status: 400, body: { code: "invalid_parameter" } });
  });

  test("policies can be listed, read, replaced and deleted; a bad module is refused with file:line and changes nothing", async () => {
    const listed = await call("GET", "/v1/policies");
    expect(listed.body.result.map((p: { id: string }) => p.id)).toEqual(["authz.rego"]);
    expect((await call("GET", "/v1/policies/authz.rego")).body.result.raw).toContain("package platform.authz");
    expect(await call("GET", "/v1/policies/none.rego")).toMatchObject({ status: 404, body: { code: "resource_not_found" } });

    const version = engine.version;
    const broken = await call("PUT", "/v1/policies/extra/broken.rego", "package platform.authz\n\nallow if {\n  input.x ==\n}\n");
    expect(broken.status).toBe(400);
    expect(broken.body).toMatchObject({ code: "invalid_parameter", errors: [{ code: "rego_parse_error", location: { file: "extra/broken.rego", row: expect.any(Number) } }] });
    expect(broken.body.errors[0]).toMatchObject({ location: { col: expect.any(Number) } });
    expect(broken.body.errors[0].message).not.toContain("broken.rego"); // OPA puts where beside what
    expect(engine.version).toBe(version);

    expect(await call("PUT", "/v1/policies/extra/ok.rego", "package extra\n\nanswer := 42\n")).toEqual({ status: 200, body: {} });
    expect((await call("GET", "/v1/data/extra/answer")).body).toEqual({ result: 42 });
    expect(await call("DELETE", "/v1/policies/extra/ok.rego")).toEqual({ status: 200, body: {} });
    expect(await call("DELETE", "/v1/policies/extra/ok.rego")).toMatchObject({ status: 404 });
    expect((await call("GET", "/v1/data/extra/answer")).body).toEqual({});
  });

  test("outside development an allow-all module is refused and the previous set stays active", async () => {
    const version = engine.version;
    const refused = await call("PUT", "/v1/policies/dev/allow-all.rego", "package platform.authz\n\nallow := true\n");
    expect(refused.status).toBe(400);
    expect(refused.body.message).toContain("dev/allow-all.rego allows every request");
    expect(engine.version).toBe(version);
    expect(engine.modules().map((m) => m.id)).toEqual(["authz.rego"]);
  });

  test("GET /health answers {}", async () => {
    expect(await call("GET", "/health")).toEqual({ status: 200, body: {} });
  });
});

describe("the opa provider against this API decides as embedded does", () => {
  const cases: [string, string, string, Record<string, unknown>][] = [
    [planner, `${td}/platform`, "task.send", {}],
    [planner, `${td}/platform`, "catalog:read", { data_classification: "confidential" }],
    [planner, `${td}/platform`, "catalog:write", {}],
    [reporter, `${td}/platform`, "task.send", {}],
    [reporter, `${td}/platform`, "catalog:read", { data_classification: "internal" }],
    [reporter, `${td}/platform`, "task.send", { delegated_by: planner }],
    [reporter, `${td}/platform`, "catalog:read", { delegated_by: planner, data_classification: "confidential" }],
    [orderBot, `${td}/platform`, "catalog:write", { data_classification: "confidential" }],
    [orderBot, `${td}/platform`, "catalog:write", { data_classification: "restricted" }],
    [orderBot, "spiffe://elsewhere.example/x", "catalog:write", {}],
    [`${td}/agent/unknown`, `${td}/platform`, "health:read", {}],
    [`${td}/agent/unknown`, `${td}/platform`, "vault:check", {}],
  ];

  test("for a table of inputs", async () => {
    const local = enforcer(embedded(engine));
    const remote = enforcer(opaProvider({ endpoint: base, policyPath: "platform/authz", timeoutMs: 2000 }));
    let allowedCount = 0;
    for (const [caller, callee, action, context] of cases) {
      const a = await local.service.checkOutbound(caller, callee, action, context);
      const b = await remote.service.checkOutbound(caller, callee, action, context);
      expect({ case: [caller, action, context], allowed: b.allowed, reason: b.reason }).toEqual({ case: [caller, action, context], allowed: a.allowed, reason: a.reason });
      const [ra, rb] = [await local.recordOf(a.auditId), await remote.recordOf(b.auditId)];
      expect(rb!.result).toEqual(ra!.result!);
      expect(rb!.policy_version).toBe(`opa:${ra!.policy_version}`);
      if (a.allowed) allowedCount++;
    }
    // The table exercises both outcomes.
    expect(allowedCount).toBeGreaterThan(2);
    expect(allowedCount).toBeLessThan(cases.length - 2);
  });
});
