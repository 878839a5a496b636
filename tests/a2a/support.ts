/** A2A test helpers: a standalone server on a free loopback port, JSON-RPC posting, and SSE reading. */
import { join } from "node:path";
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { EventSourceMessage } from "eventsource-parser";
import { AgentCard, A2AServer, type A2AServerOptions } from "../../src/a2a/index.ts";

export async function startAgent(options: Partial<A2AServerOptions> = {}, setup: (server: A2AServer) => void = () => {}) {
  const server = new A2AServer({
    agentCard: (origin) => AgentCard.fromConfig({ name: "Test agent", description: "Runs test tasks", url: origin, spiffeId: "spiffe://test.local/agent/server" }),
    ...options,
  });
  setup(server);
  const url = await server.start("127.0.0.1", 0);
  return { server, url, rpc: (body: unknown, headers: Record<string, string> = {}) => rpc(url, body, headers) };
}

export async function rpc(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

export const call = (method: string, params?: unknown, id: string | number = 1) => ({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });

/** Reads SSE events until the stream ends, or until `until` returns true (then the stream is cancelled). */
export async function readEvents(response: Response, until: (event: EventSourceMessage) => boolean = () => false) {
  const events: EventSourceMessage[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    events.push(value);
    if (until(value)) {
      await reader.cancel();
      break;
    }
  }
  return events;
}

/** A promise with its resolve, for handlers a test holds open until it lets them go. */
export const gate = <T = void>() => Promise.withResolvers<T>();

/**
 * Settings under which the platform's A2A agent lets unidentified callers through: development, the
 * allow-all development policy, and mTLS not required. Authorization itself is tested in tests/authz.
 */
export const openAuthorization = {
  PLATFORM_ENV: "development",
  PLATFORM_AUTHORIZATION__POLICY_DIR: join(import.meta.dir, "../../policies/dev"),
  PLATFORM_IDENTITY__MTLS__REQUIRED: "false",
};
