import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { platformCapability } from "../../src/platform/tools.ts";
import { cancelled, endedSessions, fixtureCapability, resetCancelled } from "../fixtures/capability.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { failOnStalls } from "../support/loop.ts";

failOnStalls();

let running: RunningApp;
let base = "";
const clients: Client[] = [];

beforeAll(async () => {
  running = await startApp([platformCapability, fixtureCapability], { env: { PLATFORM_MCP__ALLOWED_ORIGINS: "https://console.example" } });
  base = running.base;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await running.close();
});

async function connect(path: string, caller?: string, origin?: string) {
  const client = new Client({ name: "test", version: "1.0.0" });
  const headers: Record<string, string> = { ...(caller && { "x-fixture-verified-caller": caller }), ...(origin && { origin }) };
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}${path}`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

test("/mcp is the default server and /mcp/<name> each named one", async () => {
  const platform = await connect("/mcp");
  expect(platform.getServerVersion()?.name).toBe("platform");
  const health = await platform.callTool({ name: "health", arguments: {} });
  expect(health.structuredContent).toMatchObject({ status: "ok" });

  const fixture = await connect("/mcp/fixture");
  const { tools } = await fixture.listTools();
  expect(tools.map((t) => t.name)).toEqual(["add", "whoami", "explode", "divide", "misreport", "undeclared", "bump", "wait_for_release", "count_down"]);
  expect(tools[0]!.inputSchema).toMatchObject({ type: "object", required: ["a", "b"], properties: { a: { type: "integer" } } });
});

test("a tool's result comes back, with schema defaults applied", async () => {
  const fixture = await connect("/mcp/fixture");
  expect(await fixture.callTool({ name: "add", arguments: { a: 2, b: 40 } })).toMatchObject({ content: [{ type: "text", text: "42" }] });
  expect(await fixture.callTool({ name: "add", arguments: { a: 2 } })).toMatchObject({ content: [{ text: "3" }] });
});

test("a tool that throws answers a result with isError and one text item", async () => {
  const fixture = await connect("/mcp/fixture");
  const result = await fixture.callTool({ name: "explode", arguments: {} });
  expect(result).toEqual({ isError: true, content: [{ type: "text", text: "the fuse was lit" }] });
});

test("invalid arguments are a result with isError naming the field, for the model to correct; unknown tools an invalid-params error", async () => {
  const fixture = await connect("/mcp/fixture");
  const bad = await fixture.callTool({ name: "add", arguments: { a: "two" } });
  expect(bad.isError).toBe(true);
  expect(bad.content).toEqual([{ type: "text", text: expect.stringMatching(/^Invalid arguments for tool add: a: /) }]);
  const unknown = await fixture.callTool({ name: "nope", arguments: {} }).catch((e) => e);
  expect(unknown).toBeInstanceOf(McpError);
  expect(unknown.code).toBe(-32602);
  expect(unknown.message).toBe("MCP error -32602: Unknown tool: nope");
});

test("a tool's output schema is listed, its structured result checked against it, and a result outside it (or without one) is an error", async () => {
  const fixture = await connect("/mcp/fixture");
  const divide = (await fixture.listTools()).tools.find((t) => t.name === "divide")!;
  expect(divide.outputSchema).toMatchObject({ type: "object", required: ["quotient", "remainder"] });
  // The SDK client validates structuredContent against the listed schema itself; this passing is part of the test.
  expect((await fixture.callTool({ name: "divide", arguments: { a: 17, b: 5 } })).structuredContent).toEqual({ quotient: 3, remainder: 2 });
  expect(await fixture.callTool({ name: "divide", arguments: { a: 1, b: 0 } })).toMatchObject({ isError: true, content: [{ text: "division by zero" }] });
  const broken = await fixture.callTool({ name: "misreport", arguments: {} });
  expect(broken).toEqual({ isError: true, content: [{ type: "text", text: "tool misreport produced a malformed result; the fault is logged" }] });
  // Structured content needs a declared schema: without one it is the same fault.
  const undeclared = await fixture.callTool({ name: "undeclared", arguments: {} });
  expect(undeclared).toEqual({ isError: true, content: [{ type: "text", text: "tool undeclared produced a malformed result; the fault is logged" }] });
});

test("resource templates are listed, their resources listed and read, and their variables completed", async () => {
  const fixture = await connect("/mcp/fixture");
  expect((await fixture.listResourceTemplates()).resourceTemplates).toEqual([
    { uriTemplate: "fixture://words/{word}", name: "word", description: "A word and its length.", mimeType: "application/json" },
  ]);
  const { resources } = await fixture.listResources();
  expect(resources.map((r) => r.uri)).toEqual(["fixture://greeting", "fixture://counter", "fixture://words/apple", "fixture://words/apricot", "fixture://words/banana"]);
  expect((await fixture.readResource({ uri: "fixture://words/banana" })).contents).toEqual([
    { uri: "fixture://words/banana", mimeType: "application/json", text: '{"word":"banana","length":6}' },
  ]);
  const missing = await fixture.readResource({ uri: "fixture://nowhere" }).catch((e) => e);
  expect(missing.code).toBe(-32002);
  const completed = await fixture.complete({ ref: { type: "ref/resource", uri: "fixture://words/{word}" }, argument: { name: "word", value: "ap" } });
  expect(completed.completion).toEqual({ values: ["apple", "apricot"], total: 2, hasMore: false });
  const mood = await fixture.complete({ ref: { type: "ref/prompt", name: "greet" }, argument: { name: "mood", value: "w" } });
  expect(mood.completion.values).toEqual(["warm", "wry"]);
  const unknown = await fixture.complete({ ref: { type: "ref/prompt", name: "nope" }, argument: { name: "mood", value: "" } }).catch((e) => e);
  expect(unknown.code).toBe(-32602);
});

test("a tool's log lines reach a client at or above the level it set", async () => {
  const fixture = await connect("/mcp/fixture");
  const heard: unknown[] = [];
  fixture.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void heard.push(params));
  await fixture.setLoggingLevel("info");
  await fixture.callTool({ name: "divide", arguments: { a: 4, b: 2 } });
  await fixture.setLoggingLevel("debug");
  await fixture.callTool({ name: "divide", arguments: { a: 9, b: 3 } });
  // Notifications travel on the call's own stream, ahead of its result.
  expect(heard).toEqual([{ level: "debug", logger: "divide", data: { dividing: [9, 3] } }]);
});

test("a session's end is told to the server's listeners, once", async () => {
  const client = new Client({ name: "test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/fixture`));
  await client.connect(transport);
  const before = endedSessions.length;
  await transport.terminateSession();
  await client.close();
  expect(endedSessions.length).toBe(before + 1);
  expect(new Set(endedSessions).size).toBe(endedSessions.length);
});

