/**
 * Two nodes on one PostgreSQL store audit to it by default: the decisions each node made are read with the other
 * node's settings through `platform audit`, each under the node that made it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { runPlatform, type Running } from "../support/cli.ts";
import { postgresForFile } from "../support/postgres.ts";
import { tempDir } from "../support/temp.ts";
import { rpc, startNode } from "./support.ts";

const postgres = postgresForFile();
const root = tempDir();
let url = "";
let a: Running;
let b: Running;

beforeAll(async () => {
  url = await (await postgres()).database();
  [a, b] = await Promise.all([startNode({ id: "a", url, root: root.path, leaseMs: 3000 }), startNode({ id: "b", url, root: root.path, leaseMs: 3000 })]);
});
afterAll(async () => {
  await a?.stop();
  await b?.stop();
  root.remove();
});

/** `platform audit --json` with the settings of node `id` (its data dir, the shared store). */
async function auditAs(id: string) {
  const run = await runPlatform(["audit", "--json", "--limit", "1000", "--data-dir", join(root.path, id)], { env: { DATABASE_URL: url } });
  expect(run.code).toBe(0);
  expect(run.stderr).toBe("");
  return run.stdout.trim().split("\n").map((line) => JSON.parse(line) as { node: string; action: string; decision: string; context: { metadata?: { marker?: string } } });
}

test("each node's decisions are read from the other through platform audit", async () => {
  for (const [node, marker] of [[a, "sent-to-a"], [b, "sent-to-b"]] as const) {
    const { result: task } = await rpc(node.url, "task.send", { type: "hold", blocking: false, metadata: { marker } });
    expect(task.state).toBe("running");
    expect((await rpc(node.url, "task.cancel", { id: task.id })).result.state).toBe("cancelled");
  }
  const sentBy = (records: Awaited<ReturnType<typeof auditAs>>, marker: string) =>
    records.filter((r) => r.action === "task.send" && r.context.metadata?.marker === marker).map(({ node, decision }) => ({ node, decision }));

  // A node that stops delivers what its audit buffer holds; the other, still serving, is where it is read from.
  expect(await a.stop()).toBe(0);
  const readOnB = await auditAs("b");
  expect(sentBy(readOnB, "sent-to-a")).toEqual([{ node: "a", decision: "allowed" }]);
  expect(readOnB.filter((r) => r.node === "a").map((r) => r.action)).toContain("task.cancel");

  expect(await b.stop()).toBe(0);
  const readOnA = await auditAs("a");
  expect(sentBy(readOnA, "sent-to-b")).toEqual([{ node: "b", decision: "allowed" }]);
  expect(sentBy(readOnA, "sent-to-a")).toEqual([{ node: "a", decision: "allowed" }]);
});
