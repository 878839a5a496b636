/**
 * Three nodes on one PostgreSQL store, 1,000 A2A tasks spread over them while one node after another is SIGKILLed
 * and started again: no task acknowledged is lost, none is done twice, every one ends final, and subscribers on a
 * surviving node see every event of the tasks that moved, in order.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import type { Running } from "../support/cli.ts";
import { postgresForFile } from "../support/postgres.ts";
import { tempDir } from "../support/temp.ts";
import { rpc, startNode, watch, type Watched } from "./support.ts";

const postgres = postgresForFile();
const root = tempDir();
const leaseMs = 1500;
const ids = ["a", "b", "c"] as const;
let url = "";
let store: DatabaseHandle;
const nodes = new Map<string, Running>();

beforeAll(async () => {
  url = await (await postgres()).database();
  store = await openDatabase({ file: "", url });
  await store.rows(sql`CREATE TABLE work_runs (key text NOT NULL, node text NOT NULL)`);
  for (const id of ids) nodes.set(id, await startNode({ id, url, root: root.path, leaseMs }));
});
afterAll(async () => {
  for (const node of nodes.values()) await node.stop();
  await store.close();
  root.remove();
});

test("1,000 tasks over three nodes while nodes are SIGKILLed and restarted: none lost, none done twice, every one final", async () => {
  const acknowledged = new Map<string, string>(); // task id -> key
  const watched: Watched[] = [];
  let next = 0;
  let turn = 0;
  let moved = 0;
  const live = () => ids.filter((id) => nodes.get(id)?.proc.exitCode === null);

  /** Sends one task to the next live node; a node that dies under it costs the attempt, and a new key is sent elsewhere. */
  async function submit(): Promise<void> {
    for (;;) {
      const key = `k${next++}`;
      const nodeId = live()[turn++ % live().length]!;
      const long = next % 25 === 0; // some stay in flight long enough to be there when their node dies
      try {
        const answer = await rpc(nodes.get(nodeId)!.url, "task.send", { type: "work", payload: { key, ms: long ? 2000 : Math.floor(Math.random() * 150) }, blocking: false });
        if (!answer.result) continue; // refused while its store or node was going away: send again
        acknowledged.set(answer.result.id, key);
        return;
      } catch {
        // The node was killed under the request: whether it made the task is unknown, so its key is not sent again.
      }
    }
  }

  /** Sends `count` tasks, `concurrency` at a time. */
  async function load(count: number, concurrency = 16) {
    let left = count;
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (left-- > 0) await submit();
    }));
  }

  for (const victim of ["a", "b", "c", "a"] as const) {
    await load(200);
    // Long tasks the victim runs now: their streams are watched on a node that survives.
    const survivor = ids.find((id) => id !== victim && nodes.get(id)!.proc.exitCode === null)!;
    const inFlight = await store.rows<{ id: string }>(sql`SELECT id FROM actors WHERE owner = ${victim} AND status = 'active' AND kind = 'a2a.task' LIMIT 5`);
    for (const { id } of inFlight) watched.push(watch(nodes.get(survivor)!.url, id));
    const killed = nodes.get(victim)!;
    killed.proc.kill("SIGKILL");
    await killed.proc.exited;
    // The others serve meanwhile, and take the victim's tasks over once its lease has run out: one of them claims
    // all the victim's active actors in one statement and says so.
    const killedAt = new Date().toISOString();
    await load(20);
    if ((await store.rows(sql`SELECT id FROM actors WHERE owner = ${victim} AND status = 'active'`)).length) {
      const takenOver = (line: string) => line.includes('"message":"actors taken over"') && (JSON.parse(line) as { timestamp: string }).timestamp >= killedAt;
      await Promise.race(ids.filter((id) => id !== victim).map((id) => nodes.get(id)!.waitForLine(takenOver)));
    }
    expect((await store.rows(sql`SELECT id FROM actors WHERE owner = ${victim} AND status = 'active'`)).length).toBe(0);
    moved += inFlight.length;
    nodes.set(victim, await startNode({ id: victim, url, root: root.path, leaseMs }));
  }
  await load(1000 - acknowledged.size);
  expect(acknowledged.size).toBe(1000);
  expect(moved).toBeGreaterThan(0);

  // Every acknowledged task ends final (its node finishes it, or the node that took it over fails it as interrupted).
  // A task's row is written with its final state, so those without one are followed to their end.
  const all = [...acknowledged.keys()];
  const stored = new Set((await store.rows<{ id: string }>(sql`SELECT id FROM a2a_tasks WHERE id IN ${all}`)).map((r) => r.id));
  await Promise.all(all.filter((id) => !stored.has(id)).map((id) => watch(nodes.get("a")!.url, id).done));
  const states = await store.rows<{ id: string; state: string; error: string | null }>(sql`SELECT id, state, error FROM a2a_tasks WHERE id IN ${all}`);
  expect(states.length).toBe(all.length);
  expect(states.every((s) => ["completed", "failed"].includes(s.state))).toBe(true);
  for (const s of states.filter((s) => s.state === "failed")) expect(s.error).toContain("interrupted");

  // No key's work was done twice; every completed task's work was done once.
  const runs = new Map<string, number>();
  for (const { key } of await store.rows<{ key: string }>(sql`SELECT key FROM work_runs`)) runs.set(key, (runs.get(key) ?? 0) + 1);
  expect([...runs.values()].every((n) => n === 1)).toBe(true);
  for (const s of states.filter((s) => s.state === "completed")) expect(runs.get(acknowledged.get(s.id)!)).toBe(1);
  // Work left unfinished at a kill was failed, not redone elsewhere.
  expect(states.filter((s) => s.state === "failed").length).toBeGreaterThan(0);

  // Subscribers on a surviving node saw every change of the tasks that moved, in order, to the final one.
  await Promise.all(watched.map((w) => w.done));
  for (const w of watched) {
    expect(w.revisions.length).toBeGreaterThan(0);
    expect(w.revisions).toEqual(Array.from({ length: w.revisions.length }, (_, i) => w.revisions[0]! + i));
    expect(w.events.at(-1)).toBe("task.final");
  }
}, 180_000);
