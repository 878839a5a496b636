/**
 * The HTTP+JSON binding of A2A v1.0, beside JSON-RPC: each route names a method of the same table /rpc serves
 * (methods.ts), with params taken from the path, the query and the body, so both bindings run the same code and
 * policy. Results are the same JSON; errors are `{ error: { code, status, message, details } }` with the A2A
 * ErrorInfo reason the official clients map to their typed errors. Mounted under `/a2a`.
 */
import { RpcCode, RpcError } from "./errors.ts";
import { StreamAnswer, type CallContext, type Method } from "./rpc.ts";

export const restPrefix = "/a2a";

/** A route: the method it calls and how its params are read from the request. */
interface Route {
  method: string;
  params(match: Record<string, string>, query: URLSearchParams, body: Record<string, unknown>): Record<string, unknown>;
  /** The HTTP status of a success: 200 unless said. */
  created?: boolean;
}

const integer = (value: string | null) => (value === null || value === "" ? undefined : /^-?\d+$/.test(value) ? Number(value) : value);
const boolean = (value: string | null) => (value === null ? undefined : value === "true" ? true : value === "false" ? false : value);

const routes: [verb: string, pattern: RegExp, route: Route][] = [
  ["POST", /^\/message:send$/, { method: "SendMessage", params: (_m, _q, body) => body }],
  ["POST", /^\/message:stream$/, { method: "SendStreamingMessage", params: (_m, _q, body) => body }],
  ["GET", /^\/tasks$/, {
    method: "ListTasks",
    params: (_m, q) =>
      defined({
        contextId: q.get("contextId") ?? undefined,
        status: q.get("status") ?? undefined,
        statusTimestampAfter: q.get("statusTimestampAfter") ?? undefined,
        pageSize: integer(q.get("pageSize")),
        pageToken: q.get("pageToken") ?? undefined,
        historyLength: integer(q.get("historyLength")),
        includeArtifacts: boolean(q.get("includeArtifacts")),
      }),
  }],
  ["GET", /^\/tasks\/(?<id>[^/:]+)$/, { method: "GetTask", params: (m, q) => defined({ id: m.id, historyLength: integer(q.get("historyLength")) }) }],
  ["POST", /^\/tasks\/(?<id>[^/:]+):cancel$/, { method: "CancelTask", params: (m) => ({ id: m.id }) }],
  ["GET", /^\/tasks\/(?<id>[^/:]+):subscribe$/, { method: "SubscribeToTask", params: (m) => ({ id: m.id }) }],
  ["POST", /^\/tasks\/(?<id>[^/:]+):subscribe$/, { method: "SubscribeToTask", params: (m) => ({ id: m.id }) }],
  ["POST", /^\/tasks\/(?<id>[^/:]+)\/pushNotificationConfigs$/, { method: "CreateTaskPushNotificationConfig", params: (m, _q, body) => ({ ...body, taskId: m.id }), created: true }],
  ["GET", /^\/tasks\/(?<id>[^/:]+)\/pushNotificationConfigs$/, { method: "ListTaskPushNotificationConfigs", params: (m) => ({ taskId: m.id }) }],
  ["GET", /^\/tasks\/(?<id>[^/:]+)\/pushNotificationConfigs\/(?<config>[^/:]+)$/, { method: "GetTaskPushNotificationConfig", params: (m) => ({ taskId: m.id, id: m.config }) }],
  ["DELETE", /^\/tasks\/(?<id>[^/:]+)\/pushNotificationConfigs\/(?<config>[^/:]+)$/, { method: "DeleteTaskPushNotificationConfig", params: (m) => ({ taskId: m.id, id: m.config }) }],
  ["GET", /^\/extendedAgentCard$/, { method: "GetExtendedAgentCard", params: () => ({}) }],
];

/** JSON-RPC codes as HTTP+JSON answers them: status, status name, and the ErrorInfo reason (as the A2A SDK maps them). */
const restErrors: Record<number, [number, string, string?]> = {
  [RpcCode.TaskNotFound]: [404, "NOT_FOUND", "TASK_NOT_FOUND"],
  [RpcCode.TaskNotCancelable]: [400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"],
  [RpcCode.PushNotificationNotSupported]: [400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"],
  [RpcCode.UnsupportedTaskType]: [400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"],
  [RpcCode.ExtendedCardNotConfigured]: [400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"],
  [RpcCode.VersionNotSupported]: [400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"],
  [RpcCode.InvalidParams]: [400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
  [RpcCode.InvalidRequest]: [400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
  [RpcCode.ParseError]: [400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
  [RpcCode.MethodNotFound]: [404, "NOT_FOUND"],
  [RpcCode.Unauthorized]: [403, "PERMISSION_DENIED"],
  [RpcCode.InternalError]: [500, "INTERNAL"],
};

/** The store is out of reach: google.rpc's UNAVAILABLE (503), which a client may retry. */
export const restUnavailable = (message: string): Response => Response.json({ error: { code: 503, status: "UNAVAILABLE", message, details: [] } }, { status: 503 });

export function restError(code: number, message: string, data?: unknown): Response {
  const [status, name, reason] = restErrors[code] ?? [500, "INTERNAL"];
  const metadata = data !== null && typeof data === "object" ? Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)])) : undefined;
  const details = reason ? [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "a2a-protocol.org", ...(metadata ? { metadata } : {}) }] : [];
  return Response.json({ error: { code: status, status: name, message, details } }, { status });
}

/**
 * Answers one HTTP+JSON request (`path` below the prefix); undefined when no route matches. `body` is the request
 * text, read by the caller under its body limit.
 */
export async function handleRest(
  verb: string,
  path: string,
  query: URLSearchParams,
  body: string,
  methods: Map<string, Method>,
  context: Omit<CallContext, "notification">,
  fault: (error: unknown, method: string) => Response,
): Promise<Response | undefined> {
  for (const [routeVerb, pattern, route] of routes) {
    const match = verb === routeVerb ? pattern.exec(path) : null;
    if (!match) continue;
    let parsed: unknown = {};
    if (body.trim()) {
      try {
        parsed = JSON.parse(body);
      } catch {
        return restError(RpcCode.ParseError, "The body is not valid JSON");
      }
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return restError(RpcCode.InvalidRequest, "The body must be a JSON object");
    }
    const groups = Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
    try {
      const result = await methods.get(route.method)!.run(route.params(groups, query, parsed as Record<string, unknown>), { ...context, notification: false });
      if (result instanceof StreamAnswer) return result.open((r) => r);
      if (result === null) return new Response(null, { status: 204 });
      return Response.json(result, { status: route.created ? 201 : 200 });
    } catch (error) {
      if (error instanceof RpcError) return restError(error.code, error.message, error.data);
      return fault(error, route.method);
    }
  }
  return undefined;
}

const defined = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
