/**
 * The WebSocket protocol at /ws/<client_id>. A client sends `{ type: "command", id, action, params }` with any
 * tool's name as the action (and `{ type: "cancel", id }` to stop one); the server answers
 * `{ type: "progress", id, update }` while it runs, then `{ type: "result", id, action, result }` or
 * `{ type: "error", id, error: { type, message, details } }`. Each client id has its own browser session, ended
 * when its socket closes; a second socket with the same client id replaces the first (which is closed, 4000).
 */
import { Elysia } from "elysia";
import { checked } from "../mcp/call.ts";
import type { Logger } from "../log.ts";
import { actions } from "./actions.ts";
import { BrowserServiceError, errorBody } from "./errors.ts";
import type { BrowserService } from "./service.ts";

interface Socket {
  /** Bun's own socket: the one identity that holds across Elysia's per-event wrappers. */
  raw: unknown;
  send(data: string): unknown;
  close(code?: number, reason?: string): unknown;
}

interface Client {
  socket: Socket;
  running: Map<string, AbortController>;
  /** Sockets replaced by a newer one whose close events are still to come; they end nothing. */
  replaced: number;
}

export const replacedCode = 4000;

export function browserSocket(browser: BrowserService, log: Logger, authorized: (request: Request) => boolean) {
  const clients = new Map<string, Client>();
  const reply = (socket: Socket, message: object) => socket.send(JSON.stringify(message));

  return new Elysia({ name: "browser.ws" }).ws("/ws/:client_id", {
    beforeHandle: ({ request, set }) => {
      if (!authorized(request)) {
        set.status = 401;
        return { error: { type: "AuthenticationError", message: "Send Authorization: Bearer <api key>", details: {} } };
      }
    },
    open(ws) {
      const clientId = ws.data.params.client_id;
      const previous = clients.get(clientId);
      // The same client again (a reload, a reconnect): it keeps its browser session, the old socket goes.
      // Recorded first: closing the old socket runs its close handler at once.
      clients.set(clientId, { socket: ws, running: new Map(), replaced: (previous?.replaced ?? 0) + (previous ? 1 : 0) });
      if (previous) {
        for (const controller of previous.running.values()) controller.abort();
        previous.socket.close(replacedCode, "replaced by a newer connection with the same client id");
      }
    },
    async message(ws, raw) {
      const clientId = ws.data.params.client_id;
      const client = clients.get(clientId);
      if (client?.socket.raw !== ws.raw) return;
      let message: { type?: unknown; id?: unknown; action?: unknown; params?: unknown };
      try {
        message = typeof raw === "string" ? JSON.parse(raw) : (raw as typeof message);
      } catch {
        return reply(ws, { type: "error", id: null, error: { type: "ValidationError", message: "Messages are JSON objects", details: {} } });
      }
      const id = typeof message.id === "string" || typeof message.id === "number" ? String(message.id) : null;
      if (message.type === "cancel" && id) return void client.running.get(id)?.abort();
      try {
        if (message.type !== "command" || id === null) throw BrowserServiceError.validation('A command is { "type": "command", "id": "...", "action": "<tool name>", "params": { ... } }');
        const action = actions[String(message.action)];
        if (!action) throw BrowserServiceError.notFound(`No action ${String(message.action)}`, { actions: Object.keys(actions) });
        const args = checked(action.input, message.params ?? {}, `action ${String(message.action)}`);
        const controller = new AbortController();
        client.running.set(id, controller);
        try {
          const result = await action.run(browser, args, {
            owner: `ws:${clientId}`,
            signal: controller.signal,
            onProgress: (update) => reply(ws, { type: "progress", id, update }),
          });
          reply(ws, { type: "result", id, action: message.action, result });
        } finally {
          client.running.delete(id);
        }
      } catch (error) {
        reply(ws, { type: "error", id, error: errorBody(error, log).body.error });
      }
    },
    close(ws) {
      const clientId = ws.data.params.client_id;
      const client = clients.get(clientId);
      if (!client) return;
      if (client.replaced > 0) {
        client.replaced--;
        return;
      }
      clients.delete(clientId);
      for (const controller of client.running.values()) controller.abort();
      void browser.pool.close(`ws:${clientId}`, undefined, "its WebSocket closed");
    },
  });
}
