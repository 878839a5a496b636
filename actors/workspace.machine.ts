/**
 * An infrastructure workspace: idle, running one action, or failed (its last run did). One run at a time: a
 * RUN while running is not accepted, so the service answers Busy with the running action's name. Pure
 * configuration; the infra service runs the binary and sends the events.
 */
import { assign, setup } from "xstate";
import type { RunRecord } from "../src/infra/views.ts";

export interface WorkspaceContext {
  /** The workspace, relative to the root. */
  path: string;
  /** The running action and its run id, while running. */
  running?: { action: string; runId: string; startedAt: number };
  lastRun?: RunRecord;
}

export type WorkspaceEvent =
  | { type: "RUN"; action: string; runId: string; at: number }
  | { type: "FINISHED"; record: RunRecord };

/** A run that succeeded or was cancelled leaves the workspace idle; one that failed or timed out, failed. */
export const ended = (record: RunRecord) => record.outcome === "succeeded" || record.outcome === "cancelled";

export const workspaceMachine = setup({
  types: { context: {} as WorkspaceContext, input: {} as { path: string; lastRun?: RunRecord }, events: {} as WorkspaceEvent },
  guards: {
    lastRunFailed: ({ context }) => context.lastRun !== undefined && !ended(context.lastRun),
    succeeded: ({ event }) => event.type === "FINISHED" && ended(event.record),
  },
  actions: {
    start: assign({
      running: ({ event }) => (event.type === "RUN" ? { action: event.action, runId: event.runId, startedAt: event.at } : undefined),
    }),
    finish: assign({
      running: undefined,
      lastRun: ({ context, event }) => (event.type === "FINISHED" ? event.record : context.lastRun),
    }),
  },
}).createMachine({
  id: "infra-workspace",
  context: ({ input }) => ({ path: input.path, lastRun: input.lastRun }),
  // A workspace whose last run (read back from disk) failed starts out failed, as it was.
  initial: "restoring",
  states: {
    restoring: { always: [{ guard: "lastRunFailed", target: "failed" }, { target: "idle" }] },
    idle: { on: { RUN: { target: "running", actions: "start" } } },
    running: {
      on: {
        FINISHED: [
          { guard: "succeeded", target: "idle", actions: "finish" },
          { target: "failed", actions: "finish" },
        ],
      },
    },
    failed: { on: { RUN: { target: "running", actions: "start" } } },
  },
});
