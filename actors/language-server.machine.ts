/**
 * The language server (terraform-ls) this process talks to: absent until a tool needs it, starting, ready, or
 * crashed; a crashed server is started again on the next call that needs it. Pure configuration; the infra
 * capability's client spawns the process and sends the events.
 */
import { assign, setup } from "xstate";

export interface LanguageServerContext {
  /** How many times it was started after a crash. */
  restarts: number;
  pid?: number;
  startedAt?: number;
  /** Why it last crashed or failed to start. */
  lastError?: string;
}

export type LanguageServerEvent =
  | { type: "START"; at: number }
  | { type: "READY"; pid: number }
  | { type: "CRASH"; error: string }
  | { type: "STOP" };

export const languageServerMachine = setup({
  types: { context: {} as LanguageServerContext, events: {} as LanguageServerEvent },
  actions: {
    started: assign({ startedAt: ({ event }) => (event.type === "START" ? event.at : undefined), pid: undefined }),
    restarted: assign({ restarts: ({ context }) => context.restarts + 1 }),
    ready: assign({ pid: ({ event }) => (event.type === "READY" ? event.pid : undefined), lastError: undefined }),
    crashed: assign({ lastError: ({ event }) => (event.type === "CRASH" ? event.error : undefined), pid: undefined }),
    stopped: assign({ pid: undefined, startedAt: undefined }),
  },
}).createMachine({
  id: "language-server",
  context: { restarts: 0 },
  initial: "absent",
  states: {
    absent: { on: { START: { target: "starting", actions: "started" } } },
    starting: {
      on: { READY: { target: "ready", actions: "ready" }, CRASH: { target: "crashed", actions: "crashed" }, STOP: { target: "absent", actions: "stopped" } },
    },
    ready: { on: { CRASH: { target: "crashed", actions: "crashed" }, STOP: { target: "absent", actions: "stopped" } } },
    crashed: { on: { START: { target: "starting", actions: ["started", "restarted"] }, STOP: { target: "absent", actions: "stopped" } } },
  },
});
