/**
 * A task as a value: what a handler receives, changes and returns, and what a client gets back. Its state
 * moves are the task machine's own (asked of the machine, not restated here), so a final task never moves.
 * The TaskManager turns the changes of a returned Task into events for the task's actor.
 */
import { randomUUID } from "node:crypto";
import { Value } from "@sinclair/typebox/value";
import { taskMachine, type TaskEvent } from "../../actors/task.machine.ts";
import { TaskStateError, ValueError } from "./errors.ts";
import {
  finalStates,
  MessagePartSchema,
  TaskStates,
  type MessagePart,
  type Role,
  type TaskArtifact,
  type TaskDict,
  type TaskMessage,
  type TaskState,
} from "./model.ts";

/** The machine event that moves a task into each state; `pending` is only ever the start. */
export const eventInto: Record<TaskState, TaskEvent["type"] | undefined> = {
  pending: undefined,
  running: "START",
  completed: "COMPLETE",
  failed: "FAIL",
  cancelled: "CANCEL",
};

const probe = { id: "", type: "", contextId: "", payload: null, messages: [], metadata: {}, artifacts: [], createdAt: 0, updatedAt: 0, revision: 0 };
// Asked once of the machine for each pair of states.
const allowed = new Set(
  TaskStates.flatMap((from) =>
    TaskStates.filter((to) => {
      const type = eventInto[to];
      return type !== undefined && taskMachine.resolveState({ value: from, context: probe }).can({ type, at: 0, error: "" });
    }).map((to) => `${from}>${to}`),
  ),
);

/** Whether the task machine lets a task in `from` move to `to`. */
export const canMove = (from: TaskState, to: TaskState) => allowed.has(`${from}>${to}`);

export interface TaskFields {
  type: string;
  id?: string;
  state?: TaskState;
  contextId?: string;
  payload?: unknown;
  messages?: TaskMessage[];
  result?: unknown;
  artifacts?: TaskArtifact[];
  error?: string;
  metadata?: Record<string, unknown>;
  createdAt?: Date;
  updatedAt?: Date;
}

export class Task {
  readonly id: string;
  readonly type: string;
  state: TaskState;
  contextId: string;
  payload: unknown;
  messages: TaskMessage[];
  result: unknown;
  artifacts: TaskArtifact[];
  error: string | undefined;
  metadata: Record<string, unknown>;
  readonly createdAt: Date;
  updatedAt: Date;

  constructor(fields: TaskFields) {
    if (typeof fields.type !== "string" || !fields.type) throw new ValueError("A task needs a type");
    const now = new Date();
    this.id = fields.id ?? randomUUID();
    this.type = fields.type;
    this.state = fields.state ?? "pending";
    this.contextId = fields.contextId ?? this.id;
    this.payload = fields.payload ?? {};
    this.messages = fields.messages ?? [];
    this.result = fields.result;
    this.artifacts = fields.artifacts ?? [];
    this.error = fields.error;
    this.metadata = fields.metadata ?? {};
    this.createdAt = fields.createdAt ?? now;
    this.updatedAt = fields.updatedAt ?? this.createdAt;
  }

  /** Moves to `state` if the task machine allows it from the current one; throws TaskStateError otherwise. */
  updateState(state: TaskState, outcome: { result?: unknown; error?: string } = {}): this {
    if (!canMove(this.state, state)) throw new TaskStateError(this.id, this.state, state);
    this.state = state;
    if (state === "completed" && "result" in outcome) this.result = outcome.result;
    if (state === "failed") this.error = outcome.error ?? "failed";
    return this.touch();
  }

  addMessage(role: Role, parts: MessagePart[] | string): TaskMessage {
    const list = typeof parts === "string" ? [{ kind: "text" as const, text: parts }] : parts;
    if (role !== "user" && role !== "agent") throw new ValueError(`A message role is "user" or "agent", not ${JSON.stringify(role)}`);
    if (!list.length) throw new ValueError("A message needs at least one part");
    for (const part of list) if (!Value.Check(MessagePartSchema, part)) throw new ValueError(`Not a message part: ${JSON.stringify(part)}`);
    const message: TaskMessage = { id: randomUUID(), role, parts: list, createdAt: new Date().toISOString() };
    this.messages.push(message);
    this.touch();
    return message;
  }

  addArtifact(type: string, data: unknown, metadata: Record<string, unknown> = {}): TaskArtifact {
    if (!type) throw new ValueError("An artifact needs a type");
    const artifact: TaskArtifact = { id: randomUUID(), type, data, metadata, createdAt: new Date().toISOString() };
    this.artifacts.push(artifact);
    this.touch();
    return artifact;
  }

  markRunning(): this {
    return this.updateState("running");
  }

  /** Without an argument the result set so far stays. */
  markCompleted(...result: [unknown?]): this {
    return this.updateState("completed", { result: result.length ? result[0] : this.result });
  }

  markFailed(error: string): this {
    return this.updateState("failed", { error });
  }

  markCancelled(): this {
    return this.updateState("cancelled");
  }

  isTerminal(): boolean {
    return finalStates.has(this.state);
  }

  /** The JSON-RPC request that asks a server for this task: `task.send` carries it, the others name its id. */
  toJSONRPC(method = "task.send") {
    const params =
      method === "task.send"
        ? { type: this.type, payload: this.payload, messages: this.messages, metadata: this.metadata, contextId: this.contextId }
        : { id: this.id };
    return { jsonrpc: "2.0" as const, id: this.id, method, params };
  }

  toDict(): TaskDict {
    return {
      id: this.id,
      type: this.type,
      state: this.state,
      contextId: this.contextId,
      payload: this.payload,
      messages: this.messages,
      result: this.result ?? null,
      artifacts: this.artifacts,
      error: this.error ?? null,
      metadata: this.metadata,
      createdAt: this.createdAt.toISOString(),
      updatedAt: this.updatedAt.toISOString(),
    };
  }

  toJSON(): TaskDict {
    return this.toDict();
  }

  static fromDict(dict: TaskDict | (Partial<TaskDict> & { type: string })): Task {
    if (dict.state !== undefined && !TaskStates.includes(dict.state)) throw new ValueError(`Unknown task state: ${dict.state}`);
    return new Task({
      id: dict.id,
      type: dict.type,
      state: dict.state,
      contextId: dict.contextId,
      payload: dict.payload,
      messages: dict.messages,
      result: dict.result ?? undefined,
      artifacts: dict.artifacts,
      error: dict.error ?? undefined,
      metadata: dict.metadata,
      createdAt: dict.createdAt ? new Date(dict.createdAt) : undefined,
      updatedAt: dict.updatedAt ? new Date(dict.updatedAt) : undefined,
    });
  }

  private touch(): this {
    const now = Date.now();
    // Strictly later, so two updates in one millisecond still order.
    this.updatedAt = new Date(Math.max(now, this.updatedAt.getTime() + 1));
    return this;
  }
}
