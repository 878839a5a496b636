/**
 * A v0.3 client as its users run it: the official @a2a-js/sdk 0.3 client (npm alias a2a-sdk-v03) discovers the
 * v0.3 card and speaks message/send, message/stream, tasks/get, tasks/cancel and tasks/resubscribe.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ClientFactory, TaskNotCancelableError, UnsupportedOperationError, type Client } from "a2a-sdk-v03/client";
import type { A2AServer } from "../../src/a2a/index.ts";
import { type Hold, startHoldingAgent } from "./support.ts";

let server: A2AServer;
let url = "";
let client: Client;
let hold: Hold;

beforeAll(async () => {
  ({ server, url, hold } = await startHoldingAgent());
  client = await new ClientFactory().createFromUrl(url);
});
afterAll(() => server.stop());

const message = (text: string) => ({ kind: "message" as const, messageId: crypto.randomUUID(), role: "user" as const, parts: [{ kind: "text" as const, text }] });

test("a client asking without a version discovers the v0.3 card; one asking for 1.0 gets the v1.0 card", async () => {
  const card = await client.getAgentCard();
  expect(card).toMatchObject({ protocolVersion: "0.3.0", url: `${url}/rpc`, preferredTransport: "JSONRPC", capabilities: { streaming: true } });
  expect(card.securitySchemes).toEqual({ spiffe: { type: "mutualTLS", description: expect.any(String) } });
  const v1 = (await fetch(`${url}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } }).then((r) => r.json())) as Record<string, unknown>;
  expect(v1.protocolVersion).toBeUndefined();
  expect(v1.supportedInterfaces).toContainEqual({ url: `${url}/rpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" });
  // The native card stays at agent.json for native clients; naming a version there gets that version's card.
  expect(await fetch(`${url}/.well-known/agent.json`).then((r) => r.json())).toMatchObject({ capabilities: expect.any(Array) });
  expect(await fetch(`${url}/.well-known/agent.json`, { headers: { "a2a-version": "0.3" } }).then((r) => r.json())).toMatchObject({ protocolVersion: "0.3.0" });
});

test("message/send answers the completed task in v0.3 shapes; tasks/get reads it back", async () => {
  const task = (await client.sendMessage({ message: message("hello") })) as any;
  expect(task).toMatchObject({ kind: "task", status: { state: "completed" }, metadata: { taskType: "echo" } });
  expect(task.history.map((m: { role: string }) => m.role)).toEqual(["user", "agent"]);
  expect(task.artifacts[0].parts[0]).toEqual({ kind: "data", data: { text: "hello" } });
  const fetched = await client.getTask({ id: task.id, historyLength: 1 });
  expect(fetched).toMatchObject({ id: task.id, status: { state: "completed" } });
  expect(fetched.history).toHaveLength(1);
});

test("message/stream follows a task to the end; tasks/cancel cancels one working", async () => {
  hold.arm();
  const kinds: string[] = [];
  let id = "";
  for await (const event of client.sendMessageStream({ message: message("go"), metadata: { taskType: "hold" } })) {
    kinds.push(event.kind === "status-update" ? `status:${event.status.state}${event.final ? ":final" : ""}` : event.kind);
    if (event.kind === "task") {
      id = event.id;
      await hold.started.promise;
      hold.release.resolve();
    }
  }
  expect(kinds[0]).toBe("task");
  expect(kinds.at(-1)).toBe("status:completed:final");
  expect(kinds).toContain("artifact-update");
  expect((await server.taskManager.getTask(id))!.state).toBe("completed");

  hold.arm();
  const held = (await client.sendMessage({ message: message("wait"), metadata: { taskType: "hold" }, configuration: { blocking: false } })) as { id: string };
  await hold.started.promise;
  expect(await client.cancelTask({ id: held.id })).toMatchObject({ status: { state: "canceled" } });
  const again = await client.cancelTask({ id: held.id }).catch((e) => e);
  expect(again).toBeInstanceOf(TaskNotCancelableError);
});

test("tasks/resubscribe follows a working task; on a final one it is UnsupportedOperation", async () => {
  hold.arm();
  const held = (await client.sendMessage({ message: message("later"), metadata: { taskType: "hold" }, configuration: { blocking: false } })) as { id: string };
  await hold.started.promise;
  const states: string[] = [];
  for await (const event of client.resubscribeTask({ id: held.id })) {
    if (event.kind === "task") hold.release.resolve();
    if (event.kind === "status-update") states.push(event.status.state);
  }
  expect(states.at(-1)).toBe("completed");
  const error = await (async () => {
    for await (const _ of client.resubscribeTask({ id: held.id })) return undefined;
  })().catch((e) => e);
  // The v0.3 client reports an error event of a stream with the typed error as its cause.
  expect(error.cause).toBeInstanceOf(UnsupportedOperationError);
  expect(error.message).toContain("a final task has no updates to subscribe to");
});
