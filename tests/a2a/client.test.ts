import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  A2AClient,
  A2ATimeoutError,
  DiscoveryClient,
  DiscoveryError,
  RpcCode,
  TaskStatusError,
  TaskSubmissionError,
  type A2AServer,
} from "../../src/a2a/index.ts";
import { gate, startAgent } from "./support.ts";

let server: A2AServer;
let url = "";
let release = gate();
let started = gate<string>();
const client = new A2AClient({ timeout: 5, maxRetries: 2 });

beforeAll(async () => {
  ({ server, url } = await startAgent({}, (s) => {
    s.registerTaskHandler("echo", (task) => {
      task.result = { echoed: task.payload, messages: task.messages.length };
      return task;
    });
    s.registerTaskHandler("explode", () => {
      throw new Error("no such luck");
    });
    s.registerTaskHandler("hold", async (task, { signal, update }) => {
      task.addMessage("agent", "started");
      update(task);
      started.resolve(task.id);
      await Promise.race([release.promise, new Promise((resolve) => signal.addEventListener("abort", resolve))]);
      task.result = "released";
      return task;
    });
  }));
});
afterAll(async () => {
  await client.close();
  await server.stop();
});

/** A stand-in front end that answers 503 `failures` times, then passes requests to the agent. */
function flakyProxy(failures: number) {
  let seen = 0;
  const proxy = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      seen++;
      if (seen <= failures) return new Response("busy", { status: 503 });
      const target = new URL(request.url);
      return fetch(`${url}${target.pathname}`, { method: request.method, headers: request.headers, body: await request.text() || undefined });
    },
  });
  return { url: `http://127.0.0.1:${proxy.port}`, seen: () => seen, stop: () => proxy.stop(true) };
}

describe("A2AClient", () => {
  test("sendTask waits for the final task; getTaskStatus reads it back", async () => {
    const task = await client.sendTask(url, "echo", { n: 1 }, { messages: [{ role: "user", parts: [{ kind: "text", text: "hi" }] }], metadata: { trace: "x" } });
    expect(task).toMatchObject({ type: "echo", state: "completed", result: { echoed: { n: 1 }, messages: 1 }, metadata: { trace: "x" } });
    expect(task.isTerminal()).toBe(true);
    expect((await client.getTaskStatus(url, task.id)).toDict()).toEqual(task.toDict());
  });

  test("a failing handler's task comes back failed; protocol errors are typed with their code", async () => {
    expect(await client.sendTask(url, "explode", {})).toMatchObject({ state: "failed", error: "no such luck" });
    const unsupported = await client.sendTask(url, "teleport", {}).catch((e) => e);
    expect(unsupported).toBeInstanceOf(TaskSubmissionError);
    expect(unsupported.code).toBe(RpcCode.UnsupportedTaskType);
    const missing = await client.getTaskStatus(url, "no-such-task").catch((e) => e);
    expect(missing).toBeInstanceOf(TaskStatusError);
    expect(missing.code).toBe(RpcCode.TaskNotFound);
  });

  test("streamTaskUpdates yields each state to the final one; pollUntilComplete and cancelTask", async () => {
    release = gate();
    started = gate<string>();
    const accepted = await client.sendTask(url, "hold", {}, { blocking: false });
    await started.promise;
    const states: string[] = [];
    for await (const task of client.streamTaskUpdates(url, accepted.id)) {
      states.push(task.state);
      if (task.state === "running") release.resolve();
    }
    expect(states.at(-1)).toBe("completed");
    expect((await client.pollUntilComplete(url, accepted.id, 0.01)).result).toBe("released");

    release = gate();
    started = gate<string>();
    const other = await client.sendTask(url, "hold", {}, { blocking: false });
    await started.promise;
    const timeout = await client.pollUntilComplete(url, other.id, 0.01, 0.05).catch((e) => e);
    expect(timeout).toBeInstanceOf(A2ATimeoutError);
    expect((await client.cancelTask(url, other.id)).state).toBe("cancelled");
    const again = await client.cancelTask(url, other.id).catch((e) => e);
    expect(again.code).toBe(RpcCode.TaskNotCancelable);
  });

  test("retries 5xx answers with backoff, and gives up after maxRetries", async () => {
    const flaky = flakyProxy(2);
    expect((await client.sendTask(flaky.url, "echo", 1)).state).toBe("completed");
    expect(flaky.seen()).toBe(3);
    flaky.stop();
    const worse = flakyProxy(10);
    const error = await client.sendTask(worse.url, "echo", 1).catch((e) => e);
    expect(error).toBeInstanceOf(TaskSubmissionError);
    expect(worse.seen()).toBe(3);
    worse.stop();
  });

  test("connection errors are retried, then reported; a 4xx is not retried", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const deadUrl = `http://127.0.0.1:${closed.port}`;
    closed.stop(true);
    const error = await new A2AClient({ maxRetries: 1 }).getTaskStatus(deadUrl, "x").catch((e) => e);
    expect(error).toBeInstanceOf(TaskStatusError);
    expect(error.message).toContain("task.status");

    let hits = 0;
    const notFound = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (hits++, new Response("no", { status: 404 })) });
    const refused = await client.getTaskStatus(`http://127.0.0.1:${notFound.port}`, "x").catch((e) => e);
    expect(refused).toBeInstanceOf(TaskStatusError);
    expect(hits).toBe(1);
    notFound.stop(true);
  });

  test("a request over the client's timeout is a timeout error", async () => {
    const { promise: never } = Promise.withResolvers<Response>();
    const silent = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => never });
    const error = await new A2AClient({ timeout: 0.05 }).getTaskStatus(`http://127.0.0.1:${silent.port}`, "x").catch((e) => e);
    expect(error).toBeInstanceOf(A2ATimeoutError);
    silent.stop(true);
  });
});

