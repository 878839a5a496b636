/**
 * Shapes of the public A2A protocol, v1.0 (ProtoJSON: `TASK_STATE_*`, `ROLE_*`, parts as `{text}|{data}|
 * {raw}|{url}`) and v0.3 (`kind`-tagged objects, lowercase states), mapped to and from the native task.
 * Only shapes live here; the methods that use them are in methods.ts. docs/a2a.md tabulates the mapping.
 */
import { invalidParams } from "./errors.ts";
import type { MessagePart, Role, TaskArtifact, TaskMessage, TaskState } from "./model.ts";
import type { AgentCard } from "./card.ts";
import type { Task } from "./task.ts";

type Json = Record<string, unknown>;
export type ProtocolVersion = "1.0" | "0.3";

const v1States: Record<TaskState, string> = {
  pending: "TASK_STATE_SUBMITTED",
  running: "TASK_STATE_WORKING",
  completed: "TASK_STATE_COMPLETED",
  failed: "TASK_STATE_FAILED",
  cancelled: "TASK_STATE_CANCELED",
};
const v03States: Record<TaskState, string> = {
  pending: "submitted",
  running: "working",
  completed: "completed",
  failed: "failed",
  cancelled: "canceled",
};
/** v1.0 ListTasks status filter, back to the native state. */
export const nativeStateOfV1 = Object.fromEntries(Object.entries(v1States).map(([k, v]) => [v, k as TaskState]));

const isObject = (value: unknown): value is Json => value !== null && typeof value === "object" && !Array.isArray(value);

// --- parts and messages ---

function v1Part(part: MessagePart): Json {
  const meta = part.metadata ? { metadata: part.metadata } : {};
  if (part.kind === "text") return { text: part.text, ...meta };
  if (part.kind === "data") return { data: part.data, ...meta };
  const { name, mimeType } = part.file;
  const described = { ...(name ? { filename: name } : {}), ...(mimeType ? { mediaType: mimeType } : {}), ...meta };
  return "bytes" in part.file ? { raw: part.file.bytes, ...described } : { url: part.file.uri, ...described };
}

function fromV1Part(part: unknown, at: string): MessagePart {
  if (!isObject(part)) throw invalidParams(`Invalid params at ${at}: a part must be an object`);
  const metadata = isObject(part.metadata) ? { metadata: part.metadata } : {};
  const file = { ...(typeof part.filename === "string" && part.filename ? { name: part.filename } : {}), ...(typeof part.mediaType === "string" && part.mediaType ? { mimeType: part.mediaType } : {}) };
  if (typeof part.text === "string") return { kind: "text", text: part.text, ...metadata };
  if (typeof part.raw === "string") return { kind: "file", file: { ...file, bytes: part.raw }, ...metadata };
  if (typeof part.url === "string") return { kind: "file", file: { ...file, uri: part.url }, ...metadata };
  if ("data" in part) return { kind: "data", data: part.data, ...metadata };
  throw invalidParams(`Invalid params at ${at}: a part needs one of text, raw, url or data`);
}

function fromV03Part(part: unknown, at: string): MessagePart {
  if (!isObject(part)) throw invalidParams(`Invalid params at ${at}: a part must be an object`);
  const metadata = isObject(part.metadata) ? { metadata: part.metadata } : {};
  if (part.kind === "text" && typeof part.text === "string") return { kind: "text", text: part.text, ...metadata };
  if (part.kind === "data" && "data" in part) return { kind: "data", data: part.data, ...metadata };
  if (part.kind === "file" && isObject(part.file)) {
    const { name, mimeType, bytes, uri } = part.file;
    const described = { ...(typeof name === "string" ? { name } : {}), ...(typeof mimeType === "string" ? { mimeType } : {}) };
    if (typeof bytes === "string") return { kind: "file", file: { ...described, bytes }, ...metadata };
    if (typeof uri === "string") return { kind: "file", file: { ...described, uri }, ...metadata };
  }
  throw invalidParams(`Invalid params at ${at}: a part is {kind: "text"|"data"|"file", ...}`);
}

