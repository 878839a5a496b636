/**
 * Streamable HTTP as the MCP spec (2025-11-25) has it, seen on the wire: priming events and retry hints, resuming a
 * broken stream with Last-Event-ID, the protocol version header, malformed requests, and resource subscriptions.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LATEST_PROTOCOL_VERSION, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { EventSourceMessage } from "eventsource-parser";
import { fixtureCapability, released, resetReleased } from "../fixtures/capability.ts";
import { startApp, type RunningApp } from "../support/app.ts";

let running: RunningApp;
let url = "";
const clients: Client[] = [];

beforeAll(async () => {
  running = await startApp([fixtureCapability]);
  url = `${running.base}/mcp/fixture`;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await running.close();
});

/** A session opened by hand; `post` sends one JSON-RPC message on it. */
async function session() {
  const client = new Client({ name: "wire", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  clients.push(client);
  const sessionId = transport.sessionId!;
  const headers = (more: Record<string, string> = {}) => ({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-session-id": sessionId,
    "mcp-protocol-version": LATEST_PROTOCOL_VERSION,
    ...more,
  });
  const post = (message: unknown, more?: Record<string, string>) =>
    fetch(url, { method: "POST", headers: headers(more), body: JSON.stringify(message) });
  return { client, sessionId, headers, post };
}

const events = (response: Response) =>
  response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();

/** Reads SSE events, with the `retry` hints seen, until `until` holds or the stream ends. */
async function readUntil(response: Response, until: (event: EventSourceMessage) => boolean) {
  const retries: number[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream({ onRetry: (ms) => retries.push(ms) })).getReader();
  const seen: EventSourceMessage[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    seen.push(value);
    if (until(value)) break;
  }
  await reader.cancel();
  return { seen, retries };
}

test("a POST's SSE stream starts with a priming event (an id, no data) and a retry hint", async () => {
  const { post } = await session();
  const response = await post({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "add", arguments: { a: 1, b: 2 } } });
  expect(response.headers.get("content-type")).toContain("text/event-stream");
  const { seen, retries } = await readUntil(response, (event) => event.data.includes('"result"'));
  expect(seen[0]).toMatchObject({ id: expect.any(String), data: "" });
  expect(retries).toEqual([1000]);
  expect(JSON.parse(seen.at(-1)!.data)).toMatchObject({ id: 1, result: { content: [{ text: "3" }] } });
  expect(seen.at(-1)!.id).toBeString();
});

test("a client whose stream broke mid-call GETs it back with Last-Event-ID and receives what it missed", async () => {
  resetReleased();
  const { post, headers } = await session();
  const call = { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "wait_for_release", arguments: {}, _meta: { progressToken: "p" } } };
  const { seen } = await readUntil(await post(call), (event) => event.data.includes("notifications/progress"));
  const lastEventId = seen.at(-1)!.id!;
  // The connection is gone; the tool finishes meanwhile, and its result is kept for the session.
  released.resolve();
  const resumed = await fetch(url, { method: "GET", headers: headers({ accept: "text/event-stream", "last-event-id": lastEventId }) });
  expect(resumed.status).toBe(200);
  const reader = events(resumed);
  const { value } = await reader.read();
  await reader.cancel();
  expect(Number(value!.id)).toBeGreaterThan(Number(lastEventId));
  expect(JSON.parse(value!.data)).toMatchObject({ jsonrpc: "2.0", id: 7, result: { content: [{ text: "released" }] } });

  const unknown = await fetch(url, { method: "GET", headers: headers({ accept: "text/event-stream", "last-event-id": "999999" }) });
  expect(unknown.status).toBe(400);
});

test("a protocol version the server does not speak is refused 400; a supported one is served", async () => {
  const { post } = await session();
  const refused = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" }, { "mcp-protocol-version": "1999-01-01" });
  expect(refused.status).toBe(400);
  expect(await refused.json()).toMatchObject({ error: { code: -32000, message: expect.stringContaining("Unsupported protocol version: 1999-01-01") } });
  const older = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, { "mcp-protocol-version": "2025-06-18" });
  expect(older.status).toBe(200);
});

test("DELETE ends the session: its id is unknown afterwards", async () => {
  const { sessionId, headers, post } = await session();
  const deleted = await fetch(url, { method: "DELETE", headers: headers() });
  expect(deleted.status).toBe(200);
  const after = await post({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  expect(after.status).toBe(404);
  expect(sessionId).toBeString();
});

test("malformed requests are invalid params naming the field, with a short message and no 'MCP error' prefix", async () => {
  const { post } = await session();
  const answer = async (message: unknown) => {
    const { seen } = await readUntil(await post(message), (event) => event.data.includes('"error"') || event.data.includes('"result"'));
    return JSON.parse(seen.at(-1)!.data) as { error?: { code: number; message: string } };
  };
  const noName = await answer({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { arguments: {} } });
  const listArguments = await answer({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "add", arguments: [1, 2] } });
  const badLevel = await answer({ jsonrpc: "2.0", id: 3, method: "logging/setLevel", params: { level: "loud" } });
  const messages = [noName, listArguments, badLevel].map(({ error }) => error!.message);
  expect(messages.every((message) => message.length < 200 && !message.includes("MCP error"))).toBe(true);
  expect([noName, listArguments, badLevel].map(({ error }) => error!.code)).toEqual([-32602, -32602, -32602]);
  expect(messages[0]).toBe("Invalid params for tools/call: params.name: Invalid input: expected string, received undefined");
  expect(messages[1]).toStartWith("Invalid params for tools/call: params.arguments: ");
  expect(messages[2]).toStartWith("Invalid params for logging/setLevel: params.level: ");
  // The session carries on.
  expect(await answer({ jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "add", arguments: { a: 1 } } })).toMatchObject({ result: { content: [{ text: "2" }] } });
});

test("a subscribed resource's changes are reported until unsubscribed; an unknown one cannot be subscribed", async () => {
  const { client } = await session();
  expect(client.getServerCapabilities()?.resources).toEqual({ subscribe: true });
  const updates: string[] = [];
  let heard = Promise.withResolvers<void>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => {
    updates.push(params.uri);
    heard.resolve();
  });
  await client.subscribeResource({ uri: "fixture://counter" });
  await client.callTool({ name: "bump", arguments: {} });
  await heard.promise;
  expect(updates).toEqual(["fixture://counter"]);
  await client.unsubscribeResource({ uri: "fixture://counter" });
  await client.callTool({ name: "bump", arguments: {} });
  // A round trip after the bump: a notification sent before it would have arrived by now.
  await client.ping();
  expect(updates).toEqual(["fixture://counter"]);
  const missing = await client.subscribeResource({ uri: "fixture://nothing" }).catch((e) => e);
  expect(missing.code).toBe(-32002);
});

test("a resource read sees the caller the runtime verified", async () => {
  const client = new Client({ name: "wire", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { "x-fixture-verified-caller": "spiffe://test.local/reader" } } }));
  clients.push(client);
  const { contents } = await client.readResource({ uri: "fixture://counter" });
  expect(contents[0]).toMatchObject({ text: expect.stringContaining("(read by spiffe://test.local/reader)") });
});
