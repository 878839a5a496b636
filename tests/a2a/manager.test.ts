import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { TaskManager, TaskNotCancelableError, TaskNotFoundError, TaskStateError, TaskTimeoutError } from "../../src/a2a/index.ts";
import { tempDir } from "../support/temp.ts";

const dir = tempDir();
afterAll(() => dir.remove());
let files = 0;
const fresh = () => new TaskManager({ file: join(dir.path, `tasks-${files++}.db`) });

test("create, get, list by state and type", async () => {
  const manager = fresh();
  const a = await manager.createTask({ type: "echo", payload: { n: 1 }, messages: [{ role: "user", parts: [{ kind: "text", text: "hi" }] }] });
  const b = await manager.createTask({ type: "sum" });
  await manager.start(b.id);
  expect(await manager.getTask(a.id)).toMatchObject({ type: "echo", state: "pending", payload: { n: 1 } });
  expect((await manager.getTask(a.id))!.messages[0]).toMatchObject({ role: "user", id: expect.any(String), createdAt: expect.any(String) });
  expect(await manager.getTask("nope")).toBeUndefined();
  expect((await manager.listTasks()).map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
  expect((await manager.listTasks("running")).map((t) => t.id)).toEqual([b.id]);
  expect((await manager.listTasks(undefined, "echo")).map((t) => t.id)).toEqual([a.id]);
  expect(await manager.listTasks("running", "echo")).toEqual([]);
  await manager.close();
});

test("a task created started is first seen and first stored running", async () => {
  const manager = fresh();
  const task = await manager.createTask({ type: "echo" }, { started: true });
  expect(task.state).toBe("running");
  expect(await manager.current(task.id)).toMatchObject({ revision: 1, final: false });
  await manager.committed();
  expect((await manager.listTasks("running")).map((t) => t.id)).toEqual([task.id]);
  expect(await manager.listTasks("pending")).toEqual([]);
  await manager.close();
});

test("a move the machine does not take in the task's state is refused and stores nothing", async () => {
  const manager = fresh();
  const task = await manager.createTask({ type: "echo" }, { started: true });
  await expect(manager.start(task.id)).rejects.toThrow(TaskStateError);
  const pending = (await manager.getTask(task.id))!;
  pending.state = "pending";
  await expect(manager.updateTask(pending)).rejects.toThrow(TaskStateError);
  await manager.committed();
  expect(await manager.current(task.id)).toMatchObject({ revision: 1, state: "running", final: false });
  await manager.close();
});

test("a task in progress is listed and counted from its actor; its row is written when it finishes", async () => {
  const file = join(dir.path, `tasks-${files++}.db`);
  const manager = new TaskManager({ file });
  await manager.committed(); // its store is open
  const reader = new Database(file, { readonly: true });
  const rows = (id: string) => reader.query("SELECT state FROM a2a_tasks WHERE id = ?").all(id);
  const task = await manager.createTask({ type: "echo" }, { started: true });
  const other = await manager.createTask({ type: "sum" });
  await manager.committed();
  expect(rows(task.id)).toEqual([]);
  expect(await manager.countTasks("running")).toBe(1);
  expect(await manager.countTasks("pending")).toBe(1);
  expect((await manager.listTasks("running")).map((t) => t.id)).toEqual([task.id]);
  expect((await manager.listTasks(undefined, "sum")).map((t) => t.id)).toEqual([other.id]);

  const done = (await manager.getTask(task.id))!;
  done.markCompleted("ok");
  await manager.updateTask(done);
  await manager.committed();
  expect(rows(task.id)).toEqual([{ state: "completed" }]);
  expect(await manager.countTasks("running")).toBe(0);
  expect(await manager.countTasks("completed")).toBe(1);
  expect((await manager.listTasks()).map((t) => [t.id, t.state])).toEqual([
    [other.id, "pending"],
    [task.id, "completed"],
  ]);
  expect((await manager.listTasks(undefined, undefined, { limit: 1 })).map((t) => t.id)).toEqual([other.id]);
  reader.close();
  await manager.close();
});

test("updateTask stores appended messages, artifacts and the move; a final task refuses", async () => {
  const manager = fresh();
  const created = await manager.createTask({ type: "echo" });
  const task = (await manager.getTask(created.id))!;
  task.addMessage("agent", "working on it");
  task.addArtifact("draft", { v: 1 });
  task.markRunning();
  const stored = await manager.updateTask(task);
  expect(stored).toMatchObject({ state: "running", messages: [{ role: "agent" }], artifacts: [{ type: "draft", data: { v: 1 } }] });
  expect(stored.updatedAt.getTime()).toBeGreaterThanOrEqual(stored.createdAt.getTime());
  stored.markCompleted("done");
  expect(await manager.updateTask(stored)).toMatchObject({ state: "completed", result: "done" });

  const late = (await manager.getTask(created.id))!;
  late.state = "running";
  await expect(manager.updateTask(late)).rejects.toThrow(TaskStateError);
  const more = (await manager.getTask(created.id))!;
  more.addMessage("agent", "after the end");
  await expect(manager.updateTask(more)).rejects.toThrow(TaskStateError);
  expect(await manager.getTask(created.id)).toMatchObject({ state: "completed", messages: [{}] });
  await expect(manager.cancel(created.id)).rejects.toThrow(TaskNotCancelableError);
  await expect(manager.cancel("nope")).rejects.toThrow(TaskNotFoundError);
  await manager.close();
});

test("each update stores the task as it was when handed over, even when the caller goes on without awaiting it", async () => {
  const manager = fresh();
  const task = await manager.createTask({ type: "ticker" }, { started: true });
  const seen: unknown[] = [];
  await manager.watch(task.id, (update) => void seen.push(update.task.metadata.tick));
  const stored: Promise<unknown>[] = [];
  for (let tick = 1; tick <= 3; tick++) {
    task.metadata.tick = tick;
    task.addMessage("agent", `tick ${tick}`);
    stored.push(manager.updateTask(task));
  }
  await Promise.all(stored);
  expect(seen).toEqual([1, 2, 3]);
  expect((await manager.getTask(task.id))!.messages.map((m) => (m.parts[0] as { text: string }).text)).toEqual(["tick 1", "tick 2", "tick 3"]);
  await manager.close();
});

test("a handler's copy changes nothing until it is handed back", async () => {
  const manager = fresh();
  const task = await manager.createTask({ type: "echo", payload: { list: [1] } });
  const copy = (await manager.getTask(task.id))!;
  (copy.payload as { list: number[] }).list.push(2);
  copy.messages.push({ id: "m", role: "agent", parts: [{ kind: "text", text: "x" }], createdAt: new Date().toISOString() });
  expect(await manager.getTask(task.id)).toMatchObject({ payload: { list: [1] }, messages: [] });
  await manager.close();
});

test("waitForCompletion resolves on the final state and rejects with a timeout error", async () => {
  const manager = fresh();
  const task = await manager.createTask({ type: "echo" });
  const waiting = manager.waitForCompletion(task.id);
  await manager.start(task.id);
  const done = (await manager.getTask(task.id))!.markCompleted(7);
  await manager.updateTask(done);
  expect(await waiting).toMatchObject({ state: "completed", result: 7 });
  expect(await manager.waitForCompletion(task.id)).toMatchObject({ state: "completed" });

  const slow = await manager.createTask({ type: "echo" });
  const error = await manager.waitForCompletion(slow.id, 0.01).catch((e) => e);
  expect(error).toBeInstanceOf(TaskTimeoutError);
  expect((await manager.getTask(slow.id))!.state).toBe("pending");
  await expect(manager.waitForCompletion("nope")).rejects.toBeInstanceOf(TaskNotFoundError);
  await manager.close();
});

test("deleteTask cancels work in progress first; cleanupCompletedTasks removes old final tasks only", async () => {
  const manager = fresh();
  const running = await manager.createTask({ type: "echo" });
  await manager.start(running.id);
  expect(await manager.deleteTask(running.id)).toBe(true);
  expect(await manager.getTask(running.id)).toBeUndefined();
  expect(await manager.deleteTask(running.id)).toBe(false);

  const finished = await manager.createTask({ type: "echo" });
  await manager.fail(finished.id, "no");
  const open = await manager.createTask({ type: "echo" });
  expect(await manager.cleanupCompletedTasks(3600)).toBe(0);
  expect(await manager.cleanupCompletedTasks(0)).toBe(1);
  expect(await manager.getTask(finished.id)).toBeUndefined();
  expect(await manager.getTask(open.id)).toMatchObject({ state: "pending" });
  await manager.close();
});

test("tasks survive a restart; those in progress are handed back as interrupted", async () => {
  const file = join(dir.path, "restart.db");
  const first = new TaskManager({ file });
  const done = await first.createTask({ type: "echo" });
  await first.fail(done.id, "bad input");
  const running = await first.createTask({ type: "echo" });
  await first.start(running.id);
  const pending = await first.createTask({ type: "echo" });
  await first.close();

  const second = new TaskManager({ file });
  await second.committed(); // its store is open and its tasks restored
  expect(await second.getTask(done.id)).toMatchObject({ state: "failed", error: "bad input" });
  expect(second.takeInterrupted().sort()).toEqual([running.id, pending.id].sort());
  expect(second.takeInterrupted()).toEqual([]);
  expect((await second.getTask(running.id))!.state).toBe("running");
  await second.close();
});
