/**
 * The chat bot's gateway session. Pure configuration: the chat capability's gateway driver sends the events it
 * hears from the socket, and connects again when a reconnect deadline passes (the actor system keeps `deadline`
 * armed, across restarts too). The token never enters the context, which is stored.
 *
 *   disconnected -CONNECT-> connecting -HELLO-> identifying -READY-> ready
 *                                       \-HELLO (a session to resume)-> resuming -RESUMED-> ready
 *   any live state -CLOSED-> reconnecting -DEADLINE-> connecting        (backoff: 0, base, 2 base, ... max)
 *   any live state -TOKEN_REFUSED or CLOSED 4004-> invalid_token         (final: a new token needs a restart)
 */
import { assign, setup } from "xstate";
import type { DeadlineEvent } from "./system.ts";

export type ChatSessionState = "disconnected" | "connecting" | "identifying" | "ready" | "resuming" | "reconnecting" | "invalid_token" | "stopped";

export interface ChatSessionInput {
  /** Reconnect backoff: the first attempt after a drop is immediate, then base, doubling, at most max. */
  backoffBaseMs: number;
  backoffMaxMs: number;
}

export interface ChatSessionContext extends ChatSessionInput {
  /** Reconnect attempts since the last READY or RESUMED. */
  attempt: number;
  /** When the next reconnect may start (while reconnecting). */
  deadline?: number;
  /** The gateway session, kept so a dropped socket resumes instead of identifying again. */
  sessionId?: string;
  bot?: { id: string; username: string };
  guilds: number;
  /** The last close code, and why the session is not ready, in words for /health and tool errors. */
  closeCode?: number;
  reason?: string;
  /** When the session last became ready. */
  readyAt?: number;
}

export type ChatSessionEvent =
  | { type: "CONNECT" }
  | { type: "HELLO" }
  | { type: "READY"; at: number; sessionId: string; bot: { id: string; username: string }; guilds: number }
  | { type: "RESUMED"; at: number }
  | { type: "SESSION_CLEARED" }
  /** The socket closed with `code`; code 0 when no connection could be started (`reason` says why). */
  | { type: "CLOSED"; at: number; code: number; reason?: string }
  | { type: "TOKEN_REFUSED" }
  /** The gateway refused the session for good (bad intents, sharding required, ...): nothing reconnects. */
  | { type: "FAILED"; reason: string }
  | { type: "STOP" }
  | DeadlineEvent;

/** Close codes after which the gateway must not be reconnected to (Discord's gateway close event codes). */
const fatalCloseReasons: Record<number, string> = {
  4010: "the gateway refused the shard (4010 Invalid shard)",
  4011: "the bot is in too many guilds for one session (4011 Sharding required)",
  4012: "the gateway does not speak API v10 (4012 Invalid API version)",
  4013: "the configured intents are invalid (4013 Invalid intent(s))",
  4014: "the configured intents include a privileged one not enabled for the app (4014 Disallowed intent(s))",
};
const tokenRefusedCode = 4004;
const tokenRefused = "the gateway refused the token (4004 Authentication failed)";

const backoff = ({ attempt, backoffBaseMs, backoffMaxMs }: ChatSessionContext) =>
  attempt === 0 ? 0 : Math.min(backoffMaxMs, backoffBaseMs * 2 ** (attempt - 1));

const closed = [
  { guard: "tokenRefusedClose", target: "#chat-session.invalid_token", actions: "refuseToken" },
  { guard: "fatalClose", target: "#chat-session.disconnected", actions: "recordFatalClose" },
  { target: "#chat-session.reconnecting", actions: "scheduleReconnect" },
] as const;

export const chatSessionMachine = setup({
  types: { context: {} as ChatSessionContext, input: {} as ChatSessionInput, events: {} as ChatSessionEvent },
  guards: {
    hasSession: ({ context }) => context.sessionId !== undefined,
    tokenRefusedClose: ({ event }) => event.type === "CLOSED" && event.code === tokenRefusedCode,
    fatalClose: ({ event }) => event.type === "CLOSED" && event.code in fatalCloseReasons,
  },
  actions: {
    ready: assign(({ event }) =>
      event.type === "READY"
        ? { sessionId: event.sessionId, bot: event.bot, guilds: event.guilds, attempt: 0, readyAt: event.at, reason: undefined, closeCode: undefined, deadline: undefined }
        : {},
    ),
    resumed: assign(({ event }) => (event.type === "RESUMED" ? { attempt: 0, readyAt: event.at, reason: undefined, closeCode: undefined, deadline: undefined } : {})),
    clearSession: assign({ sessionId: undefined }),
    scheduleReconnect: assign(({ context, event }) => {
      if (event.type !== "CLOSED") return {};
      return {
        closeCode: event.code,
        reason: `${event.reason ?? `the gateway connection closed (${event.code})`}; reconnecting`,
        deadline: event.at + backoff(context),
        attempt: context.attempt + 1,
      };
    }),
    recordFatalClose: assign(({ event }) =>
      event.type === "CLOSED" ? { closeCode: event.code, reason: fatalCloseReasons[event.code], deadline: undefined } : {},
    ),
    recordFailure: assign(({ event }) => (event.type === "FAILED" ? { reason: event.reason, deadline: undefined } : {})),
    refuseToken: assign({ reason: tokenRefused, deadline: undefined, sessionId: undefined }),
    leaveReconnecting: assign({ deadline: undefined }),
  },
}).createMachine({
  id: "chat-session",
  context: ({ input }) => ({ ...input, attempt: 0, guilds: 0 }),
  initial: "disconnected",
  on: {
    TOKEN_REFUSED: { target: ".invalid_token", actions: "refuseToken" },
    SESSION_CLEARED: { actions: "clearSession" },
    STOP: ".stopped",
  },
  states: {
    disconnected: {
      on: { CONNECT: "connecting" },
    },
    connecting: {
      on: {
        HELLO: [{ guard: "hasSession", target: "resuming" }, { target: "identifying" }],
        CLOSED: closed,
        FAILED: { target: "disconnected", actions: "recordFailure" },
      },
    },
    identifying: {
      on: { READY: { target: "ready", actions: "ready" }, CLOSED: closed, FAILED: { target: "disconnected", actions: "recordFailure" } },
    },
    resuming: {
      on: {
        RESUMED: { target: "ready", actions: "resumed" },
        // The gateway would not resume the session and the library identified afresh on the same socket.
        READY: { target: "ready", actions: "ready" },
        CLOSED: closed,
        FAILED: { target: "disconnected", actions: "recordFailure" },
      },
    },
    ready: {
      on: { CLOSED: closed, FAILED: { target: "disconnected", actions: "recordFailure" } },
    },
    reconnecting: {
      on: {
        // The driver holds every new connection back until this deadline has passed.
        DEADLINE: { target: "connecting", actions: "leaveReconnecting" },
        FAILED: { target: "disconnected", actions: "recordFailure" },
      },
    },
    invalid_token: { type: "final" },
    stopped: { type: "final" },
  },
});
