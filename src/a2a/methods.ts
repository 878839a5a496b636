/**
 * The JSON-RPC methods of /rpc: the native `task.*` methods and the public A2A protocol's v1.0 and v0.3
 * methods, all on the same task actors. Each checks authorization before it touches anything.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { Type } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { encoder, taskEventStream } from "./stream.ts";
import { invalidParams, RpcCode, RpcError, TaskNotFoundError, UnauthorizedError, UnsupportedTaskTypeError, unsupportedOperation } from "./errors.ts";
import type { TaskHandlers } from "./handlers.ts";
import { SendParams, TaskIdParams, TaskStates, type TaskMessage } from "./model.ts";
import { messageFrom, nativeStateOfV1, payloadOf, streamResultsTo, taskTo, type ProtocolVersion } from "./protocol.ts";
import { StreamAnswer, type CallContext, type Method } from "./rpc.ts";
import type { PushConfigInput, PushNotifications } from "./push.ts";
import type { A2aPushConfigRow as PushRow } from "../db/schema.ts";
import type { TaskManager } from "./service.ts";
import type { Task } from "./task.ts";

/** Facts handed to policy with each action. */
export interface ActionContext {
  method: string;
  taskType?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
}

export interface MethodDeps {
  manager: TaskManager;
  handlers: TaskHandlers;
  /** Throws UnauthorizedError when the caller may not take `action`. */
  authorize(callerId: string | undefined, action: string, context: ActionContext): Promise<void>;
  /** Task type for an A2A message that names none in `metadata.taskType`. */
  defaultTaskType?: string;
  /** Push notifications; without them the push config methods are PushNotificationNotSupported (-32003). */
  push?: PushNotifications;
  /** The extended agent card in each version's shape, if the agent has one (for authenticated callers only). */
  extendedCard?: (version: ProtocolVersion, call: CallContext) => unknown;
}

// Compiled once per schema: params are checked on every call.
const checks = new WeakMap<TSchema, TypeCheck<TSchema>>();

function parse<S extends TSchema>(schema: S, params: unknown): Static<S> {
  let check = checks.get(schema);
  if (!check) checks.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(params)) return params as Static<S>;
  const error = check.Errors(params).First();
  const path = error?.path || "/";
  throw invalidParams(`Invalid params at ${path}: ${error?.message ?? "invalid"}`, { path });
}

