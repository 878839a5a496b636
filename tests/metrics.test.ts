import { afterAll, beforeAll, expect, test } from "bun:test";
import { a2aCapability } from "../src/a2a/capability.ts";
import { authzCapability } from "../src/authz/capability.ts";
import { platformCapability } from "../src/platform/tools.ts";
import { vaultCapability } from "../src/vault/capability.ts";
import { call, openAuthorization, rpc } from "./a2a/support.ts";
import { fixtureCapability } from "./fixtures/capability.ts";
import { startApp, type RunningApp } from "./support/app.ts";
import { logLines } from "./support/log-lines.ts";
import { allowStall, failOnStalls } from "./support/loop.ts";
import { parsePrometheus, type MetricFamily } from "./support/prometheus.ts";

failOnStalls();

let running: RunningApp;
const logged = logLines();
/** A request's metrics are counted with its access line, which is written once its answer has left. */
const counted = (requestId: string) => logged.until((line) => line.includes(`"requestId":"${requestId}"`) && line.includes('"component":"access"'));
beforeAll(async () => {
  running = await startApp([platformCapability, authzCapability, a2aCapability, vaultCapability, fixtureCapability], {
    env: { ...openAuthorization, PLATFORM_VAULT__SETUP_PORT: "0" },
    log: logged.log,
  });
});
afterAll(() => running.close());

async function scrape() {
  const res = await fetch(`${running.base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return parsePrometheus(await res.text());
}
const family = (families: MetricFamily[], name: string) => families.find((f) => f.name === name);
/** The value of the first sample named `sample` (the family's name by default) with these labels; NaN if none. */
const valueOf = (families: MetricFamily[], name: string, labels: Record<string, string> = {}, sample = name) =>
  family(families, name)?.samples.find((s) => s.name === sample && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value ?? NaN;

test("what happened before the first scrape is counted all the same, and a real parser reads the exposition", async () => {
  // Requests before the first scrape: the library loads with that scrape, and these must be in it.
  for (let i = 0; i < 3; i++) await fetch(`${running.base}/health`);
  await fetch(`${running.base}/nowhere`, { headers: { "x-request-id": "metrics-404" } });
  await counted("metrics-404");
  allowStall(1000, "the first scrape loads the metrics library");
  const families = await scrape();
  // The client's parser names a counter's family without `_total`.
  expect(valueOf(families, "platform_http_requests", { method: "GET", route: "/health", status: "200" }, "platform_http_requests_total")).toBeGreaterThanOrEqual(3);
  expect(valueOf(families, "platform_http_requests", { route: "(no route)", status: "404" }, "platform_http_requests_total")).toBe(1);
  expect(family(families, "platform_http_request_duration_seconds")?.type).toBe("histogram");
  expect(valueOf(families, "platform_http_request_duration_seconds", { route: "/health" }, "platform_http_request_duration_seconds_count")).toBeGreaterThanOrEqual(3);
  expect(family(families, "platform_event_loop_lag_max_seconds")?.type).toBe("gauge");
});

test("actors by kind and state, policy decisions by result, vault calls, SSE subscribers and MCP sessions", async () => {
  const sent = (await rpc(running.base, call("task.send", { type: "count_down", payload: { steps: 1 }, blocking: false }))).body.result;
  const stream = await fetch(`${running.base}/tasks/${sent.id}/stream`);
  await fetch(`${running.base}/vault/v1/services`); // refused: no token, and audited
  const families = await scrape();
  expect(valueOf(families, "platform_actors", { kind: "a2a.task", state: "running" })).toBe(1);
  expect(valueOf(families, "platform_policy_decisions", { result: "allowed" }, "platform_policy_decisions_total")).toBeGreaterThanOrEqual(1);
  expect(valueOf(families, "platform_vault_calls", { operation: "authenticate", outcome: "UNAUTHENTICATED" }, "platform_vault_calls_total")).toBe(1);
  expect(valueOf(families, "platform_sse_subscribers")).toBe(1);
  expect(family(families, "platform_mcp_sessions")?.type).toBe("gauge");
  await stream.body!.cancel();
  await rpc(running.base, call("task.cancel", { id: sent.id }));
  const after = await scrape();
  expect(valueOf(after, "platform_sse_subscribers")).toBe(0);
  expect(valueOf(after, "platform_actors", { kind: "a2a.task", state: "running" })).toBeNaN();
});

test("/health carries the event loop's lag: the latest run and the longest stall of the last minute", async () => {
  // Stand still on purpose for 150 ms: the monitor counts the stall even before its timer runs again.
  allowStall(400, "it stands still on purpose");
  const until = performance.now() + 150;
  while (performance.now() < until);
  const { subsystems } = (await (await fetch(`${running.base}/health`)).json()) as { subsystems: { eventLoop: Record<string, number> } };
  expect(subsystems.eventLoop).toMatchObject({ status: "ok" });
  expect(subsystems.eventLoop.maxLagMs).toBeGreaterThanOrEqual(100);
});
