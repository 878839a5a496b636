import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { RpcCode, TaskManager } from "../../src/a2a/index.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createLogger } from "../../src/log.ts";
import { tempDir } from "../support/temp.ts";
import { call, startAgent } from "./support.ts";

const dir = tempDir();
const file = join(dir.path, "tasks.db");
// A task whose payload says `poison` writes a row whose deferred foreign key fails only at COMMIT: each write
// is accepted, and the commit is refused.
const prepared = await openDatabase(file);
await prepared.rows(sql`CREATE TABLE owners (id TEXT PRIMARY KEY)`);
await prepared.rows(sql`CREATE TABLE claims (task_id TEXT PRIMARY KEY, owner TEXT REFERENCES owners (id) DEFERRABLE INITIALLY DEFERRED)`);
await prepared.rows(sql.raw(`CREATE TRIGGER poison AFTER INSERT ON a2a_tasks WHEN json_extract(NEW.payload, '$.poison') = 1
  BEGIN INSERT INTO claims VALUES (NEW.id, 'nobody'); END`));
await prepared.close();

const log = createLogger({ level: "error", write: () => {} });
const agent = await startAgent({ taskManager: new TaskManager({ file, log }) }, (s) =>
  s.registerTaskHandler("echo", (task) => {
    task.result = task.payload;
    return task;
  }),
);
// A second connection sees only what is committed.
const reader = new Database(file, { readonly: true });
afterAll(async () => {
  reader.close();
  await agent.server.stop();
  dir.remove();
});

const stored = (id: string) => reader.query("SELECT state FROM a2a_tasks WHERE id = ?").get(id) as { state: string } | null;

test("an answer reports only what is committed: a task whose outcome cannot be stored answers an internal error", async () => {
  const [good, bad] = await Promise.all([
    agent.rpc(call("task.send", { type: "echo", payload: { n: 1 } }, 1)),
    agent.rpc(call("task.send", { type: "echo", payload: { poison: 1 } }, 2)),
  ]);
  // Both finished in the same batch; the refused commit is retried actor by actor, so only the poisoned task fails.
  expect(good.body.result).toMatchObject({ state: "completed" });
  expect(stored(good.body.result.id)?.state).toBe("completed");
  expect(bad.body.error).toMatchObject({ code: RpcCode.InternalError, message: "Internal error: the change could not be stored" });
  expect(reader.query("SELECT count(*) AS n FROM a2a_tasks WHERE json_extract(payload, '$.poison') = 1").get()).toEqual({ n: 0 });

  // The server goes on: the next task is committed and answered.
  const next = await agent.rpc(call("task.send", { type: "echo", payload: { n: 2 } }, 3));
  expect(next.body.result.state).toBe("completed");
  expect(stored(next.body.result.id)?.state).toBe("completed");
});