export function buildMethods(deps: MethodDeps): Map<string, Method> {
  const { manager, handlers, authorize } = deps;

  /** Authorizes `action` on an existing task (policy sees its type), then returns it. */
  async function existing(id: string, action: string, method: string, call: CallContext): Promise<Task> {
    const task = await manager.getTask(id);
    await authorize(call.callerId, action, { method, taskId: id, taskType: task?.type });
    if (!task) throw new TaskNotFoundError(id);
    return task;
  }

  /** Creates a task and starts its handler; with `blocking`, resolves once the task is final. */
  /** Creates a task and starts its handler; with `blocking`, resolves once the task is final. */
  async function send(
    method: string,
    input: { type: string; payload: unknown; messages: TaskMessage[] | undefined; metadata?: Record<string, unknown>; contextId?: string },
    blocking: boolean,
    call: CallContext,
    /** A push config sent with the message, in the version it came in. */
    push?: { config: PushConfigInput; version: ProtocolVersion },
  ): Promise<Task> {
    await authorize(call.callerId, "task.send", { method, taskType: input.type, metadata: input.metadata });
    if (push) await authorize(call.callerId, "task.notify", { method, taskType: input.type, metadata: input.metadata });
    if (!handlers.get(input.type)) throw new UnsupportedTaskTypeError(input.type, handlers.types());
    const checked = push && (await pushOf().checked(push.config));
    const task = await manager.createTask({ ...input, owner: call.callerId }, { started: true });
    // Before the handler starts, so its first change is pushed too.
    if (checked) await pushOf().save(task.id, checked, push.version);
    const ran = handlers.run(manager, task, call.callerId);
    if (!blocking || call.notification) {
      ran.catch(() => {}); // reported by the handlers; nobody waits for this answer
      return (await manager.getTask(task.id))!;
    }
    return (await ran) ?? (await manager.getTask(task.id))!;
  }

  // --- native ---
  const native: Record<string, Method> = {
    "task.send": {
      async run(params, call) {
        const p = parse(SendParams, params);
        const messages = p.messages?.map((m) => ({ ...m, id: m.id ?? crypto.randomUUID(), createdAt: new Date().toISOString() }));
        const task = await send("task.send", { type: p.type, payload: p.payload ?? {}, messages, metadata: p.metadata, contextId: p.contextId }, p.blocking ?? true, call);
        return task.toDict();
      },
    },
    "task.status": {
      async run(params, call) {
        return (await existing(parse(TaskIdParams, params).id, "task.status", "task.status", call)).toDict();
      },
    },
    "task.cancel": {
      async run(params, call) {
        const { id } = parse(TaskIdParams, params);
        await existing(id, "task.cancel", "task.cancel", call);
        return (await manager.cancel(id)).toDict();
      },
    },
  };

  // --- public A2A protocol ---
  const A2ASend = Type.Object({
    message: Type.Unknown(),
    configuration: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  });
  const AuthV1 = Type.Object({ scheme: Type.String(), credentials: Type.Optional(Type.String()) });
  const V03Config = Type.Object({
    id: Type.Optional(Type.String()),
    url: Type.String(),
    token: Type.Optional(Type.String()),
    authentication: Type.Optional(Type.Object({ schemes: Type.Array(Type.String()), credentials: Type.Optional(Type.String()) })),
  });
  const A2AGet = Type.Object({ id: Type.String({ minLength: 1 }), historyLength: Type.Optional(Type.Integer()) });

  function a2aInput(version: ProtocolVersion, params: unknown) {
    const p = parse(A2ASend, params);
    const message = messageFrom(version, p.message);
    const raw = p.message as Record<string, unknown>;
    if (typeof raw.taskId === "string" && raw.taskId)
      throw new RpcError(RpcCode.UnsupportedTaskType, "Continuing an existing task with a new message is not supported; send a new task");
    const type = p.metadata?.taskType ?? message.metadata?.taskType ?? deps.defaultTaskType;
    if (typeof type !== "string" || !type)
      throw invalidParams(`Invalid params at /metadata/taskType: name one of this agent's skills (${handlers.types().join(", ")}); it has no default skill`, {
        path: "/metadata/taskType",
        skills: handlers.types(),
      });
    const contextId = typeof raw.contextId === "string" && raw.contextId ? raw.contextId : undefined;
    const blocking = version === "1.0" ? p.configuration?.returnImmediately !== true : p.configuration?.blocking !== false;
    const historyLength = typeof p.configuration?.historyLength === "number" ? p.configuration.historyLength : undefined;
    const config = pushConfigIn(version, p.configuration);
    return {
      input: { type, payload: payloadOf(message), messages: [message], metadata: p.metadata, contextId },
      blocking,
      historyLength,
      push: config && { config, version },
    };
  }

  /** An SSE answer carrying each change as JSON-RPC responses with the request's id. */
  const streamOf = (version: ProtocolVersion, id: string, call: CallContext) =>
    new StreamAnswer((envelope) =>
      taskEventStream(
        manager,
        id,
        0,
        (update, previous) => {
          const results = streamResultsTo(version, update.task, previous?.task, update.final);
          const events = results.map((result) => `id: ${update.revision}\ndata: ${JSON.stringify(envelope(result))}\n\n`);
          return encoder.encode(events.join(""));
        },
        call.request.signal,
      ),
    );

  function a2a(version: ProtocolVersion, names: { send: string; stream: string; get: string; cancel: string; subscribe: string; extendedCard: string }) {
    const methods: Record<string, Method> = {
      [names.send]: {
        async run(params, call) {
          const { input, blocking, historyLength, push } = a2aInput(version, params);
          const task = taskTo(version, await send(names.send, input, blocking, call, push), historyLength);
          return version === "1.0" ? { task } : task;
        },
      },
      [names.stream]: {
        streaming: true,
        errorsInStream: version === "0.3",
        async run(params, call) {
          const { input, push } = a2aInput(version, params);
          const task = await send(names.stream, input, false, call, push);
          return streamOf(version, task.id, call);
        },
      },
      [names.get]: {
        async run(params, call) {
          const p = parse(A2AGet, params);
          return taskTo(version, await existing(p.id, "task.status", names.get, call), p.historyLength);
        },
      },
      [names.cancel]: {
        async run(params, call) {
          const { id } = parse(Type.Object({ id: Type.String({ minLength: 1 }) }), params);
          await existing(id, "task.cancel", names.cancel, call);
          return taskTo(version, await manager.cancel(id));
        },
      },
      [names.subscribe]: {
        streaming: true,
        errorsInStream: version === "0.3",
        async run(params, call) {
          const { id } = parse(Type.Object({ id: Type.String({ minLength: 1 }) }), params);
          const task = await existing(id, "task.status", names.subscribe, call);
          if (task.isTerminal()) throw unsupportedOperation(`Task ${id} is ${task.state}: a final task has no updates to subscribe to; read it with ${names.get}`, { id, state: task.state });
          return streamOf(version, id, call);
        },
      },
      [names.extendedCard]: {
        async run(_params, call) {
          const card = deps.extendedCard?.(version, call);
          if (card === undefined) throw new RpcError(RpcCode.ExtendedCardNotConfigured, "This agent has no extended agent card", {});
          if (!call.callerId) throw new UnauthorizedError(names.extendedCard, "the extended agent card is for authenticated callers only");
          await authorize(call.callerId, "agent-card:read", { method: names.extendedCard });
          return card;
        },
      },
    };
    return methods;
  }

  // --- push notification configs ---
  /** The push config a message carries in its configuration (v1.0 `taskPushNotificationConfig`, v0.3 `pushNotificationConfig`). */
  function pushConfigIn(version: ProtocolVersion, configuration: Record<string, unknown> | undefined): PushConfigInput | undefined {
    const given = configuration?.[version === "1.0" ? "taskPushNotificationConfig" : "pushNotificationConfig"];
    if (given === undefined || given === null) return undefined;
    if (version === "1.0") return parse(Type.Object({ id: Type.Optional(Type.String()), url: Type.String(), token: Type.Optional(Type.String()), authentication: Type.Optional(AuthV1) }), given);
    const { authentication, ...rest } = parse(V03Config, given);
    const scheme = authentication?.schemes[0];
    return { ...rest, ...(scheme ? { authentication: { scheme, credentials: authentication.credentials } } : {}) };
  }
  const pushOf = () => {
    if (!deps.push) throw new RpcError(RpcCode.PushNotificationNotSupported, "This agent does not send push notifications");
    return deps.push;
  };
  /** Authorizes `task.notify` on an existing task for the push config methods. */
  const notifiable = (taskId: string, method: string, call: CallContext) => existing(taskId, "task.notify", method, call);

  const v1Config = (row: PushRow) => ({
    id: row.id,
    taskId: row.taskId,
    url: row.url,
    token: row.token ?? "",
    ...(row.authScheme ? { authentication: { scheme: row.authScheme, credentials: "" } } : {}),
  });
  const v03Config = (row: PushRow) => ({
    taskId: row.taskId,
    pushNotificationConfig: {
      id: row.id,
      url: row.url,
      ...(row.token ? { token: row.token } : {}),
      ...(row.authScheme ? { authentication: { schemes: [row.authScheme] } } : {}),
    },
  });
  const pushMethods: Record<string, Method> = {
    CreateTaskPushNotificationConfig: {
      async run(params, call) {
        const p = parse(Type.Object({ taskId: Type.String({ minLength: 1 }), id: Type.Optional(Type.String()), url: Type.String(), token: Type.Optional(Type.String()), authentication: Type.Optional(AuthV1) }), params);
        const push = pushOf();
        await notifiable(p.taskId, "CreateTaskPushNotificationConfig", call);
        return v1Config(await push.set(p.taskId, p, "1.0"));
      },
    },
    GetTaskPushNotificationConfig: {
      async run(params, call) {
        const p = parse(Type.Object({ taskId: Type.String({ minLength: 1 }), id: Type.String({ minLength: 1 }) }), params);
        const push = pushOf();
        await notifiable(p.taskId, "GetTaskPushNotificationConfig", call);
        return v1Config(await push.get(p.taskId, p.id));
      },
    },
    ListTaskPushNotificationConfigs: {
      async run(params, call) {
        const p = parse(Type.Object({ taskId: Type.String({ minLength: 1 }), pageSize: Type.Optional(Type.Integer()), pageToken: Type.Optional(Type.String()) }), params);
        const push = pushOf();
        await notifiable(p.taskId, "ListTaskPushNotificationConfigs", call);
        return { configs: (await push.list(p.taskId)).map(v1Config), nextPageToken: "" };
      },
    },
    DeleteTaskPushNotificationConfig: {
      async run(params, call) {
        const p = parse(Type.Object({ taskId: Type.String({ minLength: 1 }), id: Type.String({ minLength: 1 }) }), params);
        const push = pushOf();
        await notifiable(p.taskId, "DeleteTaskPushNotificationConfig", call);
        await push.delete(p.taskId, p.id);
        return null;
      },
    },
    "tasks/pushNotificationConfig/set": {
      async run(params, call) {
        const p = parse(
          Type.Object({
            taskId: Type.String({ minLength: 1 }),
            pushNotificationConfig: V03Config,
          }),
          params,
        );
        const push = pushOf();
        await notifiable(p.taskId, "tasks/pushNotificationConfig/set", call);
        const { authentication, ...config } = p.pushNotificationConfig;
        const scheme = authentication?.schemes[0];
        return v03Config(await push.set(p.taskId, { ...config, ...(scheme ? { authentication: { scheme, credentials: authentication.credentials } } : {}) }, "0.3"));
      },
    },
    "tasks/pushNotificationConfig/get": {
      async run(params, call) {
        const p = parse(Type.Object({ id: Type.String({ minLength: 1 }), pushNotificationConfigId: Type.Optional(Type.String()) }), params);
        const push = pushOf();
        await notifiable(p.id, "tasks/pushNotificationConfig/get", call);
        if (p.pushNotificationConfigId) return v03Config(await push.get(p.id, p.pushNotificationConfigId));
        const [first] = await push.list(p.id);
        if (!first) throw new RpcError(RpcCode.TaskNotFound, `Task ${p.id} has no push notification config`, { id: p.id });
        return v03Config(first);
      },
    },
    "tasks/pushNotificationConfig/list": {
      async run(params, call) {
        const p = parse(Type.Object({ id: Type.String({ minLength: 1 }) }), params);
        const push = pushOf();
        await notifiable(p.id, "tasks/pushNotificationConfig/list", call);
        return (await push.list(p.id)).map(v03Config);
      },
    },
    "tasks/pushNotificationConfig/delete": {
      async run(params, call) {
        const p = parse(Type.Object({ id: Type.String({ minLength: 1 }), pushNotificationConfigId: Type.String({ minLength: 1 }) }), params);
        const push = pushOf();
        await notifiable(p.id, "tasks/pushNotificationConfig/delete", call);
        await push.delete(p.id, p.pushNotificationConfigId);
        return null;
      },
    },
  };

  const ListParams = Type.Object({
    tenant: Type.Optional(Type.String()),
    contextId: Type.Optional(Type.String()),
    status: Type.Optional(Type.String()),
    statusTimestampAfter: Type.Optional(Type.String()),
    pageSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
    pageToken: Type.Optional(Type.String()),
    historyLength: Type.Optional(Type.Integer({ minimum: 0 })),
    includeArtifacts: Type.Optional(Type.Boolean()),
  });
  const listTasks: Method = {
    async run(params, call) {
      const p = parse(ListParams, params);
      await authorize(call.callerId, "task.list", { method: "ListTasks" });
      const unfiltered = !p.status || p.status === "TASK_STATE_UNSPECIFIED";
      const state = unfiltered ? undefined : (nativeStateOfV1[p.status!] ?? (TaskStates.includes(p.status as never) ? p.status : undefined));
      if (!unfiltered && !state) throw invalidParams(`Invalid params at /status: unknown task state ${p.status}`, { path: "/status" });
      const after = p.statusTimestampAfter ? new Date(p.statusTimestampAfter) : undefined;
      if (after && Number.isNaN(after.getTime())) throw invalidParams("Invalid params at /statusTimestampAfter: an ISO 8601 timestamp", { path: "/statusTimestampAfter" });
      // A caller sees its own tasks: those it sent with the identity it has now (unidentified callers share theirs).
      const all = await manager.listTasks(state as never, undefined, { contextId: p.contextId || undefined, owner: call.callerId ?? null, updatedAfter: after });
      const offset = p.pageToken ? Number(p.pageToken) : 0;
      if (!Number.isSafeInteger(offset) || offset < 0) throw invalidParams("Invalid params at /pageToken: not a token this server gave", { path: "/pageToken" });
      const pageSize = p.pageSize ?? 50;
      const page = all.slice(offset, offset + pageSize).map((t) => {
        const task = taskTo("1.0", t, p.historyLength);
        return p.includeArtifacts ? task : { ...task, artifacts: [] };
      });
      const next = offset + pageSize < all.length ? String(offset + pageSize) : "";
      return { tasks: page, nextPageToken: next, pageSize, totalSize: all.length };
    },
  };

  return new Map(
    Object.entries({
      ...native,
      ...a2a("1.0", { send: "SendMessage", stream: "SendStreamingMessage", get: "GetTask", cancel: "CancelTask", subscribe: "SubscribeToTask", extendedCard: "GetExtendedAgentCard" }),
      ListTasks: listTasks,
      ...pushMethods,
      ...a2a("0.3", {
        send: "message/send",
        stream: "message/stream",
        get: "tasks/get",
        cancel: "tasks/cancel",
        subscribe: "tasks/resubscribe",
        extendedCard: "agent/getAuthenticatedExtendedCard",
      }),
    }),
  );
}