test("progress reaches the client as notifications and cancelling aborts the handler's signal", async () => {
  resetCancelled();
  const fixture = await connect("/mcp/fixture");
  const controller = new AbortController();
  const seen: number[] = [];
  const third = Promise.withResolvers<void>();
  const call = fixture.callTool({ name: "count_down", arguments: { steps: 3 } }, undefined, {
    signal: controller.signal,
    onprogress: ({ progress }) => {
      seen.push(progress);
      if (progress === 3) third.resolve();
    },
  });
  await third.promise;
  controller.abort("enough");
  expect(await call.then(() => "completed", () => "rejected")).toBe("rejected");
  expect(await cancelled.promise).toBeString();
  expect(seen).toEqual([1, 2, 3]);
});

test("resources and prompts are listed, read and rendered", async () => {
  const fixture = await connect("/mcp/fixture");
  expect((await fixture.listResources()).resources[0]).toEqual({
    uri: "fixture://greeting",
    name: "greeting",
    description: "A fixed greeting.",
    mimeType: "text/plain",
  });
  expect((await fixture.readResource({ uri: "fixture://greeting" })).contents).toEqual([
    { uri: "fixture://greeting", mimeType: "text/plain", text: "hello" },
  ]);
  const { prompts } = await fixture.listPrompts();
  expect(prompts[0]).toMatchObject({
    name: "greet",
    arguments: [
      { name: "who", description: "whom to greet", required: true },
      { name: "mood", required: false },
    ],
  });
  const prompt = await fixture.getPrompt({ name: "greet", arguments: { who: "Ada", mood: "warm" } });
  expect(prompt.messages[0]!.content).toEqual({ type: "text", text: "Greet Ada warmly." });
  const missing = await fixture.getPrompt({ name: "greet", arguments: {} }).catch((e) => e);
  expect(missing.code).toBe(-32602);
  expect(missing.message).toBe("MCP error -32602: Invalid arguments for prompt greet: who: Expected required property");
});

