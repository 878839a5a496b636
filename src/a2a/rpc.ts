/**
 * JSON-RPC 2.0 over HTTP: parsing, batches, notifications and error answers, for any table of methods. A
 * method may answer with a stream (SSE); such a method must be called alone and with an id.
 */
import { randomUUID } from "node:crypto";
import { ActorPersistError } from "../../actors/system.ts";
import { storeUnavailableMessage, storeUnreachable } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { RpcCode, RpcError, type RpcErrorBody } from "./errors.ts";

export type RpcId = string | number | null;

export interface CallContext {
  /** The verified SPIFFE id of the caller, if the transport established one. */
  callerId?: string;
  request: Request;
  /** True for a notification: nobody reads the answer, so nothing should wait for one. */
  notification: boolean;
}

export interface Method {
  run(params: unknown, context: CallContext): Promise<unknown>;
  /** The method answers with `open(id)`'s SSE response rather than a JSON result. */
  streaming?: boolean;
  /**
   * A streaming method whose errors are an SSE stream of one `error` event carrying the JSON-RPC error (A2A v0.3
   * clients read them there), not a JSON body.
   */
  errorsInStream?: boolean;
}

/**
 * What a streaming method resolves with: the SSE response, given how each result is wrapped for its binding (a
 * JSON-RPC response carrying the request id, or the result itself over HTTP+JSON).
 */
export class StreamAnswer {
  constructor(readonly open: (envelope: (result: unknown) => unknown) => Response) {}
}

type RpcResponse = { jsonrpc: "2.0"; id: RpcId; result: unknown } | { jsonrpc: "2.0"; id: RpcId; error: RpcErrorBody };

const json = (body: unknown, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
const failure = (id: RpcId, code: number, message: string, data?: unknown): RpcResponse => ({
  jsonrpc: "2.0",
  id,
  error: { code, message, ...(data === undefined ? {} : { data }) },
});

/** The answer to a change the store refused: nothing of it happened. */
export const notStored = "Internal error: the change could not be stored";

export const rpcErrorResponse = (code: number, message: string, status = 200) => json(failure(null, code, message), status);

export async function handleRpc(text: string, methods: Map<string, Method>, context: Omit<CallContext, "notification">, log: Logger) {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return json(failure(null, RpcCode.ParseError, "Parse error: the body is not valid JSON"));
  }
  if (Array.isArray(body)) {
    if (!body.length) return json(failure(null, RpcCode.InvalidRequest, "Invalid Request: an empty batch"));
    const answers = await Promise.all(body.map((call) => answer(call, methods, context, log, true)));
    const responses = answers.filter((a): a is RpcResponse => a !== undefined && !(a instanceof Response));
    return responses.length ? json(responses) : new Response(null, { status: 204 });
  }
  const single = await answer(body, methods, context, log, false);
  if (single instanceof Response) return single;
  return single ? json(single) : new Response(null, { status: 204 });
}

async function answer(
  call: unknown,
  methods: Map<string, Method>,
  context: Omit<CallContext, "notification">,
  log: Logger,
  inBatch: boolean,
): Promise<RpcResponse | Response | undefined> {
  if (call === null || typeof call !== "object" || Array.isArray(call))
    return failure(null, RpcCode.InvalidRequest, "Invalid Request: expected a JSON-RPC request object");
  const { jsonrpc, method, params, id } = call as Record<string, unknown>;
  const validId = id === undefined || id === null || typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
  const replyId: RpcId = validId && id !== undefined ? (id as RpcId) : null;
  if (!validId) return failure(null, RpcCode.InvalidRequest, "Invalid Request: id must be a string, a number or null");
  if (jsonrpc !== "2.0") return failure(replyId, RpcCode.InvalidRequest, 'Invalid Request: jsonrpc must be exactly "2.0"');
  if (typeof method !== "string" || !method) return failure(replyId, RpcCode.InvalidRequest, "Invalid Request: method must be a non-empty string");
  if (params !== undefined && (params === null || typeof params !== "object"))
    return failure(replyId, RpcCode.InvalidRequest, "Invalid Request: params must be an object or an array");
  const notification = id === undefined;
  const target = methods.get(method);
  if (!target) return notification ? undefined : failure(replyId, RpcCode.MethodNotFound, `Method not found: ${method}`);
  if (target.streaming && (inBatch || notification)) {
    const why = inBatch ? "cannot be part of a batch" : "needs an id (its answer is a stream)";
    return notification ? undefined : failure(replyId, RpcCode.InvalidRequest, `Invalid Request: ${method} ${why}`);
  }
  try {
    const result = await target.run(params ?? {}, { ...context, notification });
    if (result instanceof StreamAnswer) return result.open((r) => ({ jsonrpc: "2.0", id: replyId, result: r }));
    return notification ? undefined : { jsonrpc: "2.0", id: replyId, result };
  } catch (error) {
    if (error instanceof RpcError) {
      if (notification) return undefined;
      const response: RpcResponse = { jsonrpc: "2.0", id: replyId, error: error.toBody() };
      if (target.errorsInStream)
        return new Response(`event: error\ndata: ${JSON.stringify(response)}\n\n`, { headers: { "content-type": "text/event-stream", "cache-control": "no-cache" } });
      return response;
    }
    if (storeUnreachable(error)) return notification ? undefined : failure(replyId, RpcCode.InternalError, storeUnavailableMessage, { store: "unreachable" });
    // The store refused the change: nothing of it happened, and the caller may retry.
    if (error instanceof ActorPersistError) return notification ? undefined : failure(replyId, RpcCode.InternalError, notStored);
    // Logged even for a notification: nobody hears of it otherwise.
    const errorId = randomUUID();
    log.error("internal error in JSON-RPC method", { method, errorId, error });
    return notification ? undefined : failure(replyId, RpcCode.InternalError, `Internal error; quote error id ${errorId} when reporting it`);
  }
}
