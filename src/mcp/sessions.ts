/**
 * Streamable HTTP sessions for one named MCP server: each `initialize` gets its own SDK server and transport,
 * found again by the `Mcp-Session-Id` header. Idle sessions are closed after `idleMs`. Each session keeps its
 * recent SSE events (events.ts): every SSE stream a POST opens starts with a priming event (an id, no data) and a
 * retry hint, so a client that loses the stream can GET it back with `Last-Event-ID` and miss nothing. The
 * transport refuses an `MCP-Protocol-Version` header naming a version it does not speak (400).
 */
import { randomUUID } from "node:crypto";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import type { Logger } from "../log.ts";
import { SessionEventStore } from "./events.ts";
import { rpcError } from "./rpc-error.ts";
import type { McpServerSpec } from "./registry.ts";
import { connectMcpServer } from "./server.ts";

interface Session {
  transport: WebStandardStreamableHTTPServerTransport;
  lastSeen: number;
  /** Who initialized it; nobody else may use it, whatever session id they present. */
  caller: string | undefined;
}

/** How long a client whose stream broke waits before it reconnects (the SSE `retry` field). */
const reconnectAfterMs = 1000;

export class McpSessions {
  readonly #sessions = new Map<string, Session>();
  readonly #sweeper: ReturnType<typeof setInterval>;

  constructor(
    readonly spec: McpServerSpec,
    private readonly log: Logger,
    private readonly idleMs = 30 * 60_000,
  ) {
    this.#sweeper = setInterval(() => this.#closeIdle(), Math.min(idleMs, 60_000));
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#sessions.size;
  }

  /** `caller` is the verified identity behind the request, if the runtime established one. */
  async handle(request: Request, caller?: string): Promise<Response> {
    const authInfo: AuthInfo | undefined = caller ? { token: "", clientId: caller, scopes: [] } : undefined;
    const id = request.headers.get("mcp-session-id");
    if (id) {
      const session = this.#sessions.get(id);
      // Another caller's session is answered as missing: its id tells nobody else anything.
      if (!session || session.caller !== caller) return rpcError(404, -32001, "Session not found; initialize a new one");
      session.lastSeen = Date.now();
      return session.transport.handleRequest(request, { authInfo });
    }
    if (request.method !== "POST") return rpcError(400, -32000, "Missing Mcp-Session-Id header");
    return this.#open(request, caller, authInfo);
  }

  async close(): Promise<void> {
    clearInterval(this.#sweeper);
    await Promise.all([...this.#sessions.values()].map((s) => s.transport.close()));
    this.#sessions.clear();
  }

  async #open(request: Request, caller: string | undefined, authInfo: AuthInfo | undefined): Promise<Response> {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      eventStore: new SessionEventStore(),
      retryInterval: reconnectAfterMs,
      onsessioninitialized: (id) => void this.#sessions.set(id, { transport, lastSeen: Date.now(), caller }),
      onsessionclosed: (id) => void this.#sessions.delete(id),
    });
    transport.onclose = () => {
      if (transport.sessionId) this.#sessions.delete(transport.sessionId);
    };
    await connectMcpServer(this.spec, this.log, transport);
    const response = await transport.handleRequest(request, { authInfo });
    // Anything but a successful initialize leaves no session behind.
    if (!transport.sessionId) await transport.close();
    return response;
  }

  #closeIdle(): void {
    const before = Date.now() - this.idleMs;
    for (const [id, session] of this.#sessions) {
      if (session.lastSeen < before) {
        this.#sessions.delete(id);
        void session.transport.close();
      }
    }
  }
}