/** The message a client sent (`params.message`), as a native message. */
export function messageFrom(version: ProtocolVersion, message: unknown): TaskMessage {
  if (!isObject(message)) throw invalidParams("Invalid params at /message: required, an object");
  const roles: Record<string, Role> = version === "1.0" ? { ROLE_USER: "user", ROLE_AGENT: "agent" } : { user: "user", agent: "agent" };
  const role = roles[String(message.role)];
  if (!role) throw invalidParams(`Invalid params at /message/role: expected one of ${Object.keys(roles).join(", ")}`);
  if (!Array.isArray(message.parts) || !message.parts.length) throw invalidParams("Invalid params at /message/parts: at least one part");
  const parts = message.parts.map((p, i) => (version === "1.0" ? fromV1Part : fromV03Part)(p, `/message/parts/${i}`));
  const id = typeof message.messageId === "string" && message.messageId ? message.messageId : crypto.randomUUID();
  return { id, role, parts, createdAt: new Date().toISOString(), ...(isObject(message.metadata) ? { metadata: message.metadata } : {}) };
}

/** What a handler gets as payload from a message: the first data part's value, else the text joined. */
export function payloadOf(message: TaskMessage): unknown {
  const data = message.parts.find((p) => p.kind === "data");
  if (data) return data.data;
  return { text: message.parts.flatMap((p) => (p.kind === "text" ? [p.text] : [])).join("\n") };
}

function messageTo(version: ProtocolVersion, task: Task, m: TaskMessage): Json {
  const meta = m.metadata ? { metadata: m.metadata } : {};
  if (version === "1.0")
    return { messageId: m.id, contextId: task.contextId, taskId: task.id, role: m.role === "user" ? "ROLE_USER" : "ROLE_AGENT", parts: m.parts.map(v1Part), ...meta };
  return { kind: "message", messageId: m.id, contextId: task.contextId, taskId: task.id, role: m.role, parts: m.parts.map(v03Part), ...meta };
}

// v0.3 data parts carry objects only.
const v03Part = (part: MessagePart): MessagePart => (part.kind === "data" && !isObject(part.data) ? { ...part, data: { value: part.data } } : part);

// --- artifacts and tasks ---

const valuePart = (value: unknown): MessagePart => (typeof value === "string" ? { kind: "text", text: value } : { kind: "data", data: value });

/** Native artifacts, plus the task's result as an artifact named `result`. */
function artifactsTo(version: ProtocolVersion, task: Task): Json[] {
  const all: TaskArtifact[] =
    task.result === undefined || task.result === null
      ? task.artifacts
      : [...task.artifacts, { id: `${task.id}:result`, type: "result", data: task.result, metadata: {}, createdAt: task.updatedAt.toISOString() }];
  return all.map((a) => {
    const part = valuePart(a.data);
    return { artifactId: a.id, name: a.type, parts: [version === "1.0" ? v1Part(part) : v03Part(part)], metadata: { ...a.metadata, createdAt: a.createdAt } };
  });
}

function statusTo(version: ProtocolVersion, task: Task): Json {
  const state = version === "1.0" ? v1States[task.state] : v03States[task.state];
  const failure =
    task.state === "failed" && task.error
      ? { message: messageTo(version, task, { id: `${task.id}:error`, role: "agent", parts: [{ kind: "text", text: task.error }], createdAt: task.updatedAt.toISOString() }) }
      : {};
  return { state, timestamp: task.updatedAt.toISOString(), ...failure };
}

export function taskTo(version: ProtocolVersion, task: Task, historyLength?: number): Json {
  const messages = historyLength === undefined ? task.messages : historyLength <= 0 ? [] : task.messages.slice(-historyLength);
  return {
    ...(version === "0.3" ? { kind: "task" } : {}),
    id: task.id,
    contextId: task.contextId,
    status: statusTo(version, task),
    artifacts: artifactsTo(version, task),
    history: messages.map((m) => messageTo(version, task, m)),
    metadata: { ...task.metadata, taskType: task.type },
  };
}

/**
 * Stream results for one change: the whole task first, then per change the new artifacts and the status
 * (v0.3 marks the last status `final`).
 */
export function streamResultsTo(version: ProtocolVersion, task: Task, previous: Task | undefined, final: boolean): Json[] {
  if (!previous) return [version === "1.0" ? { task: taskTo(version, task) } : taskTo(version, task)];
  const seen = new Set(artifactsTo(version, previous).map((a) => a.artifactId));
  const ids = { taskId: task.id, contextId: task.contextId };
  const artifacts = artifactsTo(version, task)
    .filter((a) => !seen.has(a.artifactId))
    .map((artifact) =>
      version === "1.0"
        ? { artifactUpdate: { ...ids, artifact, append: false, lastChunk: true } }
        : { kind: "artifact-update", ...ids, artifact, append: false, lastChunk: true },
    );
  const status = statusTo(version, task);
  return [...artifacts, version === "1.0" ? { statusUpdate: { ...ids, status } } : { kind: "status-update", ...ids, status, final }];
}

