/**
 * An A2A task: pending -> running -> completed | failed | cancelled; a task whose handler starts at once is
 * created running (its first snapshot is resolved there, see `createdRunning`). The three last are final: a
 * final task never moves again, and no event changes it. Every event carries its time (`at`, epoch ms) so the
 * machine stays pure, and may carry `changes` (messages and artifacts to append, metadata to merge) so a
 * handler's output lands in the same transition as the state it reaches.
 */
import { assign, setup } from "xstate";
import type { TaskArtifact, TaskMessage } from "../src/a2a/model.ts";

export interface TaskChanges {
  messages?: TaskMessage[];
  artifacts?: TaskArtifact[];
  metadata?: Record<string, unknown>;
}

export interface TaskInput {
  id: string;
  type: string;
  contextId: string;
  payload: unknown;
  messages: TaskMessage[];
  metadata: Record<string, unknown>;
  /** The verified caller that sent it, when there was one: a caller lists its own tasks. */
  owner?: string;
  at: number;
}

export interface TaskContext extends Omit<TaskInput, "at"> {
  artifacts: TaskArtifact[];
  result?: unknown;
  error?: string;
  createdAt: number;
  updatedAt: number;
  /** Counts transitions; SSE event ids are these numbers. */
  revision: number;
}

type Stamp = { at: number; changes?: TaskChanges };
export type TaskEvent =
  | ({ type: "START" } & Stamp)
  | ({ type: "UPDATE" } & Stamp)
  | ({ type: "COMPLETE"; result?: unknown } & Stamp)
  | ({ type: "FAIL"; error: string } & Stamp)
  | ({ type: "CANCEL" } & Stamp);

const initialContext = ({ at, ...input }: TaskInput): TaskContext => ({ ...input, artifacts: [], createdAt: at, updatedAt: at, revision: 1 });

/** What every event changes: its messages and artifacts appended, its metadata merged, the time and revision. */
function changed(context: TaskContext, event: TaskEvent) {
  const { messages, artifacts, metadata } = event.changes ?? {};
  return {
    messages: messages?.length ? [...context.messages, ...messages] : context.messages,
    artifacts: artifacts?.length ? [...context.artifacts, ...artifacts] : context.artifacts,
    metadata: metadata ? { ...context.metadata, ...metadata } : context.metadata,
    updatedAt: event.at,
    revision: context.revision + 1,
  };
}

export const taskMachine = setup({
  types: { context: {} as TaskContext, input: {} as TaskInput, events: {} as TaskEvent },
  actions: {
    // One assign per transition: XState copies the snapshot once per assign action.
    apply: assign(({ context, event }) => changed(context, event)),
    complete: assign(({ context, event }) => ({ ...changed(context, event), result: event.type === "COMPLETE" ? event.result : undefined })),
    fail: assign(({ context, event }) => ({ ...changed(context, event), error: event.type === "FAIL" ? event.error : undefined })),
  },
}).createMachine({
  id: "task",
  context: ({ input }) => initialContext(input),
  initial: "pending",
  states: {
    pending: {
      on: {
        START: { target: "running", actions: "apply" },
        UPDATE: { actions: "apply" },
        // A task may finish without a handler ever starting (e.g. one that answers from its payload alone).
        COMPLETE: { target: "completed", actions: "complete" },
        FAIL: { target: "failed", actions: "fail" },
        CANCEL: { target: "cancelled", actions: "apply" },
      },
    },
    running: {
      on: {
        UPDATE: { actions: "apply" },
        COMPLETE: { target: "completed", actions: "complete" },
        FAIL: { target: "failed", actions: "fail" },
        CANCEL: { target: "cancelled", actions: "apply" },
      },
    },
    completed: { type: "final" },
    failed: { type: "final" },
    cancelled: { type: "final" },
  },
});

/**
 * The first snapshot of a task whose handler starts at once: running from the start, since its pending
 * moment would be seen by nobody, and one stored transition fewer. Resolved as a restored snapshot is.
 */
export const createdRunning = (input: TaskInput) => taskMachine.resolveState({ value: "running", context: initialContext(input) });
