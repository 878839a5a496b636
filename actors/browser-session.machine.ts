/**
 * A browser session: one Chromium with one isolated context, driven for one owner (an MCP session, a WebSocket
 * client, a name callers share). Pure configuration; the browser pool (src/browser/pool.ts) launches and drives
 * the browser and sends the events. The idle timeout rides on the actor system's persisted `deadline`.
 *
 *   launching -> ready -> busy <-> idle -> closing -> closed
 *        any live state -> crashed -> launching (a restart) or closing
 */
import { assign, setup } from "xstate";
import type { DeadlineEvent } from "./system.ts";

export interface BrowserSessionInput {
  /** Who the session serves, e.g. `mcp:<session id>`, `ws:<client id>`, `name:<name>`; `warm` while unclaimed. */
  owner: string;
  /** Callers' shared name; a named session keeps its storage state (cookies, local storage) across restarts. */
  name?: string;
  idleTimeoutMs: number;
  maxRestarts: number;
  at: number;
}

export interface BrowserSessionContext extends BrowserSessionInput {
  createdAt: number;
  lastUsedAt: number;
  restarts: number;
  /** The operation running while busy. */
  operation?: string;
  /** Chromium's version and process id once launched. */
  browserVersion?: string;
  pid?: number;
  /** Why it crashed or closed. */
  reason?: string;
  /** When an idle (claimed) session is closed; absent while busy, launching or unclaimed. */
  deadline?: number;
}

export type BrowserSessionEvent =
  | { type: "LAUNCHED"; at: number; pid: number; browserVersion: string }
  | { type: "CLAIM"; owner: string; name?: string; at: number }
  | { type: "WORK"; operation: string; at: number }
  | { type: "DONE"; at: number }
  | { type: "CRASHED"; reason: string }
  | { type: "RESTART" }
  | { type: "CLOSE"; reason: string }
  | { type: "CLOSED" }
  | DeadlineEvent;

export type BrowserSessionState = "launching" | "ready" | "busy" | "idle" | "closing" | "closed" | "crashed";

const idleDeadline = (context: BrowserSessionContext, at: number) => (context.owner === "warm" ? undefined : at + context.idleTimeoutMs);

export const browserSessionMachine = setup({
  types: { context: {} as BrowserSessionContext, input: {} as BrowserSessionInput, events: {} as BrowserSessionEvent },
  guards: {
    mayRestart: ({ context }) => context.restarts < context.maxRestarts,
  },
  actions: {
    launched: assign(({ context, event }) =>
      event.type === "LAUNCHED"
        ? { pid: event.pid, browserVersion: event.browserVersion, reason: undefined, deadline: idleDeadline(context, event.at) }
        : {},
    ),
    claim: assign(({ event }) => (event.type === "CLAIM" ? { owner: event.owner, name: event.name, lastUsedAt: event.at } : {})),
    armIdle: assign(({ context, event }) => (event.type === "CLAIM" ? { deadline: event.at + context.idleTimeoutMs } : {})),
    work: assign(({ event }) => (event.type === "WORK" ? { operation: event.operation, lastUsedAt: event.at, deadline: undefined } : {})),
    done: assign(({ context, event }) => (event.type === "DONE" ? { operation: undefined, lastUsedAt: event.at, deadline: idleDeadline(context, event.at) } : {})),
    noteReason: assign(({ event }) => (event.type === "CRASHED" || event.type === "CLOSE" ? { reason: event.reason, deadline: undefined, operation: undefined } : {})),
    idleTimeout: assign({ reason: "idle timeout", deadline: undefined }),
    restart: assign(({ context }) => ({ restarts: context.restarts + 1, pid: undefined })),
  },
}).createMachine({
  id: "browser-session",
  context: ({ input }) => ({ ...input, createdAt: input.at, lastUsedAt: input.at, restarts: 0 }),
  initial: "launching",
  on: {
    // A warm spare may be claimed while it still launches; its idle clock starts once it is ready.
    CLAIM: { actions: "claim" },
    CRASHED: { target: ".crashed", actions: "noteReason" },
    CLOSE: { target: ".closing", actions: "noteReason" },
  },
  states: {
    launching: {
      on: { LAUNCHED: { target: "ready", actions: "launched" } },
    },
    ready: {
      on: {
        CLAIM: { actions: ["claim", "armIdle"] },
        WORK: { target: "busy", actions: "work" },
        DEADLINE: { target: "closing", actions: "idleTimeout" },
      },
    },
    busy: {
      on: { DONE: { target: "idle", actions: "done" } },
    },
    idle: {
      on: {
        WORK: { target: "busy", actions: "work" },
        DEADLINE: { target: "closing", actions: "idleTimeout" },
      },
    },
    crashed: {
      on: {
        RESTART: { guard: "mayRestart", target: "launching", actions: "restart" },
        CRASHED: {},
      },
    },
    closing: {
      on: { CLOSED: "closed", CRASHED: {}, CLOSE: {}, CLAIM: {} },
    },
    closed: { type: "final" },
  },
});
