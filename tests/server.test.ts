import { afterAll, beforeAll, expect, test } from "bun:test";
import { platformCapability } from "../src/platform/tools.ts";
import { fixtureCapability } from "./fixtures/capability.ts";
import { startApp, type RunningApp } from "./support/app.ts";
import { logLines } from "./support/log-lines.ts";

const { log, lines: logged, until: loggedLine } = logLines();
let running: RunningApp;
let base = "";

beforeAll(async () => {
  running = await startApp([platformCapability, fixtureCapability], {
    env: { PLATFORM_SERVER__BODY_LIMIT: "2048" },
    log,
  });
  base = running.base;
});
afterAll(() => running.close());

const postJson = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body });

test("/health is one document with each subsystem", async () => {
  const res = await fetch(`${base}/health`);
  expect(res.status).toBe(200);
  const body = (await res.json()) as { subsystems: { mcp: { servers: string[] } } };
  expect(body).toMatchObject({ status: "ok", subsystems: { database: { status: "ok" }, actors: { status: "ok" }, mcp: { status: "ok" } } });
  expect(body.subsystems.mcp.servers).toEqual(["platform", "fixture"]);
});

test("every response carries a request id; a sane one from the client is kept", async () => {
  const generated = await fetch(`${base}/health`);
  expect(generated.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  const kept = await fetch(`${base}/health`, { headers: { "x-request-id": "trace-42" } });
  expect(kept.headers.get("x-request-id")).toBe("trace-42");
  const replaced = await fetch(`${base}/health`, { headers: { "x-request-id": "bad id\twith spaces" } });
  expect(replaced.headers.get("x-request-id")).not.toContain("bad");
});

test("a capability's refusal keeps its status and code, and is no error in the log; a fault is, with the id the answer carries", async () => {
  const refused = await fetch(`${base}/refused`, { headers: { "x-request-id": "refusal-1" } });
  expect(refused.status).toBe(403);
  expect(await refused.json()).toEqual({ error: { code: "FORBIDDEN", message: "you may not", requestId: "refusal-1" } });
  await fetch(`${base}/nowhere`, { headers: { "x-request-id": "refusal-2" } });
  const errors = logged.map((l) => JSON.parse(l)).filter((l) => l.level === "error");
  expect(errors.filter((l) => ["refusal-1", "refusal-2"].includes(l.requestId))).toEqual([]);
});

test("every request gets one access line: method, route, status, duration, request id; never the query or the body", async () => {
  await fetch(`${base}/echo?token=query-secret-1`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-request-id": "access-1", authorization: "Bearer header-secret-2" },
    body: JSON.stringify({ word: "bodysecret" }),
  });
  await fetch(`${base}/nowhere?key=query-secret-3`, { headers: { "x-request-id": "access-2" } });
  const access = (id: string) => loggedLine((l) => l.includes('"component":"access"') && l.includes(`"requestId":"${id}"`)).then((l) => JSON.parse(l));
  expect(await access("access-1")).toMatchObject({ level: "info", message: "request", method: "POST", route: "/echo", status: 200, duration: expect.any(Number) });
  expect(await access("access-2")).toMatchObject({ route: "(no route)", status: 404 });
  const lines = logged.filter((l) => l.includes('"component":"access"'));
  for (const secret of ["query-secret-1", "header-secret-2", "bodysecret", "query-secret-3"]) expect(lines.join("\n")).not.toContain(secret);
});

test("unknown routes are a JSON 404", async () => {
  const res = await fetch(`${base}/nowhere`);
  expect(res.status).toBe(404);
  expect(await res.json()).toMatchObject({ error: { code: "NOT_FOUND", message: "No route for GET /nowhere" } });
});

test("malformed JSON is a JSON 400 and the server keeps serving", async () => {
  const res = await postJson("/echo", '{"word": ');
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { code: "MALFORMED_JSON" } });
  expect(await (await postJson("/echo", '{"word":"ok"}')).json()).toEqual({ word: "ok" });
});

test("a body that breaks the route's schema is a JSON 400 naming the field", async () => {
  const res = await postJson("/echo", JSON.stringify({ word: "x".repeat(30) }));
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ error: { code: "VALIDATION_ERROR", details: { path: "/word" } } });
});

test("an oversized body is a JSON 413, whether its length is declared or streamed", async () => {
  const declared = await postJson("/echo", JSON.stringify({ word: "x".repeat(4000) }));
  expect(declared.status).toBe(413);
  expect(await declared.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });

  const chunks = [new TextEncoder().encode('{"word":"'), new TextEncoder().encode("y".repeat(4000)), new TextEncoder().encode('"}')];
  const streamed = await fetch(`${base}/echo`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: new ReadableStream({
      pull(controller) {
        const next = chunks.shift();
        if (next) controller.enqueue(next);
        else controller.close();
      },
    }),
  });
  expect(streamed.status).toBe(413);
  expect(await streamed.json()).toMatchObject({ error: { code: "PAYLOAD_TOO_LARGE" } });
  expect((await fetch(`${base}/health`)).status).toBe(200);
});

test("an internal fault is a 500 with the request id, logged without reaching the client", async () => {
  const res = await fetch(`${base}/boom`, { headers: { "x-request-id": "fault-1" } });
  expect(res.status).toBe(500);
  const text = await res.text();
  expect(text).not.toContain("secret internals");
  expect(JSON.parse(text)).toMatchObject({ error: { code: "INTERNAL_ERROR", requestId: "fault-1" } });
  const line = logged.map((l) => JSON.parse(l)).find((l) => l.requestId === "fault-1");
  expect(line).toMatchObject({ level: "error", message: "internal error", error: { message: "secret internals that must not leak" } });
});

test("failures on a capability's paths come in its own wire format; its errors answer for themselves", async () => {
  const missing = await fetch(`${base}/fixture/nothing`);
  expect(missing.status).toBe(404);
  expect(await missing.json()).toEqual({ problem: "NOT_FOUND", detail: "No route for GET /fixture/nothing" });

  const malformed = await postJson("/fixture/echo", "{nope");
  expect(malformed.status).toBe(400);
  expect(await malformed.json()).toEqual({ problem: "MALFORMED_JSON", detail: "The request body is not valid JSON" });

  const invalid = await postJson("/fixture/echo", JSON.stringify({ word: 5 }));
  expect(invalid.status).toBe(400);
  expect(await invalid.json()).toMatchObject({ problem: "VALIDATION" });

  const tooLarge = await postJson("/fixture/echo", JSON.stringify({ word: "z".repeat(5000) }));
  expect(tooLarge.status).toBe(413);
  expect(await tooLarge.json()).toMatchObject({ problem: "PAYLOAD_TOO_LARGE" });

  const taken = await fetch(`${base}/fixture/taken`);
  expect(taken.status).toBe(409);
  expect(await taken.json()).toEqual({ problem: "TAKEN", detail: "the name is taken" });
  expect(taken.headers.get("x-fixture-quota")).toBe("7"); // headers the route set before failing survive

  const boom = await fetch(`${base}/fixture/boom`, { headers: { "x-request-id": "fault-2" } });
  expect(boom.status).toBe(500);
  expect(await boom.json()).toEqual({ problem: "INTERNAL", detail: "Internal error; quote request id fault-2 when reporting it" });
  expect(logged.some((l) => l.includes('"requestId":"fault-2"') && l.includes("more secret internals"))).toBe(true);
});
