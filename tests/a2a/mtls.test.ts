/**
 * The platform's own agent reached as a standard client reaches it: the official @a2a-js/sdk client over the mTLS
 * listener, presenting an SVID from the development CA, under the policy shipped in policies/.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, RestTransportFactory, type Client } from "@a2a-js/sdk/client";
import { TaskState } from "@a2a-js/sdk";
import { startPlatformAgent } from "./support.ts";

const planner = "spiffe://platform.local/agent/planner";
let agent: Awaited<ReturnType<typeof startPlatformAgent>>;
let client: Client;

/** The official client over `binding`, fetching (card included) with `fetchImpl`. */
const officialClient = (url: string, binding: "JSONRPC" | "HTTP+JSON", fetchImpl: typeof fetch = fetch) =>
  new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl }), new RestTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
      preferredTransports: [binding],
    }),
  ).createFromUrl(url);

/** A message of one part: text, or data (a task's payload). */
const message = (content: string | Record<string, unknown>, contextId = "") => ({
  messageId: crypto.randomUUID(),
  contextId,
  taskId: "",
  role: 1 /* ROLE_USER */,
  parts: [
    {
      content: typeof content === "string" ? { $case: "text" as const, value: content } : { $case: "data" as const, value: content },
      metadata: undefined,
      filename: "",
      mediaType: "",
    },
  ],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});
const send = (text: string | Record<string, unknown>, metadata?: Record<string, unknown>, contextId = "", returnImmediately = false) =>
  client.sendMessage({
    tenant: "",
    message: message(text, contextId),
    configuration: returnImmediately ? { acceptedOutputModes: [], historyLength: undefined, taskPushNotificationConfig: undefined, returnImmediately } : undefined,
    metadata,
  }) as Promise<{ id: string; contextId: string; status?: { state: number; timestamp?: string }; metadata?: Record<string, unknown> }>;
const listAll = (filter: Partial<Parameters<Client["listTasks"]>[0]>) =>
  client.listTasks({ tenant: "", contextId: "", status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: "", statusTimestampAfter: undefined, ...filter });

beforeAll(async () => {
  agent = await startPlatformAgent({ PLATFORM_A2A__DEFAULT_SKILL: "health", PLATFORM_A2A__PUBLIC_SKILLS: "health,add" });
});
afterAll(() => agent.close());

// The same tests over each binding the card declares.
for (const binding of ["JSONRPC", "HTTP+JSON"] as const) describe(`over ${binding}`, () => {
  beforeAll(async () => {
    client = await officialClient(agent.mtlsUrl, binding, await agent.identity(planner));
    expect((client as unknown as { transport: { protocolName: string } }).transport.protocolName).toBe(binding);
  });

  test("the card fetched over mTLS names the mTLS URL; over plain HTTP the plain one", async () => {
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces.map((i) => i.url)).toContain(`${agent.mtlsUrl}/rpc`);
    const plain = (await fetch(`${agent.plainUrl}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } }).then((r) => r.json())) as { supportedInterfaces: { url: string }[] };
    expect(plain.supportedInterfaces[0]!.url).toBe(`${agent.plainUrl}/rpc`);
  });

  test("a plain message (no task type) runs the default skill; an unknown skill is refused naming the skills", async () => {
    const task = await send("how is the platform?");
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.metadata).toMatchObject({ taskType: "health" });
    const error = await send("x", { taskType: "juggle" }).catch((e) => e);
    expect(error.message).toContain("Unsupported task type: juggle; this agent runs: ");
    expect(error.message).toContain("health");
  });

  test("ListTasks shows the caller its own tasks under the shipped policy, with every filter of the spec", async () => {
    const context = crypto.randomUUID();
    const first = await send("one", { taskType: "health" }, context);
    const between = first.status!.timestamp!;
    // Timestamps are in milliseconds: the next tasks must be strictly later than the first's last change.
    while (Date.now() <= Date.parse(between)) await new Promise((resolve) => setImmediate(resolve));
    const running = await send({ steps: 1 }, { taskType: "count_down" }, context, true);
    const other = await send("three", { taskType: "health" });
    expect(first.contextId).toBe(context);

    const inContext = await listAll({ contextId: context });
    expect(inContext.tasks.map((t) => t.id).sort()).toEqual([first.id, running.id].sort());
    expect(inContext.totalSize).toBe(2);

    const completedHere = await listAll({ contextId: context, status: TaskState.TASK_STATE_COMPLETED });
    expect(completedHere.tasks.map((t) => t.id)).toEqual([first.id]);

    const later = await listAll({ statusTimestampAfter: between });
    expect(later.tasks.map((t) => t.id)).toContain(other.id);
    expect(later.tasks.map((t) => t.id)).not.toContain(first.id);

    const pages: string[] = [];
    let token = "";
    do {
      const page = await listAll({ contextId: context, pageSize: 1, pageToken: token });
      expect(page.tasks.length).toBe(1);
      pages.push(page.tasks[0]!.id);
      token = page.nextPageToken;
    } while (token);
    expect(pages.sort()).toEqual([first.id, running.id].sort());

    const bare = await listAll({ contextId: context, status: TaskState.TASK_STATE_COMPLETED, historyLength: 0 });
    expect(bare.tasks[0]!.history).toEqual([]);
    expect(bare.tasks[0]!.artifacts).toEqual([]);
    const full = await listAll({ contextId: context, status: TaskState.TASK_STATE_COMPLETED, includeArtifacts: true });
    expect(full.tasks[0]!.artifacts.map((a) => a.name)).toEqual(["result"]);
    expect(full.tasks[0]!.history.length).toBe(1);
    await client.cancelTask({ tenant: "", id: running.id, metadata: undefined });
  });

  test("subscribing to a final task is UnsupportedOperation", async () => {
    const done = await send("done", { taskType: "health" });
    const error = await (async () => {
      for await (const _ of client.resubscribeTask({ tenant: "", id: done.id })) return undefined;
    })().catch((e) => e);
    expect(error?.name).toBe("UnsupportedOperationError");
    expect(error.message).toContain("a final task has no updates to subscribe to");
  });

  test("the public card lists the public skills; an authenticated caller reads the rest in the extended card", async () => {
    const publicCard = (await fetch(`${agent.plainUrl}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } }).then((r) => r.json())) as {
      skills: { id: string }[];
      capabilities: { extendedAgentCard: boolean };
    };
    expect(publicCard.skills.map((s) => s.id).sort()).toEqual(["add", "health"]);
    expect(publicCard.capabilities.extendedAgentCard).toBe(true);
    const extended = await client.getAgentCard();
    expect(extended.skills.map((s) => s.id)).toEqual(expect.arrayContaining(["add", "health", "count_down", "explode"]));

    const anonymous = await fetch(`${agent.plainUrl}/rpc`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetExtendedAgentCard", params: {} }),
    }).then((r) => r.json() as Promise<{ error: { code: number } }>);
    expect(anonymous.error.code).toBe(-32020);
  });
});