// --- agent card ---

/**
 * The v1.0 agent card (served at /.well-known/agent-card.json): one JSON-RPC endpoint speaking 1.0 and 0.3, and
 * the HTTP+JSON binding of 1.0.
 * `extended` says whether the agent also has an extended card for authenticated callers.
 */
export function cardTo(card: AgentCard, rpcUrl: string, restUrl: string, { extended = false, push = false }: { extended?: boolean; push?: boolean } = {}): Json {
  const spiffeId = card.getSpiffeId();
  const schemes = Object.fromEntries(
    card.authentication.schemes.map((s) => [
      s.type,
      s.type === "spiffe" || s.type === "mtls"
        ? { mtlsSecurityScheme: { description: s.description ?? "mutual TLS" } }
        : { httpAuthSecurityScheme: { scheme: s.type, description: s.description ?? "" } },
    ]),
  );
  return {
    name: card.name,
    description: card.description,
    version: card.version,
    supportedInterfaces: [
      { url: rpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: restUrl, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: rpcUrl, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
    capabilities: {
      streaming: true,
      pushNotifications: push,
      extensions: spiffeId ? [{ uri: "urn:platform:a2a:spiffe-id", description: "The agent's SPIFFE id", required: false, params: { spiffeId } }] : [],
      extendedAgentCard: extended,
    },
    securitySchemes: schemes,
    securityRequirements: Object.keys(schemes).map((name) => ({ schemes: { [name]: { list: [] } } })),
    defaultInputModes: ["application/json", "text/plain"],
    defaultOutputModes: ["application/json", "text/plain"],
    skills: card.capabilities.map((c) => ({
      id: c.name,
      name: c.name,
      description: c.description,
      tags: [],
      examples: [],
      inputModes: c.inputModes,
      outputModes: c.outputModes,
    })),
  };
}

/**
 * The v0.3 card, from the v1.0 one as the A2A SDK's compat layer derives it: the first 0.3 interface is the card's
 * `url`, the others `additionalInterfaces`, security schemes in their OpenAPI form; the v1.0 interfaces stay
 * listed in `supportedInterfaces`, so a v1.0 client that asked without a version still finds its own.
 */
export function cardTo03(v1: Json): Json {
  const interfaces = v1.supportedInterfaces as { url: string; protocolBinding: string; protocolVersion: string }[];
  const [primary, ...others] = interfaces.filter((i) => i.protocolVersion === "0.3");
  const capabilities = v1.capabilities as { streaming: boolean; pushNotifications: boolean; extensions: unknown[]; extendedAgentCard: boolean };
  const schemes = Object.fromEntries(
    Object.entries(v1.securitySchemes as Record<string, Json>).map(([name, scheme]) => {
      const mtls = scheme.mtlsSecurityScheme as { description: string } | undefined;
      const http = scheme.httpAuthSecurityScheme as { scheme: string; description: string } | undefined;
      return [name, mtls ? { type: "mutualTLS", description: mtls.description } : { type: "http", scheme: http!.scheme, description: http!.description }];
    }),
  );
  return {
    protocolVersion: "0.3.0",
    name: v1.name,
    description: v1.description,
    version: v1.version,
    url: primary!.url,
    preferredTransport: primary!.protocolBinding,
    ...(others.length ? { additionalInterfaces: others.map((i) => ({ url: i.url, transport: i.protocolBinding })) } : {}),
    capabilities: { streaming: capabilities.streaming, pushNotifications: capabilities.pushNotifications, extensions: capabilities.extensions },
    securitySchemes: schemes,
    security: Object.keys(schemes).map((name) => ({ [name]: [] })),
    defaultInputModes: v1.defaultInputModes,
    defaultOutputModes: v1.defaultOutputModes,
    skills: v1.skills,
    supportsAuthenticatedExtendedCard: capabilities.extendedAgentCard,
    supportedInterfaces: interfaces,
  };
}

/** The card version a request asks for: `A2A-Version` 1.x is 1.0; 0.3 or no header is 0.3. */
export const requestedVersion = (request: Request): ProtocolVersion => (request.headers.get("a2a-version")?.trim().startsWith("1") ? "1.0" : "0.3");
