import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { TaskManager, TaskNotCancelableError, TaskNotFoundError, TaskStateError, TaskTimeoutError } from "../../src/a2a/index.ts";
import { tempDir } from "../support/temp.ts";

const dir = tempDir();
afterAll(() => dir.remove());
let files = 0;
const fresh = () => new TaskManager({ file: join(dir.path, `tasks-${files++}.db`) });

test("create, get, list by state and type", () => {
  const manager = fresh();
  const a = manager.createTask({ type: "echo", payload: { n: 1 }, messages: [{ role: "user", parts: [{ kind: "text", text: "hi" }] }] });
  const b = manager.createTask({ type: "sum" });
  manager.start(b.id);
  expect(manager.getTask(a.id)).toMatchObject({ type: "echo", state: "pending", payload: { n: 1 } });
  expect(manager.getTask(a.id)!.messages[0]).toMatchObject({ role: "user", id: expect.any(String), createdAt: expect.any(String) });
  expect(manager.getTask("nope")).toBeUndefined();
  expect(manager.listTasks().map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
  expect(manager.listTasks("running").map((t) => t.id)).toEqual([b.id]);
  expect(manager.listTasks(undefined, "echo").map((t) => t.id)).toEqual([a.id]);
  expect(manager.listTasks("running", "echo")).toEqual([]);
  manager.close();
});

test("a task created started is first seen and first stored running", async () => {
  const manager = fresh();
  const task = manager.createTask({ type: "echo" }, { started: true });
  expect(task.state).toBe("running");
  expect(manager.current(task.id)).toMatchObject({ revision: 1, final: false });
  await manager.committed();
  expect(manager.listTasks("running").map((t) => t.id)).toEqual([task.id]);
  expect(manager.listTasks("pending")).toEqual([]);
  manager.close();
});

test("a move the machine does not take in the task's state is refused and stores nothing", async () => {
  const manager = fresh();
  const task = manager.createTask({ type: "echo" }, { started: true });
  expect(() => manager.start(task.id)).toThrow(TaskStateError);
  const pending = manager.getTask(task.id)!;
  pending.state = "pending";
  expect(() => manager.updateTask(pending)).toThrow(TaskStateError);
  await manager.committed();
  expect(manager.current(task.id)).toMatchObject({ revision: 1, state: "running", final: false });
  manager.close();
});

test("a task in progress is listed and counted from its actor; its row is written when it finishes", async () => {
  const file = join(dir.path, `tasks-${files++}.db`);
  const manager = new TaskManager({ file });
  const reader = new Database(file, { readonly: true });
  const rows = (id: string) => reader.query("SELECT state FROM a2a_tasks WHERE id = ?").all(id);
  const task = manager.createTask({ type: "echo" }, { started: true });
  const other = manager.createTask({ type: "sum" });
  await manager.committed();
  expect(rows(task.id)).toEqual([]);
  expect(manager.countTasks("running")).toBe(1);
  expect(manager.countTasks("pending")).toBe(1);
  expect(manager.listTasks("running").map((t) => t.id)).toEqual([task.id]);
  expect(manager.listTasks(undefined, "sum").map((t) => t.id)).toEqual([other.id]);

  const done = manager.getTask(task.id)!;
  done.markCompleted("ok");
  manager.updateTask(done);
  await manager.committed();
  expect(rows(task.id)).toEqual([{ state: "completed" }]);
  expect(manager.countTasks("running")).toBe(0);
  expect(manager.countTasks("completed")).toBe(1);
  expect(manager.listTasks().map((t) => [t.id, t.state])).toEqual([
    [other.id, "pending"],
    [task.id, "completed"],
  ]);
  expect(manager.listTasks(undefined, undefined, { limit: 1 }).map((t) => t.id)).toEqual([other.id]);
  reader.close();
  manager.close();
});

test("updateTask stores appended messages, artifacts and the move; a final task refuses", () => {
  const manager = fresh();
  const created = manager.createTask({ type: "echo" });
  const task = manager.getTask(created.id)!;
  task.addMessage("agent", "working on it");
  task.addArtifact("draft", { v: 1 });
  task.markRunning();
  const stored = manager.updateTask(task);
  expect(stored).toMatchObject({ state: "running", messages: [{ role: "agent" }], artifacts: [{ type: "draft", data: { v: 1 } }] });
  expect(stored.updatedAt.getTime()).toBeGreaterThanOrEqual(stored.createdAt.getTime());
  stored.markCompleted("done");
  expect(manager.updateTask(stored)).toMatchObject({ state: "completed", result: "done" });

  const late = manager.getTask(created.id)!;
  late.state = "running";
  expect(() => manager.updateTask(late)).toThrow(TaskStateError);
  const more = manager.getTask(created.id)!;
  more.addMessage("agent", "after the end");
  expect(() => manager.updateTask(more)).toThrow(TaskStateError);
  expect(manager.getTask(created.id)).toMatchObject({ state: "completed", messages: [{}] });
  expect(() => manager.cancel(created.id)).toThrow(TaskNotCancelableError);
  expect(() => manager.cancel("nope")).toThrow(TaskNotFoundError);
  manager.close();
});

test("a handler's copy changes nothing until it is handed back", () => {
  const manager = fresh();
  const task = manager.createTask({ type: "echo", payload: { list: [1] } });
  const copy = manager.getTask(task.id)!;
  (copy.payload as { list: number[] }).list.push(2);
  copy.messages.push({ id: "m", role: "agent", parts: [{ kind: "text", text: "x" }], createdAt: new Date().toISOString() });
  expect(manager.getTask(task.id)).toMatchObject({ payload: { list: [1] }, messages: [] });
  manager.close();
});

test("waitForCompletion resolves on the final state and rejects with a timeout error", async () => {
  const manager = fresh();
  const task = manager.createTask({ type: "echo" });
  const waiting = manager.waitForCompletion(task.id);
  manager.start(task.id);
  const done = manager.getTask(task.id)!.markCompleted(7);
  manager.updateTask(done);
  expect(await waiting).toMatchObject({ state: "completed", result: 7 });
  expect(await manager.waitForCompletion(task.id)).toMatchObject({ state: "completed" });

  const slow = manager.createTask({ type: "echo" });
  const error = await manager.waitForCompletion(slow.id, 0.01).catch((e) => e);
  expect(error).toBeInstanceOf(TaskTimeoutError);
  expect(manager.getTask(slow.id)!.state).toBe("pending");
  await expect(manager.waitForCompletion("nope")).rejects.toBeInstanceOf(TaskNotFoundError);
  manager.close();
});

test("deleteTask cancels work in progress first; cleanupCompletedTasks removes old final tasks only", () => {
  const manager = fresh();
  const running = manager.createTask({ type: "echo" });
  manager.start(running.id);
  expect(manager.deleteTask(running.id)).toBe(true);
  expect(manager.getTask(running.id)).toBeUndefined();
  expect(manager.deleteTask(running.id)).toBe(false);

  const finished = manager.createTask({ type: "echo" });
  manager.fail(finished.id, "no");
  const open = manager.createTask({ type: "echo" });
  expect(manager.cleanupCompletedTasks(3600)).toBe(0);
  expect(manager.cleanupCompletedTasks(0)).toBe(1);
  expect(manager.getTask(finished.id)).toBeUndefined();
  expect(manager.getTask(open.id)).toMatchObject({ state: "pending" });
  manager.close();
});

test("tasks survive a restart; those in progress are handed back as interrupted", () => {
  const file = join(dir.path, "restart.db");
  const first = new TaskManager({ file });
  const done = first.createTask({ type: "echo" });
  first.fail(done.id, "bad input");
  const running = first.createTask({ type: "echo" });
  first.start(running.id);
  const pending = first.createTask({ type: "echo" });
  first.close();

  const second = new TaskManager({ file });
  expect(second.getTask(done.id)).toMatchObject({ state: "failed", error: "bad input" });
  expect(second.takeInterrupted().sort()).toEqual([running.id, pending.id].sort());
  expect(second.takeInterrupted()).toEqual([]);
  expect(second.getTask(running.id)!.state).toBe("running");
  second.close();
});
