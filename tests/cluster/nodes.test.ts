/**
 * Two platform nodes on one PostgreSQL store, as real processes: a task started on one is read, streamed and
 * cancelled through the other; when its node is SIGKILLed, the other takes it over once the lease runs out.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openDatabase } from "../../src/db/client.ts";
import { postgresForFile } from "../support/postgres.ts";
import { tempDir } from "../support/temp.ts";
import type { Running } from "../support/cli.ts";
import { rpc, startNode, watch } from "./support.ts";

const postgres = postgresForFile();
const root = tempDir();
const leaseMs = 1500;
let url = "";
let a: Running;
let b: Running;

beforeAll(async () => {
  url = await (await postgres()).database();
  const store = await openDatabase({ file: "", url });
  await store.rows(sql`CREATE TABLE work_runs (key text NOT NULL, node text NOT NULL)`);
  await store.close();
  a = await startNode({ id: "a", url, root: root.path, leaseMs });
  b = await startNode({ id: "b", url, root: root.path, leaseMs });
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  root.remove();
});

/** The SSE events of a task stream, as `id` and event name, until the stream ends. */
async function streamed(base: string, id: string, lastEventId?: number) {
  const res = await fetch(`${base}/tasks/${id}/stream`, { headers: lastEventId ? { "last-event-id": String(lastEventId) } : {} });
  const text = await res.text();
  return [...text.matchAll(/id: (\d+)\nevent: (\S+)\ndata: (.*)\n/g)].map((m) => ({ id: Number(m[1]), event: m[2], state: JSON.parse(m[3]!).state as string }));
}

test("a task running on one node is read, streamed and cancelled through the other", async () => {
  const { result: task } = await rpc(a.url, "task.send", { type: "hold", blocking: false });
  expect(task.state).toBe("running");
  expect((await rpc(b.url, "task.status", { id: task.id })).result).toMatchObject({ id: task.id, state: "running" });
  const stream = streamed(b.url, task.id);
  // The stream on b has its first event (the task as stored) before the cancel is sent; it ends with the final one.
  const cancelled = await rpc(b.url, "task.cancel", { id: task.id });
  expect(cancelled.result).toMatchObject({ id: task.id, state: "cancelled" });
  expect((await rpc(a.url, "task.status", { id: task.id })).result.state).toBe("cancelled");
  const events = await stream;
  expect(events.at(-1)).toMatchObject({ event: "task.final", state: "cancelled" });
  expect(events.map((e) => e.id)).toEqual([...events.map((e) => e.id)].sort((x, y) => x - y));
  // A client that saw the first revision resumes on either node with the rest.
  expect((await streamed(a.url, task.id, 1)).map((e) => e.state)).toEqual(events.filter((e) => e.id > 1).map((e) => e.state));
  expect((await rpc(b.url, "task.cancel", { id: task.id })).error).toMatchObject({ message: expect.stringContaining("cancel") });
});

test("when a node is SIGKILLed, another takes over its tasks once its lease runs out: running work fails as interrupted, never runs twice", async () => {
  const { result: task } = await rpc(a.url, "task.send", { type: "work", payload: { key: "w1", ms: 60_000 }, blocking: false });
  expect(task.state).toBe("running");
  const killed = performance.now();
  a.proc.kill("SIGKILL");
  await a.proc.exited;
  const final = await rpc(b.url, "task.send", { type: "hold", blocking: false }); // b keeps serving meanwhile
  expect(final.result.state).toBe("running");
  await watch(b.url, task.id).done; // the stream on b ends with the task's final state
  const tookMs = performance.now() - killed;
  const status = (await rpc(b.url, "task.status", { id: task.id })).result;
  expect(status).toMatchObject({ state: "failed", error: expect.stringContaining("interrupted") });
  expect(tookMs).toBeLessThan(leaseMs + 2000);
  const store = await openDatabase({ file: "", url });
  expect(await store.rows(sql`SELECT key FROM work_runs WHERE key = 'w1'`)).toEqual([]);
  expect(await store.rows(sql`SELECT owner FROM actors WHERE id = ${task.id}`)).toEqual([{ owner: "b" }]);
  await store.close();
});
