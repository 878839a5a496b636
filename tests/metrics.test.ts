import { afterAll, beforeAll, expect, test } from "bun:test";
import parsePrometheus from "parse-prometheus-text-format";
import { platformCapability } from "../src/platform/tools.ts";
import { startApp, type RunningApp } from "./support/app.ts";
import { allowStall, failOnStalls } from "./support/loop.ts";

failOnStalls();

let running: RunningApp;
beforeAll(async () => {
  running = await startApp([platformCapability]);
});
afterAll(() => running.close());

test("/metrics is Prometheus text a real parser reads, with the event loop's lag", async () => {
  const res = await fetch(`${running.base}/metrics`);
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  const families = parsePrometheus(await res.text());
  const lag = families.find((f) => f.name === "platform_event_loop_lag_max_seconds");
  expect(lag).toMatchObject({ type: "GAUGE", metrics: [{ value: expect.stringMatching(/^\d+(\.\d+)?(e-?\d+)?$/) }] });
  expect(families.map((f) => f.name)).toContain("platform_event_loop_lag_seconds");
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
