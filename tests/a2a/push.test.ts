/**
 * Push notifications end to end: configs set and read with the official clients, each state change POSTed to a
 * webhook on loopback with the configured authentication, retries with backoff and a record per attempt, the
 * vault's egress rules, and a delivery that survives a restart of the runtime.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ClientFactory, ClientFactoryOptions, type Client } from "@a2a-js/sdk/client";
import { ClientFactory as ClientFactory03, type Client as Client03 } from "a2a-sdk-v03/client";
import { join } from "node:path";
import { a2aCapability } from "../../src/a2a/capability.ts";
import { pushAttempts } from "../../src/a2a/repo.ts";
import { authzCapability } from "../../src/authz/capability.ts";
import { issueToFolder } from "../../src/identity/issue.ts";
import { platformCapability } from "../../src/platform/tools.ts";
import { fixtureCapability } from "../fixtures/capability.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { stores, storesForFile } from "../support/stores.ts";
import { tempDir } from "../support/temp.ts";
import { call, openAuthorization, rpc } from "./support.ts";

/** A webhook on loopback: records each POST, answers with the next of `answers` (then 200). */
function webhook() {
  const received: { headers: Headers; body: any }[] = [];
  const answers: number[] = [];
  let arrived = Promise.withResolvers<void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      received.push({ headers: request.headers, body: await request.json() });
      arrived.resolve();
      arrived = Promise.withResolvers<void>();
      return new Response(null, { status: answers.shift() ?? 200 });
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}/hook`,
    received,
    answers,
    /** Resolves once `n` notifications have arrived. */
    async count(n: number) {
      while (received.length < n) await arrived.promise;
    },
    stop: () => server.stop(true),
  };
}

const hook = webhook();
afterAll(() => hook.stop());
const fixture = storesForFile();
const settings = { ...openAuthorization, PLATFORM_A2A__PUSH__ALLOW_ADDRESSES: "loopback", PLATFORM_A2A__PUSH__RETRY_MS: "20", PLATFORM_VAULT__SETUP_ENABLED: "false" };

describe.each(stores)("on %s", (kind) => {
  const dataDir = tempDir();
  let store: Record<string, string>;
  const start = () => startApp([platformCapability, authzCapability, a2aCapability, fixtureCapability], { env: { ...settings, ...store }, dataDir: dataDir.path });
  let app: RunningApp;
  let client: Client;

  beforeAll(async () => {
    store = (await fixture.fresh(kind)).env;
    app = await start();
    client = await new ClientFactory().createFromUrl(app.base);
  });
  afterAll(async () => {
    await app.close();
    dataDir.remove();
  });

  /** A task that runs until cancelled. */
  const runningTask = async () => (await rpc(app.base, call("task.send", { type: "count_down", payload: { steps: 1 }, blocking: false }))).body.result.id as string;
  /** Every attempt is stored with the transition it caused; wait until `done` holds of the task's records. */
  async function attemptsUntil(taskId: string, done: (outcomes: string[]) => boolean) {
    for (;;) {
      const outcomes = (await pushAttempts(app.runtime.database.db, taskId)).map((a) => a.outcome);
      if (done(outcomes)) return outcomes;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  for (const binding of ["JSONRPC", "HTTP+JSON"] as const)
    test(`configs are created, read, listed and deleted with the official v1.0 client over ${binding}; the card says it pushes`, async () => {
      const client = await new ClientFactory(ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] })).createFromUrl(app.base);
      expect((await client.getAgentCard()).capabilities?.pushNotifications).toBe(true);
      const taskId = await runningTask();
      const created = await client.createTaskPushNotificationConfig({ tenant: "", id: "ci", taskId, url: hook.url, token: "tok-1", authentication: { scheme: "Bearer", credentials: "s3cret" } });
      expect(created).toMatchObject({ id: "ci", taskId, url: hook.url, token: "tok-1", authentication: { scheme: "Bearer" } });
      expect(JSON.stringify(created)).not.toContain("s3cret");
      expect(await client.getTaskPushNotificationConfig({ tenant: "", taskId, id: "ci" })).toMatchObject({ id: "ci", url: hook.url });
      expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" })).configs.map((c) => c.id)).toEqual(["ci"]);
      await client.deleteTaskPushNotificationConfig({ tenant: "", taskId, id: "ci" });
      expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" })).configs).toEqual([]);
      const missing = await client.getTaskPushNotificationConfig({ tenant: "", taskId, id: "ci" }).catch((e) => e);
      expect(missing.name).toBe("TaskNotFoundError");
      await rpc(app.base, call("task.cancel", { id: taskId }));
    });

  test("a state change is POSTed with the bearer credentials and the token; a failing webhook is retried, each attempt recorded", async () => {
    const taskId = await runningTask();
    await client.createTaskPushNotificationConfig({ tenant: "", id: "", taskId, url: hook.url, token: "tok-2", authentication: { scheme: "Bearer", credentials: "s3cret" } });
    const before = hook.received.length;
    hook.answers.push(503, 503);
    await rpc(app.base, call("task.cancel", { id: taskId }));
    await hook.count(before + 3);
    const [first, , last] = hook.received.slice(before);
    expect(first!.headers.get("authorization")).toBe("Bearer s3cret");
    expect(first!.headers.get("x-a2a-notification-token")).toBe("tok-2");
    expect(last!.body).toMatchObject({ task: { id: taskId, status: { state: "TASK_STATE_CANCELED" } } });
    expect(await attemptsUntil(taskId, (o) => o.includes("delivered"))).toEqual(["retrying", "retrying", "delivered"]);
    const attempts = await pushAttempts(app.runtime.database.db, taskId);
    expect(attempts.map((a) => [a.attempt, a.status])).toEqual([[1, 503], [2, 503], [3, 200]]);
    // Backoff: each wait at least the one before it, doubled from 20 ms.
    expect(attempts[1]!.at.getTime() - attempts[0]!.at.getTime()).toBeGreaterThanOrEqual(20);
    expect(attempts[2]!.at.getTime() - attempts[1]!.at.getTime()).toBeGreaterThanOrEqual(40);
  });

  test("a config sent with the message itself pushes even the task's first change, here its completion", async () => {
    const before = hook.received.length;
    const result = (await client.sendMessage({
      tenant: "",
      message: {
        messageId: crypto.randomUUID(),
        contextId: "",
        taskId: "",
        role: 1,
        parts: [{ content: { $case: "data", value: { a: 20, b: 22 } }, metadata: undefined, filename: "", mediaType: "" }],
        metadata: { taskType: "add" },
        extensions: [],
        referenceTaskIds: [],
      },
      configuration: {
        acceptedOutputModes: [],
        historyLength: undefined,
        returnImmediately: false,
        taskPushNotificationConfig: { tenant: "", id: "", taskId: "", url: hook.url, token: "tok-send", authentication: undefined },
      },
      metadata: undefined,
    })) as { id: string };
    await hook.count(before + 1);
    expect(hook.received[before]!.headers.get("x-a2a-notification-token")).toBe("tok-send");
    expect(hook.received[before]!.body).toMatchObject({ task: { id: result.id, status: { state: "TASK_STATE_COMPLETED" } } });
  });

  test("the v0.3 client sets a config and receives the task in v0.3 shape", async () => {
    const legacy: Client03 = await new ClientFactory03().createFromUrl(app.base);
    const taskId = await runningTask();
    const set = await legacy.setTaskPushNotificationConfig({ taskId, pushNotificationConfig: { url: hook.url, token: "tok-3" } });
    const configId = set.pushNotificationConfig.id!;
    expect(configId).toBeString();
    expect(set).toMatchObject({ taskId, pushNotificationConfig: { url: hook.url, token: "tok-3" } });
    expect(await legacy.listTaskPushNotificationConfig({ id: taskId })).toHaveLength(1);
    const before = hook.received.length;
    await rpc(app.base, call("task.cancel", { id: taskId }));
    await hook.count(before + 1);
    expect(hook.received[before]!.body).toMatchObject({ kind: "task", id: taskId, status: { state: "canceled" } });
    await legacy.deleteTaskPushNotificationConfig({ id: taskId, pushNotificationConfigId: configId });
    expect(await legacy.listTaskPushNotificationConfig({ id: taskId })).toEqual([]);
  });

  test("webhooks at addresses the egress rules forbid are refused, and nothing is stored", async () => {
    const taskId = await runningTask();
    for (const url of ["http://169.254.169.254/latest", "ftp://127.0.0.1/x", "http://user:pw@127.0.0.1/x"]) {
      const error = await client.createTaskPushNotificationConfig({ tenant: "", id: "", taskId, url, token: "", authentication: undefined }).catch((e) => e);
      expect(error.message).toContain("Invalid params at /url");
    }
    expect((await client.listTaskPushNotificationConfig({ tenant: "", taskId, pageSize: 0, pageToken: "" })).configs).toEqual([]);
    await rpc(app.base, call("task.cancel", { id: taskId }));
  });

  test("a webhook that authenticates callers by mTLS gets the agent's own SVID, the scheme on its card", async () => {
    const svid = join(dataDir.path, "webhook-svid");
    await issueToFolder(app.runtime.config, "spiffe://platform.local/service/webhook", svid, 3600);
    const ca = await Bun.file(join(svid, "bundle.pem")).text();
    const arrived = Promise.withResolvers<unknown>();
    const secured = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      // Only clients presenting a certificate from the trust bundle get through.
      tls: { cert: Bun.file(join(svid, "svid.pem")), key: Bun.file(join(svid, "svid.key")), ca, requestCert: true, rejectUnauthorized: true },
      fetch: async (request) => (arrived.resolve(await request.json()), new Response(null, { status: 204 })),
    });
    try {
      const url = `https://127.0.0.1:${secured.port}/hook`;
      const anonymous = await fetch(url, { method: "POST", body: "{}", tls: { ca, checkServerIdentity: () => undefined } } as RequestInit).then(() => "served", () => "refused");
      expect(anonymous).toBe("refused");
      const taskId = await runningTask();
      await client.createTaskPushNotificationConfig({ tenant: "", id: "", taskId, url, token: "", authentication: { scheme: "mTLS", credentials: "" } });
      await rpc(app.base, call("task.cancel", { id: taskId }));
      expect(await arrived.promise).toMatchObject({ task: { id: taskId, status: { state: "TASK_STATE_CANCELED" } } });
      expect(await attemptsUntil(taskId, (o) => o.includes("delivered"))).toEqual(["delivered"]);
    } finally {
      secured.stop(true);
    }
  });

  test("a delivery waiting for its retry when the runtime stops is delivered after the restart", async () => {
    const taskId = await runningTask();
    await client.createTaskPushNotificationConfig({ tenant: "", id: "", taskId, url: hook.url, token: "", authentication: undefined });
    hook.answers.push(...Array<number>(20).fill(500));
    await rpc(app.base, call("task.cancel", { id: taskId }));
    await attemptsUntil(taskId, (o) => o.length > 0);
    await app.close();
    hook.answers.length = 0; // the webhook is back
    const restartedAt = Date.now();
    app = await start();
    client = await new ClientFactory().createFromUrl(app.base);
    const outcomes = await attemptsUntil(taskId, (o) => o.includes("delivered"));
    expect(outcomes.at(-1)).toBe("delivered");
    expect(outcomes.slice(0, -1).every((o) => o === "retrying")).toBe(true);
    const attempts = await pushAttempts(app.runtime.database.db, taskId);
    // One delivery throughout: the actor restored from its stored snapshot, not a new notification.
    expect(new Set(attempts.map((a) => a.deliveryId)).size).toBe(1);
    expect(attempts.at(-1)!.at.getTime()).toBeGreaterThanOrEqual(restartedAt);
  });
});
