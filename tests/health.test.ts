import { expect, test } from "bun:test";
import { Health, type HealthStatus } from "../src/health.ts";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

test("requests in one turn share one reading; the next turn reads afresh", async () => {
  const health = new Health("1.2.3");
  let status: HealthStatus = "ok";
  let reads = 0;
  health.register("disk", () => (reads++, { status }));
  const first = health.json();
  status = "down";
  expect(health.json()).toBe(first);
  expect(reads).toBe(1);
  await nextTurn();
  const next = health.json();
  expect(reads).toBe(2);
  expect(next.status).toBe("down");
  expect(JSON.parse(next.json)).toMatchObject({ status: "down", version: "1.2.3", subsystems: { disk: { status: "down" } } });
});

test("a failing check makes the document down and names the failure", () => {
  const health = new Health("1");
  health.register("broken", () => {
    throw new Error("no disk");
  });
  expect(JSON.parse(health.json().json)).toMatchObject({ status: "down", subsystems: { broken: { status: "down", error: "no disk" } } });
});

test("a top-level field sits beside status; one that cannot be read is null; taken names are refused", () => {
  const health = new Health("1");
  health.register("chat", () => ({ status: "ok", state: "ready" }));
  health.field("chat", () => "ready");
  health.field("broken", () => {
    throw new Error("gone");
  });
  expect(JSON.parse(health.json().json)).toMatchObject({ status: "ok", chat: "ready", broken: null, subsystems: { chat: { state: "ready" } } });
  expect(() => health.field("status", () => "x")).toThrow("health field status is taken");
  expect(() => health.field("chat", () => "x")).toThrow("health field chat is taken");
});
