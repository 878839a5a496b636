/**
 * A JSON body nested past `server.max_json_depth` (64 by default) is refused on every surface, in that surface's
 * own error format, before anything parses, validates or stores it; the server goes on serving.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { a2aCapability } from "../src/a2a/capability.ts";
import { authzCapability } from "../src/authz/capability.ts";
import { catalogCapability } from "../src/catalog/capability.ts";
import { platformCapability } from "../src/platform/tools.ts";
import { checkJsonDepth, JsonTooDeep, parseStrictJson } from "../src/strict-json.ts";
import { openAuthorization } from "./a2a/support.ts";
import { fixtureCapability } from "./fixtures/capability.ts";
import { startApp, type RunningApp } from "./support/app.ts";
import { failOnStalls } from "./support/loop.ts";

failOnStalls();

let running: RunningApp;
beforeAll(async () => {
  running = await startApp([platformCapability, authzCapability, a2aCapability, catalogCapability, fixtureCapability], { env: openAuthorization });
});
afterAll(() => running.close());

const nested = (depth: number, inner = "1") => "[".repeat(depth) + inner + "]".repeat(depth);
const post = (path: string, body: string, headers: Record<string, string> = {}) =>
  fetch(`${running.base}${path}`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers }, body });
const tasks = async () => Number((await running.runtime.database.rows<{ n: number }>(sql`SELECT count(*) AS n FROM a2a_tasks`))[0]!.n);

test("the depth check reads nesting only: strings may hold brackets, and 64 levels pass where 65 do not", () => {
  expect(() => checkJsonDepth(nested(64), 64)).not.toThrow();
  expect(() => checkJsonDepth(nested(65), 64)).toThrow(JsonTooDeep);
  expect(() => checkJsonDepth(`{"a":"${"[".repeat(500)}","b":{"c":[1]}}`, 3)).not.toThrow();
  expect(() => checkJsonDepth('{"a":"\\"[[[[","b":[[[[1]]]]}', 4)).toThrow("JSON nests deeper than 4 levels");
  expect(() => parseStrictJson(nested(100_000), { maxDepth: 64 })).toThrow(JsonTooDeep);
});

test("REST: the unauthenticated catalog login refuses 20,000 and 100,000 levels with a 400, not a stall or a 500", async () => {
  for (const depth of [20_000, 100_000]) {
    const res = await post("/v2/auth/login", nested(depth));
    expect(res.status).toBe(400);
    // In the catalog's own format, counted by its rate limiter like every other answer.
    expect(res.headers.get("x-ratelimit-limit")).toBeString();
    expect(await res.json()).toMatchObject({
      code: "VALIDATION_ERROR",
      details: { fields: [{ field: "body", message: "is JSON nested deeper than 64 levels" }] },
    });
  }
  expect((await fetch(`${running.base}/health`)).status).toBe(200);
});

test("JSON-RPC: a task payload nested too deep is a parse error (-32700) and stores no task", async () => {
  const before = await tasks();
  for (const depth of [65, 20_000, 100_000]) {
    const call = `{"jsonrpc":"2.0","id":1,"method":"task.send","params":{"type":"add","payload":{"a":1,"b":1,"x":${nested(depth)}}}}`;
    const res = await post("/rpc", call);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32700, message: expect.stringContaining("deeper than 64") } });
  }
  expect(await tasks()).toBe(before);
  // Within the limit, the same call runs.
  const fine = await post("/rpc", `{"jsonrpc":"2.0","id":2,"method":"task.send","params":{"type":"add","payload":{"a":1,"b":1}}}`);
  expect(((await fine.json()) as { result: { state: string } }).result.state).toBe("completed");
});

test("MCP over HTTP: a message nested too deep is a 400 with a JSON-RPC parse error; no session is opened", async () => {
  const sessions = () => (running.runtime.health.report().subsystems.mcp!.sessions as Record<string, number>).fixture ?? 0;
  const before = sessions();
  const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"x","version":"1"},"deep":${nested(20_000)}}}`;
  const res = await post("/mcp/fixture", initialize);
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32700, message: expect.stringContaining("deeper than 64") } });
  expect(sessions()).toBe(before);
});

test("the limit is configurable", async () => {
  const strict = await startApp([fixtureCapability], { env: { PLATFORM_SERVER__MAX_JSON_DEPTH: "2" } });
  try {
    const echo = (body: string) => fetch(`${strict.base}/echo`, { method: "POST", headers: { "content-type": "application/json" }, body });
    expect((await echo('{"word":"hi"}')).status).toBe(200);
    const deep = await echo('{"word":[["hi"]]}');
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ error: { code: "MALFORMED_JSON", message: "The request body nests deeper than 2 levels" } });
  } finally {
    await strict.close();
  }
});