describe("DiscoveryClient", () => {
  test("discovers, caches, refreshes on demand and reports cache stats", async () => {
    const discovery = new DiscoveryClient({ cacheTtl: 60 });
    const card = await discovery.discoverAgent(url);
    expect(card.getSpiffeId()).toBe("spiffe://test.local/agent/server");
    expect(await discovery.discoverAgent(`${url}/`)).toBe(card);
    expect(await discovery.discoverAgent(url, true)).not.toBe(card);
    expect(discovery.getCacheStats()).toEqual({ totalEntries: 1, expiredEntries: 0, activeEntries: 1 });
    discovery.clearCache(url);
    expect(discovery.getCacheStats().totalEntries).toBe(0);
    const expiring = new DiscoveryClient({ cacheTtl: 0 });
    await expiring.discoverAgent(url);
    expect(expiring.getCacheStats()).toEqual({ totalEntries: 1, expiredEntries: 1, activeEntries: 0 });
    const uncached = new DiscoveryClient({ enableCache: false });
    await uncached.discoverAgent(url);
    expect(uncached.getCacheStats().totalEntries).toBe(0);
  });

  test("by SPIFFE id: needs a resolver, and checks the card carries that id", async () => {
    const discovery = new DiscoveryClient();
    await expect(discovery.discoverBySpiffeId("spiffe://test.local/agent/server")).rejects.toBeInstanceOf(DiscoveryError);
    const card = await discovery.discoverBySpiffeId("spiffe://test.local/agent/server", async () => url);
    expect(card.url).toBe(url);
    await expect(discovery.discoverBySpiffeId("spiffe://test.local/agent/other", () => url)).rejects.toThrow("presents");
  });

  test("many at once, capability checks, and bad agents", async () => {
    const discovery = new DiscoveryClient({ timeout: 2 });
    const junk = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ hello: "world" }) });
    const junkUrl = `http://127.0.0.1:${junk.port}`;
    expect(await discovery.discoverMultiple([url, junkUrl])).toHaveLength(1);
    await expect(discovery.discoverMultiple([url, junkUrl], false)).rejects.toBeInstanceOf(DiscoveryError);
    await expect(discovery.discoverAgent("agent.example")).rejects.toBeInstanceOf(DiscoveryError);
    expect(await discovery.verifyAgentCapability(junkUrl, "echo")).toBe(false);
    junk.stop(true);
  });

  test("findAgentsWithCapability reads the cards' capabilities", async () => {
    const { AgentCard } = await import("../../src/a2a/index.ts");
    const withCapability = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => Response.json(AgentCard.fromConfig({ name: "Summer", description: "adds", url: new URL(request.url).origin, spiffeId: "spiffe://test.local/sum", capabilities: [{ name: "sum", description: "Add numbers" }] })),
    });
    const sumUrl = `http://127.0.0.1:${withCapability.port}`;
    const discovery = new DiscoveryClient();
    expect((await discovery.findAgentsWithCapability([url, sumUrl], "sum")).map((c) => c.name)).toEqual(["Summer"]);
    expect(await discovery.verifyAgentCapability(sumUrl, "sum")).toBe(true);
    expect(await discovery.verifyAgentCapability(url, "sum")).toBe(false);
    withCapability.stop(true);
  });
});
