import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { RpcCode, type A2AServer } from "../../src/a2a/index.ts";
import { call, gate, readEvents, startAgent, storedTasks } from "./support.ts";
import { failOnStalls } from "../support/loop.ts";
import { stores, storesForFile } from "../support/stores.ts";

failOnStalls();

const fixture = storesForFile();

describe.each(stores)("on %s", (kind) => {
  let server: A2AServer;
  let url = "";
  let post: Awaited<ReturnType<typeof startAgent>>["rpc"];
  let release = gate();
  let started = gate<string>();
  let tasks: Awaited<ReturnType<typeof storedTasks>>;

  beforeAll(async () => {
    tasks = await storedTasks((await fixture.fresh(kind)).env);
    const agent = await startAgent({ bodyLimit: 4096, taskManager: tasks.manager }, (s) => {
      s.registerTaskHandler("echo", (task) => {
        task.result = task.payload;
        task.addMessage("agent", [{ kind: "data", data: task.payload }]);
        return task;
      });
      s.registerTaskHandler("explode", () => {
        throw new Error("the fuse was lit");
      });
      s.registerTaskHandler("hold", async (task, { signal, update }) => {
        task.addArtifact("progress", { step: 1 });
        update(task);
        started.resolve(task.id);
        await Promise.race([release.promise, new Promise((resolve) => signal.addEventListener("abort", resolve))]);
        task.result = signal.aborted ? "aborted" : "released";
        return task;
      });
    });
    ({ server, url } = agent);
    post = agent.rpc;
  });
  afterAll(async () => {
    await server.stop();
    await tasks.close();
  });

  const taskCount = async () => (await server.taskManager.listTasks()).length;

  describe("task.send, task.status, task.cancel", () => {
    test("task.send runs the handler to completion and answers the final task", async () => {
      const { status, body } = await post(call("task.send", { type: "echo", payload: { n: 1 }, metadata: { trace: "t1" } }, "a"));
      expect(status).toBe(200);
      expect(body).toMatchObject({ jsonrpc: "2.0", id: "a", result: { type: "echo", state: "completed", result: { n: 1 }, metadata: { trace: "t1" } } });
      expect(body.result.messages).toEqual([expect.objectContaining({ role: "agent", parts: [{ kind: "data", data: { n: 1 } }] })]);
      const again = await post(call("task.status", { id: body.result.id }));
      expect(again.body.result).toEqual(body.result);
    });

    test("a handler that throws fails the task with its message; the server keeps serving", async () => {
      const { body } = await post(call("task.send", { type: "explode" }));
      expect(body.result).toMatchObject({ state: "failed", error: "the fuse was lit" });
      expect((await post(call("task.send", { type: "echo", payload: 2 }))).body.result.state).toBe("completed");
    });

    test("blocking: false answers at once; cancel stops the handler and a second cancel is refused", async () => {
      started = gate<string>();
      const sent = await post(call("task.send", { type: "hold", blocking: false }));
      expect(["pending", "running"]).toContain(sent.body.result.state);
      const id = await started.promise;
      expect(id).toBe(sent.body.result.id);
      const cancelled = await post(call("task.cancel", { id }));
      expect(cancelled.body.result).toMatchObject({ state: "cancelled", artifacts: [{ type: "progress" }] });
      const refused = await post(call("task.cancel", { id }));
      expect(refused.body.error).toMatchObject({ code: RpcCode.TaskNotCancelable, data: { state: "cancelled" } });
      // The handler's late answer changes nothing.
      const final = await server.taskManager.waitForCompletion(id);
      expect(final).toMatchObject({ state: "cancelled", result: undefined });
    });
  });

  describe("bad input gets its JSON-RPC error and changes nothing", () => {
    test.each([
      ["malformed JSON", '{"jsonrpc": "2.0", "method": ', RpcCode.ParseError, null],
      ["wrong jsonrpc version", call("task.send", { type: "echo" }, 5) && { jsonrpc: "1.0", id: 5, method: "task.send", params: { type: "echo" } }, RpcCode.InvalidRequest, 5],
      ["not an object", "42", RpcCode.InvalidRequest, null],
      ["params not structured", { jsonrpc: "2.0", id: 6, method: "task.send", params: "echo" }, RpcCode.InvalidRequest, 6],
      ["unknown method", call("task.explode", {}, 7), RpcCode.MethodNotFound, 7],
      ["missing params", call("task.send", undefined, 8), RpcCode.InvalidParams, 8],
      ["wrongly typed params", call("task.send", { type: 12 }, 9), RpcCode.InvalidParams, 9],
      ["an unknown param", call("task.send", { type: "echo", colour: "red" }, 10), RpcCode.InvalidParams, 10],
      ["unknown task type", call("task.send", { type: "teleport" }, 11), RpcCode.UnsupportedTaskType, 11],
      ["unknown task id", call("task.status", { id: "no-such-task" }, 12), RpcCode.TaskNotFound, 12],
      ["cancel of an unknown task", call("task.cancel", { id: "no-such-task" }, 13), RpcCode.TaskNotFound, 13],
    ])("%s", async (_name, body, code, id) => {
      const before = await taskCount();
      const { status, body: answer } = await post(body);
      expect(status).toBe(200);
      expect(answer).toMatchObject({ jsonrpc: "2.0", id, error: { code, message: expect.any(String) } });
      expect(await taskCount()).toBe(before);
    });

    test("invalid params name the field", async () => {
      const { body } = await post(call("task.send", { type: "echo", messages: [{ role: "user", parts: [] }] }));
      expect(body.error.message).toContain("/messages/0/parts");
    });

    test("cancel of a final task is refused and the task stays as it was", async () => {
      const done = (await post(call("task.send", { type: "echo", payload: 1 }))).body.result;
      const { body } = await post(call("task.cancel", { id: done.id }));
      expect(body.error).toMatchObject({ code: RpcCode.TaskNotCancelable });
      expect((await post(call("task.status", { id: done.id }))).body.result).toEqual(done);
    });

    test("a body over the limit is refused, declared or streamed", async () => {
      const before = await taskCount();
      const big = JSON.stringify(call("task.send", { type: "echo", payload: "x".repeat(10_000) }));
      const declared = await fetch(`${url}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: big });
      expect(declared.status).toBe(413);
      expect(await declared.json()).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: RpcCode.InvalidRequest } });
      const bytes = new TextEncoder().encode(big);
      const streamed = await fetch(`${url}/rpc`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: new ReadableStream({
          start(controller) {
            for (let i = 0; i < bytes.length; i += 1000) controller.enqueue(bytes.slice(i, i + 1000));
            controller.close();
          },
        }),
      });
      expect(streamed.status).toBe(413);
      expect(await taskCount()).toBe(before);
    });

    test("batches: each call answered in turn, notifications not at all, an empty batch refused", async () => {
      const before = await taskCount();
      const { body } = await post([
        call("task.send", { type: "echo", payload: "one" }, 1),
        { jsonrpc: "2.0", method: "task.send", params: { type: "echo", payload: "note" } },
        call("nope", {}, 2),
        { jsonrpc: "2.0", id: 3 },
        7,
      ]);
      expect(body).toHaveLength(4);
      expect(body[0]).toMatchObject({ id: 1, result: { state: "completed", result: "one" } });
      expect(body[1]).toMatchObject({ id: 2, error: { code: RpcCode.MethodNotFound } });
      expect(body[2]).toMatchObject({ id: 3, error: { code: RpcCode.InvalidRequest } });
      expect(body[3]).toMatchObject({ id: null, error: { code: RpcCode.InvalidRequest } });
      expect(await taskCount()).toBe(before + 2); // the notification ran too

      const empty = await post([]);
      expect(empty.body).toMatchObject({ id: null, error: { code: RpcCode.InvalidRequest } });
    });

    test("a notification or a batch of them gets 204 and no body", async () => {
      const single = await fetch(`${url}/rpc`, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", method: "task.status", params: { id: "x" } }) });
      expect(single.status).toBe(204);
      expect(await single.text()).toBe("");
      const batch = await post([{ jsonrpc: "2.0", method: "nope" }]);
      expect(batch.status).toBe(204);
    });
  });

  describe("wire surface", () => {
    test("the native card and the v1.0 card", async () => {
      const card = await fetch(`${url}/.well-known/agent.json`).then((r) => r.json());
      expect(card).toMatchObject({ name: "Test agent", url, version: "1.0.0", extensions: { spiffeId: "spiffe://test.local/agent/server" } });
      const v1 = await fetch(`${url}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } }).then((r) => r.json());
      expect(v1).toMatchObject({
        name: "Test agent",
        supportedInterfaces: [
          { url: `${url}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: `${url}/a2a`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
          { url: `${url}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
        ],
        capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false },
      });
    });

    test("CORS: preflight and response headers", async () => {
      const preflight = await fetch(`${url}/rpc`, { method: "OPTIONS" });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get("access-control-allow-methods")).toContain("POST");
      const { headers } = await post(call("task.status", { id: "x" }));
      expect(headers.get("access-control-allow-origin")).toBe("*");
    });

    test("/health reports the task types", async () => {
      expect(await fetch(`${url}/health`).then((r) => r.json())).toMatchObject({ status: "ok", taskTypes: ["echo", "explode", "hold"] });
    });
  });

  describe("SSE task stream", () => {
    test("pushes each stored change with its revision, ends after the final state, resumes from Last-Event-ID", async () => {
      release = gate();
      started = gate<string>();
      const id = (await post(call("task.send", { type: "hold", blocking: false }))).body.result.id as string;
      await started.promise;
      const response = await fetch(`${url}/tasks/${id}/stream`);
      expect(response.headers.get("content-type")).toBe("text/event-stream");
      const reading = readEvents(response);
      release.resolve();
      const events = await reading;
      const states = events.map((e) => JSON.parse(e.data).state);
      expect(states.at(-1)).toBe("completed");
      expect(events.at(-1)!.event).toBe("task.final");
      expect(events.slice(0, -1).every((e) => e.event === "task.update")).toBe(true);
      const revisions = events.map((e) => Number(e.id));
      expect(revisions).toEqual([...revisions].sort((a, b) => a - b));

      // Resumed after the first revision of a finished task: PostgreSQL's event log still holds every revision, so
      // exactly the missed ones come; SQLite keeps no changes of a finished task, so its final state, which subsumes
      // them, comes alone. Then nothing more after the final event.
      const final = Number(events.at(-1)!.id);
      const replay = await readEvents(await fetch(`${url}/tasks/${id}/stream`, { headers: { "last-event-id": "1" } }));
      const missed = Array.from({ length: final - 1 }, (_, i) => i + 2);
      expect(replay.map((e) => Number(e.id))).toEqual(kind === "postgresql" ? missed : [final]);
      const none = await readEvents(await fetch(`${url}/tasks/${id}/stream`, { headers: { "last-event-id": events.at(-1)!.id! } }));
      expect(none).toEqual([]);
    });

    test("a resumed stream of a live task replays exactly what was missed", async () => {
      release = gate();
      started = gate<string>();
      const id = (await post(call("task.send", { type: "hold", blocking: false }))).body.result.id as string;
      await started.promise;
      const first = await readEvents(await fetch(`${url}/tasks/${id}/stream`), () => true); // the current state, then hang up
      const seen = Number(first[0]!.id);
      const resumed = await readEvents(await fetch(`${url}/tasks/${id}/stream`, { headers: { "last-event-id": String(seen - 1) } }), () => true);
      expect(Number(resumed[0]!.id)).toBe(seen);
      const tail = readEvents(await fetch(`${url}/tasks/${id}/stream`, { headers: { "last-event-id": String(seen) } }));
      release.resolve();
      const rest = await tail;
      expect(rest.map((e) => Number(e.id))[0]).toBe(seen + 1);
      expect(JSON.parse(rest.at(-1)!.data).state).toBe("completed");
    });

    test("a client hanging up mid-stream leaves the server serving and the task untouched", async () => {
      release = gate();
      started = gate<string>();
      const id = (await post(call("task.send", { type: "hold", blocking: false }))).body.result.id as string;
      await started.promise;
      const controller = new AbortController();
      const response = await fetch(`${url}/tasks/${id}/stream`, { signal: controller.signal });
      const reader = response.body!.getReader();
      await reader.read();
      controller.abort();
      expect((await post(call("task.status", { id }))).body.result.state).toBe("running");
      release.resolve();
      expect((await server.taskManager.waitForCompletion(id)).state).toBe("completed");
    });

    test("an unknown task's stream is a 404 with a JSON-RPC error", async () => {
      const response = await fetch(`${url}/tasks/nope/stream`);
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: { code: RpcCode.TaskNotFound } });
    });
  });

  describe("tasks of one caller and another", () => {
    let agent: Awaited<ReturnType<typeof startAgent>>;
    let tasks: Awaited<ReturnType<typeof storedTasks>>;
    beforeAll(async () => {
      tasks = await storedTasks((await fixture.fresh(kind)).env);
      // Stands in for the mTLS front (tested in tests/a2a/mtls.test.ts): the caller is whoever the header names.
      agent = await startAgent({ taskManager: tasks.manager, identify: (request) => request.headers.get("x-test-caller") ?? undefined }, (s) =>
        s.registerTaskHandler("note", (task) => task),
      );
    });
    afterAll(async () => {
      await agent.server.stop();
      await tasks.close();
    });
    const as = (caller: string | undefined): Record<string, string> => (caller ? { "x-test-caller": caller } : {});
    const sendAs = async (caller: string | undefined) =>
      (await agent.rpc(call("task.send", { type: "note", payload: {} }), as(caller))).body.result.id as string;
    const listAs = async (caller: string | undefined) =>
      (await agent.rpc(call("ListTasks", {}), as(caller))).body.result.tasks.map((t: { id: string }) => t.id) as string[];

    test("ListTasks shows a caller only the tasks it sent; unidentified callers share theirs", async () => {
      const ada = await sendAs("spiffe://test.local/ada");
      const bob = await sendAs("spiffe://test.local/bob");
      const nobody = await sendAs(undefined);
      expect(await listAs("spiffe://test.local/ada")).toEqual([ada]);
      expect(await listAs("spiffe://test.local/bob")).toEqual([bob]);
      expect(await listAs(undefined)).toEqual([nobody]);
    });

    test("GetExtendedAgentCard is -32007 when the agent has no extended card", async () => {
      const { body } = await agent.rpc(call("GetExtendedAgentCard", {}), as("spiffe://test.local/ada"));
      expect(body.error).toMatchObject({ code: -32007, message: "This agent has no extended agent card" });
    });

    test("bad ListTasks filters are invalid params naming the field", async () => {
      for (const [params, path] of [
        [{ status: "TASK_STATE_SLEEPING" }, "/status"],
        [{ statusTimestampAfter: "yesterday" }, "/statusTimestampAfter"],
        [{ pageToken: "-4" }, "/pageToken"],
        [{ pageSize: 500 }, "/pageSize"],
      ] as const) {
        const { body } = await agent.rpc(call("ListTasks", params));
        expect(body.error).toMatchObject({ code: -32602, data: { path } });
      }
    });
  });

  describe("the HTTP+JSON binding on the wire", () => {
    test("errors carry the HTTP status, the status name and the A2A reason; unknown routes are 404", async () => {
      const missing = await fetch(`${url}/a2a/tasks/no-such-task`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({
        error: {
          code: 404,
          status: "NOT_FOUND",
          message: "Task not found: no-such-task",
          details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { id: "no-such-task" } }],
        },
      });
      const route = await fetch(`${url}/a2a/tasks/x:juggle`, { method: "POST" });
      expect(route.status).toBe(404);
      const bad = await fetch(`${url}/a2a/message:send`, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { status: string } }).error.status).toBe("INVALID_ARGUMENT");
    });

    test("a message sent over HTTP+JSON is the same task JSON-RPC reads", async () => {
      const sent = await fetch(`${url}/a2a/message:send`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ data: { n: 1 } }] }, metadata: { taskType: "echo" } }),
      });
      expect(sent.status).toBe(200);
      const { task } = (await sent.json()) as { task: { id: string; status: { state: string } } };
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      expect((await post(call("GetTask", { id: task.id }))).body.result).toMatchObject({ id: task.id, status: { state: "TASK_STATE_COMPLETED" } });
    });
  });

  test("a request naming an A2A version this server does not speak is VersionNotSupported, on both bindings", async () => {
    const { body } = await post(call("GetTask", { id: "x" }), { "a2a-version": "2.0" });
    expect(body.error).toMatchObject({ code: -32009, message: "A2A version 2.0 is not supported; this agent speaks 1.0 and 0.3" });
    const rest = await fetch(`${url}/a2a/tasks/x`, { headers: { "a2a-version": "2.0" } });
    expect(rest.status).toBe(400);
    expect(((await rest.json()) as { error: { details: { reason: string }[] } }).error.details[0]!.reason).toBe("VERSION_NOT_SUPPORTED");
    expect((await post(call("GetTask", { id: "x" }), { "a2a-version": "1.0" })).body.error.code).toBe(-32001);
  });
});
