/** The platform's own agent inside the runtime: each hosted MCP tool is a task type, run exactly as MCP runs it. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { a2aCapability } from "../../src/a2a/capability.ts";
import { authzCapability } from "../../src/authz/capability.ts";
import { platformCapability } from "../../src/platform/tools.ts";
import { fixtureCapability } from "../fixtures/capability.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { call, openAuthorization, rpc } from "./support.ts";
import { failOnStalls } from "../support/loop.ts";
import { stores, storesForFile } from "../support/stores.ts";

failOnStalls();

const fixture = storesForFile();

describe.each(stores)("on %s", (kind) => {
  let running: RunningApp;
  let base = "";

  beforeAll(async () => {
    // a2a is listed before the fixture: it must still see the fixture's tools.
    running = await startApp([platformCapability, authzCapability, a2aCapability, fixtureCapability], {
      env: { PLATFORM_A2A__SPIFFE_ID: "spiffe://test.local/platform", ...openAuthorization, ...(await fixture.fresh(kind)).env },
    });
    base = running.base;
  });
  afterAll(() => running.close());

  test("the card lists every hosted tool as a capability, with its input schema", async () => {
    const card = await fetch(`${base}/.well-known/agent.json`).then((r) => r.json() as Promise<any>);
    expect(card).toMatchObject({ name: "Platform", url: base, extensions: { spiffeId: "spiffe://test.local/platform" } });
    const names = card.capabilities.map((c: { name: string }) => c.name);
    expect(names).toEqual(expect.arrayContaining(["health", "add", "explode", "count_down"]));
    expect(card.capabilities.find((c: { name: string }) => c.name === "add").parameters).toMatchObject({ properties: { a: { type: "integer" } } });
    const v1 = await fetch(`${base}/.well-known/agent-card.json`).then((r) => r.json() as Promise<any>);
    expect(v1.skills.map((s: { id: string }) => s.id)).toEqual(names);
  });

  test("task.send of a tool runs it with schema defaults; its result is the task's result", async () => {
    const { body } = await rpc(base, call("task.send", { type: "add", payload: { a: 2 } }));
    expect(body.result).toMatchObject({ type: "add", state: "completed", result: { content: [{ type: "text", text: "3" }] } });
    const health = (await rpc(base, call("task.send", { type: "health" }))).body.result;
    expect(health.result).toMatchObject({ status: "ok", subsystems: { a2a: { status: "ok" } } });
  });

  test("text PostgreSQL cannot hold in a caller's metadata (NUL, half a surrogate pair) is stored replaced there and as is in SQLite; the task runs", async () => {
    const note = "a\u0000b \ud800";
    const sent = (await rpc(base, call("task.send", { type: "add", payload: { a: 1 }, metadata: { note } }))).body.result;
    expect(sent).toMatchObject({ state: "completed", result: { content: [{ type: "text", text: "2" }] } });
    const stored = (await rpc(base, call("task.status", { id: sent.id }))).body.result;
    expect(stored.metadata.note).toBe(kind === "postgresql" ? "a\uFFFDb \uFFFD" : note);
  });

  test("invalid tool arguments and a failing tool fail the task with the tool's own message", async () => {
    const invalid = (await rpc(base, call("task.send", { type: "add", payload: { a: "two" } }))).body.result;
    expect(invalid).toMatchObject({ state: "failed", error: expect.stringContaining("Invalid arguments for tool add: a:") });
    const exploded = (await rpc(base, call("task.send", { type: "explode" }))).body.result;
    expect(exploded).toMatchObject({ state: "failed", error: "the fuse was lit" });
  });

  test("cancelling a tool task aborts the tool's signal", async () => {
    const { resetCancelled } = await import("../fixtures/capability.ts");
    resetCancelled();
    const { cancelled } = await import("../fixtures/capability.ts");
    const sent = (await rpc(base, call("task.send", { type: "count_down", payload: { steps: 2 }, blocking: false }))).body.result;
    expect((await rpc(base, call("task.cancel", { id: sent.id }))).body.result.state).toBe("cancelled");
    expect(await cancelled.promise).toBeString();
  });

  test("the task table and the combined /health agree: running tasks are live actors, final ones are not", async () => {
    const health = async () => (await fetch(`${base}/health`).then((r) => r.json() as Promise<any>)).subsystems;
    const before = await health();
    expect(before.a2a).toMatchObject({ status: "ok", taskTypes: expect.arrayContaining(["add", "health"]), tasks: 0 });
    expect(before.actors.byKind["a2a.task"]).toBeUndefined();
    const sent = (await rpc(base, call("task.send", { type: "count_down", payload: { steps: 1 }, blocking: false }))).body.result;
    const running = await health();
    expect(running.a2a.tasks).toBe(1);
    expect(running.actors.byKind["a2a.task"]).toBe(1);
    expect((await rpc(base, call("task.cancel", { id: sent.id }))).body.result.state).toBe("cancelled");
    const after = await health();
    expect(after.a2a.tasks).toBe(0);
    expect(after.actors.byKind["a2a.task"]).toBeUndefined();
    expect((await rpc(base, call("task.status", { id: sent.id }))).body.result.state).toBe("cancelled");
  });

  test("inside the runtime, /rpc answers an oversized body in JSON-RPC too, and keeps serving", async () => {
    const res = await fetch(`${base}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(call("task.send", { type: "add", payload: { a: 1, filler: "x".repeat(2 * 1024 * 1024) } })),
    });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32600, message: expect.stringContaining("exceeds") } });
    expect((await rpc(base, call("task.send", { type: "add", payload: { a: 1, b: 2 } }))).body.result.state).toBe("completed");
  });
});
