/**
 * The A2A server: the agent card, JSON-RPC at /rpc and task streams at /tasks/:id/stream, as an Elysia plugin
 * (`plugin`, mounted by the runtime) or a standalone app (`app`, which adds /health). Authorization runs before
 * any handler: the task type's `requiresPeer`, then the enforcer's policy; a denial changes nothing.
 */
import { Elysia } from "elysia";
import { ActorPersistError } from "../../actors/system.ts";
import { storeUnavailableMessage, storeUnreachable } from "../db/client.ts";
import type { AuthzEnforcer } from "../authz/model.ts";
import { exclusively } from "../listen.ts";
import { createLogger, type Logger } from "../log.ts";
import type { AgentCard } from "./card.ts";
import { RpcCode, TaskNotFoundError, UnauthorizedError } from "./errors.ts";
import { TaskHandlers, type TaskHandler, type TaskHandlerOptions } from "./handlers.ts";
import { buildMethods, type ActionContext } from "./methods.ts";
import { cardTo, cardTo03, requestedVersion, type ProtocolVersion } from "./protocol.ts";
import { handleRest, restError, restPrefix, restUnavailable } from "./rest.ts";
import { handleRpc, notStored, rpcErrorResponse } from "./rpc.ts";
import type { PushNotifications } from "./push.ts";
import { TaskManager } from "./service.ts";
import { lastEventRevision, nativeFrame, taskEventStream } from "./stream.ts";

export interface A2AServerOptions {
  /** The card, or a function of the origin a request came to (for a server that learns its URL only then). */
  agentCard: AgentCard | ((origin: string) => AgentCard);
  /** Push notifications to clients' webhooks; without them the card says `pushNotifications: false`. */
  push?: PushNotifications;
  /** The extended card authenticated callers may read (GetExtendedAgentCard); none by default. */
  extendedCard?: AgentCard | ((origin: string) => AgentCard);
  /**
   * The origin a request was made to, as the client sees it; by default the request URL's. A front that ends TLS
   * before the request reaches this server says `https` here, so the card names the URL the client can use.
   */
  publicOrigin?: (request: Request) => string;
  taskManager?: TaskManager;
  authzEnforcer?: AuthzEnforcer;
  enableCors?: boolean;
  /** The verified SPIFFE id of a request's caller (from mTLS); never read from anything a client can set. */
  identify?: (request: Request) => string | undefined;
  /** Task type for an A2A protocol message that names none in `metadata.taskType`. */
  defaultTaskType?: string;
  /** Largest accepted /rpc body in bytes (the runtime's own limit applies before it when mounted there). */
  bodyLimit?: number;
  log?: Logger;
}

/** Whether `callerId` matches `pattern`: an exact SPIFFE id, or `prefix/*` for every id under the prefix. */
export function peerMatches(pattern: string, callerId: string | undefined): boolean {
  if (!callerId) return false;
  return pattern.endsWith("/*") ? callerId.startsWith(pattern.slice(0, -1)) : callerId === pattern;
}

const corsHeaders = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, POST, DELETE, OPTIONS",
  "access-control-allow-headers": "content-type, accept, last-event-id, a2a-version, a2a-extensions, x-request-id",
  "access-control-max-age": "600",
};

export class A2AServer {
  readonly taskManager: TaskManager;
  readonly handlers: TaskHandlers;
  readonly #log: Logger;
  readonly #options: A2AServerOptions;
  #plugin?: Elysia<any, any, any, any, any, any, any>;
  #app?: Elysia<any, any, any, any, any, any, any>;
  #listening?: { stop(closeActive?: boolean): Promise<unknown> };
  #ownsManager: boolean;