test("sessions are separate, end with DELETE, and unknown ones or servers get JSON-RPC errors", async () => {
  const before = running.runtime.health.report().subsystems.mcp!.sessions as Record<string, number>;
  const client = new Client({ name: "test", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${base}/mcp/fixture`));
  await client.connect(transport);
  const sessionId = transport.sessionId!;
  expect((running.runtime.health.report().subsystems.mcp!.sessions as Record<string, number>).fixture).toBe(before.fixture! + 1);
  await transport.terminateSession();
  await client.close();
  const gone = await fetch(`${base}/mcp/fixture`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", "mcp-session-id": sessionId },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect(gone.status).toBe(404);
  expect(await gone.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 } });

  const noServer = await fetch(`${base}/mcp/nothing-here`, { method: "POST", body: "{}" });
  expect(noServer.status).toBe(404);
  expect(await noServer.json()).toMatchObject({ error: { code: -32601, message: expect.stringContaining("fixture") } });

  const notInitialize = await fetch(`${base}/mcp/fixture`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  expect(notInitialize.status).toBe(400);
  expect((running.runtime.health.report().subsystems.mcp!.sessions as Record<string, number>).fixture).toBe(before.fixture!);
});

test("tools see the caller the runtime verified, and a session stays bound to whoever opened it", async () => {
  const anonymous = await connect("/mcp/fixture");
  expect(await anonymous.callTool({ name: "whoami", arguments: {} })).toMatchObject({ content: [{ text: "nobody" }] });

  const planner = await connect("/mcp/fixture", "spiffe://test.local/agent/planner");
  expect(await planner.callTool({ name: "whoami", arguments: {} })).toMatchObject({
    content: [{ text: "spiffe://test.local/agent/planner" }],
  });

  // The planner's session id, presented by someone else, is answered as if it did not exist.
  const sessionId = (planner.transport as StreamableHTTPClientTransport).sessionId!;
  const stolen = await fetch(`${base}/mcp/fixture`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-session-id": sessionId,
      "mcp-protocol-version": "2025-06-18",
      "x-fixture-verified-caller": "spiffe://test.local/agent/intruder",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/call", params: { name: "whoami", arguments: {} } }),
  });
  expect(stolen.status).toBe(404);
  expect(await stolen.json()).toMatchObject({ error: { code: -32001 } });
});

test("a page from a foreign origin is refused 403 and opens nothing; pages on this machine and listed origins are served", async () => {
  const sessions = () => (running.runtime.health.report().subsystems.mcp!.sessions as Record<string, number>).fixture!;
  const before = sessions();
  const initialize = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "page", version: "1" } },
  });
  // What a DNS-rebinding page sends: the server's own address, under the page's origin.
  for (const origin of ["http://evil.example:8443", "null", "http://127.0.0.1.evil.example"]) {
    for (const [method, body] of [["POST", initialize], ["GET", undefined], ["DELETE", undefined]] as const) {
      const refused = await fetch(`${base}/mcp/fixture`, {
        method,
        headers: { origin, "content-type": "application/json", accept: "application/json, text/event-stream" },
        body,
      });
      expect(refused.status).toBe(403);
      expect(await refused.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32000, message: expect.stringContaining("mcp.allowed_origins") } });
    }
  }
  expect(sessions()).toBe(before);

  for (const origin of ["http://localhost:5173", "http://127.0.0.1:3000", "https://console.example"]) {
    const client = await connect("/mcp/fixture", undefined, origin);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  }
  expect(sessions()).toBe(before + 3);
});
