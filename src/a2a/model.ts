/**
 * The A2A task model as TypeBox schemas: message parts, messages, artifacts, the task's wire form and the
 * params of the native JSON-RPC methods. One value serves as the TypeScript type and the validator.
 */
import { type Static, Type } from "@sinclair/typebox";

export const TaskStates = ["pending", "running", "completed", "failed", "cancelled"] as const;
export const TaskStateSchema = Type.Union(TaskStates.map((s) => Type.Literal(s)));
export type TaskState = Static<typeof TaskStateSchema>;
export const finalStates: ReadonlySet<TaskState> = new Set(["completed", "failed", "cancelled"]);

const Metadata = Type.Record(Type.String(), Type.Unknown());

/** A file travels inline as base64 `bytes` or by reference as `uri`, never both. */
const FileContent = Type.Union([
  Type.Object(
    { name: Type.Optional(Type.String()), mimeType: Type.Optional(Type.String()), bytes: Type.String({ contentEncoding: "base64" }) },
    { additionalProperties: false },
  ),
  Type.Object(
    { name: Type.Optional(Type.String()), mimeType: Type.Optional(Type.String()), uri: Type.String({ minLength: 1 }) },
    { additionalProperties: false },
  ),
]);

export const MessagePartSchema = Type.Union([
  Type.Object({ kind: Type.Literal("text"), text: Type.String(), metadata: Type.Optional(Metadata) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal("data"), data: Type.Unknown(), metadata: Type.Optional(Metadata) }, { additionalProperties: false }),
  Type.Object({ kind: Type.Literal("file"), file: FileContent, metadata: Type.Optional(Metadata) }, { additionalProperties: false }),
]);
export type MessagePart = Static<typeof MessagePartSchema>;

export const RoleSchema = Type.Union([Type.Literal("user"), Type.Literal("agent")]);
export type Role = Static<typeof RoleSchema>;

/** A message as a client sends it; the server gives it an id and a timestamp when absent. */
export const MessageInputSchema = Type.Object(
  {
    role: RoleSchema,
    parts: Type.Array(MessagePartSchema, { minItems: 1 }),
    id: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    metadata: Type.Optional(Metadata),
  },
  { additionalProperties: false },
);
export type MessageInput = Static<typeof MessageInputSchema>;

export interface TaskMessage {
  id: string;
  role: Role;
  parts: MessagePart[];
  /** ISO 8601. */
  createdAt: string;
  metadata?: Record<string, unknown>;
}

/** The stored form of an artifact: a typed JSON value the task produced. */
export interface TaskArtifact {
  id: string;
  type: string;
  data: unknown;
  metadata: Record<string, unknown>;
  /** ISO 8601. */
  createdAt: string;
}

/** A task on the wire (`toDict()`): timestamps are ISO 8601, absent result and error are null. */
export interface TaskDict {
  id: string;
  type: string;
  state: TaskState;
  contextId: string;
  payload: unknown;
  messages: TaskMessage[];
  result: unknown;
  artifacts: TaskArtifact[];
  error: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
  updatedAt: string;
}

export const TaskTypeSchema = Type.String({ minLength: 1, maxLength: 128, pattern: "^[A-Za-z0-9_.:/-]+$" });
const TaskId = Type.String({ minLength: 1, maxLength: 128 });

/** `task.send`: run a task of `type` on `payload`; `blocking` (default true) answers once the task is final. */
export const SendParams = Type.Object(
  {
    type: TaskTypeSchema,
    payload: Type.Optional(Type.Unknown()),
    messages: Type.Optional(Type.Array(MessageInputSchema, { maxItems: 1000 })),
    metadata: Type.Optional(Metadata),
    contextId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    blocking: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type SendParams = Static<typeof SendParams>;

/** `task.status` and `task.cancel`. */
export const TaskIdParams = Type.Object({ id: TaskId }, { additionalProperties: false });
export type TaskIdParams = Static<typeof TaskIdParams>;
