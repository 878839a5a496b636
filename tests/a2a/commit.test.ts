import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { RpcCode, TaskManager } from "../../src/a2a/index.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createLogger } from "../../src/log.ts";
import { tempDir } from "../support/temp.ts";
import { call, startAgent } from "./support.ts";

const dir = tempDir();
const file = join(dir.path, "tasks.db");
// A task whose payload says `poison` writes a row whose deferred foreign key fails only at COMMIT: each write
// is accepted, and the commit of the whole turn is refused.
const prepared = openDatabase(file);
prepared.sqlite.exec(`
  CREATE TABLE owners (id TEXT PRIMARY KEY);
  CREATE TABLE claims (task_id TEXT PRIMARY KEY, owner TEXT REFERENCES owners (id) DEFERRABLE INITIALLY DEFERRED);
  CREATE TRIGGER poison AFTER INSERT ON a2a_tasks WHEN json_extract(NEW.payload, '$.poison') = 1
  BEGIN INSERT INTO claims VALUES (NEW.id, 'nobody'); END;
`);
prepared.close();

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

test("an answer reports only what is committed: a turn that cannot be committed answers an internal error", async () => {
  const [good, bad] = await Promise.all([
    agent.rpc(call("task.send", { type: "echo", payload: { n: 1 } }, 1)),
    agent.rpc(call("task.send", { type: "echo", payload: { poison: 1 }, blocking: false }, 2)),
  ]);
  // Both tasks were created in the same turn, so the refused commit took both: neither may be reported as done.
  for (const answer of [good, bad]) expect(answer.body.error?.code ?? answer.body.result?.state).toBeDefined();
  expect(bad.body.error).toMatchObject({ code: RpcCode.InternalError, message: "Internal error: the change could not be stored" });
  if (good.body.result) expect(stored(good.body.result.id)?.state).toBe("completed");
  expect(reader.query("SELECT count(*) AS n FROM a2a_tasks WHERE json_extract(payload, '$.poison') = 1").get()).toEqual({ n: 0 });

  // The server goes on: the next task is committed and answered.
  const next = await agent.rpc(call("task.send", { type: "echo", payload: { n: 2 } }, 3));
  expect(next.body.result.state).toBe("completed");
  expect(stored(next.body.result.id)?.state).toBe("completed");
});
