/**
 * The off-the-shelf @a2a-js/sdk client against this server over loopback: v1.0 over both bindings the card declares
 * (JSON-RPC and HTTP+JSON, the same tests for each), and v0.3 through its compat layer.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ClientFactory, ClientFactoryOptions, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { TaskState } from "@a2a-js/sdk";
import type { A2AServer } from "../../src/a2a/index.ts";
import { type Hold, startHoldingAgent } from "./support.ts";

let server: A2AServer;
let url = "";
let hold: Hold;

beforeAll(async () => {
  ({ server, url, hold } = await startHoldingAgent());
});
afterAll(() => server.stop());

const textMessage = (text: string, metadata?: Record<string, unknown>) => ({
  messageId: crypto.randomUUID(),
  contextId: "",
  taskId: "",
  role: 1 /* ROLE_USER */,
  parts: [{ content: { $case: "text" as const, value: text }, metadata: undefined, filename: "", mediaType: "" }],
  metadata,
  extensions: [],
  referenceTaskIds: [],
});
const sendRequest = (text: string, metadata?: Record<string, unknown>) => ({
  tenant: "",
  message: textMessage(text),
  configuration: undefined,
  metadata,
});

for (const binding of ["JSONRPC", "HTTP+JSON"] as const) describe(`v1.0 over ${binding}`, () => {
  /** The official client, choosing `binding` among the card's interfaces. */
  const connect = async (clientConfig: { polling?: boolean } = {}): Promise<Client> => {
    const options = ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding], clientConfig });
    const client = await new ClientFactory(options).createFromUrl(url);
    expect((client as unknown as { transport: { protocolName: string } }).transport.protocolName).toBe(binding);
    return client;
  };

  test("discovers the card, sends a message and gets the completed task", async () => {
    const client = await connect();
    const result = await client.sendMessage(sendRequest("hello"));
    expect("status" in result).toBe(true);
    const task = result as Exclude<typeof result, { messageId: string }>;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.metadata).toMatchObject({ taskType: "echo" });
    expect(task.history.map((m) => m.role)).toEqual([1, 2]);
    expect(task.artifacts[0]!.parts[0]!.content).toEqual({ $case: "data", value: { text: "hello" } });
    const fetched = await client.getTask({ tenant: "", id: task.id, historyLength: 1 });
    expect(fetched.history).toHaveLength(1);
    expect(fetched.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  test("streams a task from submitted or working to completed", async () => {
    const client = await connect();
    hold.arm();
    const events: { $case: string; state?: number }[] = [];
    const stream = client.sendMessageStream(sendRequest("go", { taskType: "hold" }));
    let releaseSent = false;
    for await (const event of stream) {
      const payload = event.payload!;
      const state = payload.$case === "task" ? payload.value.status?.state : payload.$case === "statusUpdate" ? payload.value.status?.state : undefined;
      events.push({ $case: payload.$case, state });
      if (!releaseSent) {
        releaseSent = true;
        await hold.started.promise;
        hold.release.resolve();
      }
    }
    expect(events[0]!.$case).toBe("task");
    expect(events.at(-1)).toEqual({ $case: "statusUpdate", state: TaskState.TASK_STATE_COMPLETED });
    expect(events.filter((e) => e.$case === "artifactUpdate")).toHaveLength(1); // the result, as it appeared
  });

  test("cancels a working task; cancelling again is TaskNotCancelable", async () => {
    const client = await connect({ polling: true });
    hold.arm();
    const sent = (await client.sendMessage(sendRequest("wait", { taskType: "hold" }))) as { id: string };
    await hold.started.promise;
    const cancelled = await client.cancelTask({ tenant: "", id: sent.id, metadata: undefined });
    expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const error = await client.cancelTask({ tenant: "", id: sent.id, metadata: undefined }).catch((e) => e);
    expect(error.name).toBe("TaskNotCancelableError");
    const missing = await client.getTask({ tenant: "", id: "no-such-task" }).catch((e) => e);
    expect(missing.name).toBe("TaskNotFoundError");
  });

  test("lists tasks by state", async () => {
    const client = await connect();
    const list = await client.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_CANCELED, pageToken: "", statusTimestampAfter: undefined });
    expect(list.tasks.length).toBeGreaterThan(0);
    expect(list.tasks.every((t) => t.status?.state === TaskState.TASK_STATE_CANCELED)).toBe(true);
  });
});

describe("v0.3 through the SDK's compat transport", () => {
  const legacyClient = async () => {
    const card = (await fetch(`${url}/.well-known/agent-card.json`).then((r) => r.json())) as any;
    card.supportedInterfaces = card.supportedInterfaces.filter((i: { protocolVersion: string }) => i.protocolVersion === "0.3");
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ legacyCompat: { enabled: true } })] }),
    );
    return factory.createFromAgentCard(card);
  };

  test("message/send, tasks/get, message/stream and tasks/cancel", async () => {
    const client = await legacyClient();
    expect(client.protocolVersion).toBe("0.3");
    const task = (await client.sendMessage(sendRequest("old hello"))) as { id: string; status?: { state: number } };
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect((await client.getTask({ tenant: "", id: task.id })).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

    hold.arm();
    const cases: string[] = [];
    let id = "";
    for await (const event of client.sendMessageStream(sendRequest("stream", { taskType: "hold" }))) {
      const payload = event.payload!;
      cases.push(payload.$case);
      if (payload.$case === "task") {
        id = payload.value.id;
        await hold.started.promise;
        const cancelled = await client.cancelTask({ tenant: "", id, metadata: undefined });
        expect(cancelled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      }
    }
    expect(cases[0]).toBe("task");
    expect(cases.at(-1)).toBe("statusUpdate");
    expect((await server.taskManager.getTask(id))!.state).toBe("cancelled");
  });
});