  constructor(options: A2AServerOptions) {
    this.#options = options;
    this.#log = (options.log ?? createLogger({ level: "warn" })).child({ component: "a2a" });
    this.#ownsManager = !options.taskManager;
    this.taskManager = options.taskManager ?? new TaskManager({ log: this.#log });
    this.handlers = new TaskHandlers(this.#log);
  }

  agentCardFor(request: Request): AgentCard {
    return this.#cardAt(this.#options.agentCard, request)!;
  }

  /** The public card in a protocol version's shape, for the origin `request` was made to. */
  cardFor(request: Request, version: ProtocolVersion): Record<string, unknown> {
    return this.#shaped(this.agentCardFor(request), version);
  }

  #shaped(card: AgentCard, version: ProtocolVersion) {
    const base = card.url.replace(/\/+$/, "");
    const v1 = cardTo(card, `${base}/rpc`, `${base}${restPrefix}`, { extended: this.#options.extendedCard !== undefined, push: this.#options.push !== undefined });
    return version === "1.0" ? v1 : cardTo03(v1);
  }

  #cardAt(card: AgentCard | ((origin: string) => AgentCard) | undefined, request: Request): AgentCard | undefined {
    const origin = this.#options.publicOrigin?.(request) ?? new URL(request.url).origin;
    return typeof card === "function" ? card(origin) : card;
  }

  registerTaskHandler(type: string, handler: TaskHandler, options: TaskHandlerOptions = {}): this {
    this.handlers.register(type, handler, options);
    return this;
  }

  /** Settles tasks left pending or running by a previous process (run, resume or fail as interrupted). */
  recoverInterrupted(): Promise<void> {
    return this.handlers.recover(this.taskManager);
  }

  /** The routes alone, for mounting into another Elysia app. */
  get plugin() {
    return (this.#plugin ??= this.#buildPlugin());
  }

  /** A standalone app: the routes plus /health. */
  get app() {
    return (this.#app ??= new Elysia().use(this.plugin).get("/health", () => this.health()));
  }

  getApp() {
    return this.app;
  }

  health() {
    return { status: "ok" as const, taskTypes: this.handlers.types(), tasks: this.taskManager.countRunning() };
  }

  /** Listens on `host:port` (port 0 picks a free one) and resolves with the base URL. */
  async start(host = "0.0.0.0", port = 8443): Promise<string> {
    await this.taskManager.committed();
    await this.recoverInterrupted();
    const app = this.app.listen(exclusively(host, port));
    this.#listening = app;
    return `http://${app.server!.hostname}:${app.server!.port}`;
  }

  async stop(): Promise<void> {
    await this.#listening?.stop(true);
    if (this.#ownsManager) await this.taskManager.close();
  }

  async #authorize(callerId: string | undefined, action: string, context: ActionContext): Promise<void> {
    const requiredPeer = context.taskType ? this.handlers.get(context.taskType)?.options.requiresPeer : undefined;
    if (requiredPeer && !peerMatches(requiredPeer, callerId))
      throw new UnauthorizedError(action, callerId ? `task type ${context.taskType} requires peer ${requiredPeer}` : "no verified caller identity");
    const enforcer = this.#options.authzEnforcer;
    if (!enforcer) return;
    let decision;
    try {
      decision = await enforcer.checkInbound(callerId, action, { ...context, taskType: context.taskType, metadata: context.metadata ?? {} });
    } catch (error) {
      // Secure by default: a policy engine that cannot answer denies.
      this.#log.error("authorization check failed; denying", { action, error });
      throw new UnauthorizedError(action, "the authorization check failed");
    }
    if (!decision.allowed) throw new UnauthorizedError(action, decision.reason, decision.auditId);
  }

  #buildPlugin() {
    const { enableCors = true, identify, bodyLimit = 1024 * 1024 } = this.#options;
    const methods = buildMethods({
      manager: this.taskManager,
      handlers: this.handlers,
      authorize: (callerId, action, context) => this.#authorize(callerId, action, context),
      defaultTaskType: this.#options.defaultTaskType,
      push: this.#options.push,
      extendedCard: (version, call) => {
        const card = this.#cardAt(this.#options.extendedCard, call.request);
        return card && this.#shaped(card, version);
      },
    });
    const log = this.#log;
    const callerOf = (request: Request) => identify?.(request);

    // Hooks apply to the routes declared after them, so CORS comes first.
    const plugin = new Elysia({ name: "a2a.http" });
    if (enableCors)
      plugin
        .onAfterHandle(({ response, set }) => {
          if (response instanceof Response) for (const [name, value] of Object.entries(corsHeaders)) response.headers.set(name, value);
          else Object.assign(set.headers, corsHeaders);
        })
        .options("/rpc", () => new Response(null, { status: 204, headers: corsHeaders }))
        .options(`${restPrefix}/*`, () => new Response(null, { status: 204, headers: corsHeaders }))
        .options("/tasks/:id/stream", () => new Response(null, { status: 204, headers: corsHeaders }));
    return plugin
      // The native card, unless a client names an A2A version; the A2A cards vary with the version asked for.
      .get("/.well-known/agent.json", ({ request, set }) => {
        set.headers.vary = "A2A-Version";
        return request.headers.has("a2a-version") ? this.cardFor(request, requestedVersion(request)) : this.agentCardFor(request).toDict();
      })
      .get("/.well-known/agent-card.json", ({ request, set }) => {
        set.headers.vary = "A2A-Version";
        return this.cardFor(request, requestedVersion(request));
      })
      .post(
        "/rpc",
        async ({ request }) => {
          const version = unsupportedVersion(request);
          if (version) return rpcErrorResponse(RpcCode.VersionNotSupported, version);
          const text = await readBody(request, bodyLimit);
          if (text instanceof Response) return text;
          // Each method awaits the commit of the changes it reports, so the answer leaves once they are stored.
          return handleRpc(text, methods, { callerId: callerOf(request), request }, log);
        },
        { parse: "none" },
      )
      // The HTTP+JSON binding: the same methods, addressed by path (rest.ts).
      .all(
        `${restPrefix}/*`,
        async ({ request }) => {
          const version = unsupportedVersion(request);
          if (version) return restError(RpcCode.VersionNotSupported, version);
          const url = new URL(request.url);
          const text = request.method === "GET" || request.method === "DELETE" ? "" : await readBody(request, bodyLimit);
          if (text instanceof Response) return restError(RpcCode.InvalidRequest, `The body exceeds ${bodyLimit} bytes`);
          const fault = (error: unknown, method: string) => {
            if (storeUnreachable(error)) return restUnavailable(storeUnavailableMessage);
            if (error instanceof ActorPersistError) return restError(RpcCode.InternalError, notStored);
            const errorId = crypto.randomUUID();
            log.error("internal error in A2A method", { method, errorId, error });
            return restError(RpcCode.InternalError, `Internal error; quote error id ${errorId} when reporting it`);
          };
          const path = url.pathname.slice(restPrefix.length);
          return (
            (await handleRest(request.method, path, url.searchParams, text, methods, { callerId: callerOf(request), request }, fault)) ??
            restError(RpcCode.MethodNotFound, `No A2A HTTP+JSON route ${request.method} ${path}`)
          );
        },
        { parse: "none" },
      )
      .get("/tasks/:id/stream", async ({ params: { id }, request }) => {
        const callerId = callerOf(request);
        const task = await this.taskManager.getTask(id);
        try {
          await this.#authorize(callerId, "task.status", { method: "stream", taskId: id, taskType: task?.type });
          if (!task) throw new TaskNotFoundError(id);
        } catch (error) {
          const { code, message, data } = (error as TaskNotFoundError).toBody();
          const status = code === RpcCode.TaskNotFound ? 404 : 403;
          return Response.json({ jsonrpc: "2.0", id: null, error: { code, message, data } }, { status });
        }
        return taskEventStream(this.taskManager, id, lastEventRevision(request), nativeFrame, request.signal);
      });
  }
}

class BodyTooLarge extends Error {}

/** The refusal of a request whose `A2A-Version` this server does not speak (it speaks 1.0 and 0.3); none without one. */
function unsupportedVersion(request: Request): string | undefined {
  const version = request.headers.get("a2a-version")?.trim();
  if (!version || /^(1\.0|0\.3)(\.\d+)?$/.test(version)) return undefined;
  return `A2A version ${version} is not supported; this agent speaks 1.0 and 0.3`;
}

/** The body as text, or the 413 answer when it is over `limit` bytes (declared or counted as it streams in). */
async function readBody(request: Request, limit: number): Promise<string | Response> {
  const declared = Number(request.headers.get("content-length"));
  if (declared > limit) return tooLarge(limit);
  try {
    // A declared length within the limit was checked above; only an undeclared one is counted as it comes.
    return declared ? await request.text() : await readLimited(request, limit);
  } catch (error) {
    // The runtime's own streaming limit fails the read with its PayloadTooLarge.
    if (error instanceof BodyTooLarge || (error as Error).name === "PayloadTooLarge") return tooLarge(limit);
    return rpcErrorResponse(RpcCode.ParseError, "Parse error: the body could not be read");
  }
}

const tooLarge = (limit: number) => rpcErrorResponse(RpcCode.InvalidRequest, `Invalid Request: the body exceeds ${limit} bytes`, 413);

/** Reads the body as text, giving up as soon as it passes `limit` bytes (a body may not declare its length). */
async function readLimited(request: Request, limit: number): Promise<string> {
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}
