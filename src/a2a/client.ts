/**
 * The A2A client: sends tasks to other agents over the native JSON-RPC methods, reads their status, follows
 * their SSE streams (resuming with Last-Event-ID when a stream breaks) and cancels them. With an identity
 * provider it presents this workload's SVID and expects the callee's SPIFFE id from its card; with an
 * enforcer, the outbound check runs before anything is sent. Retries only connection errors and 5xx answers.
 */
import { EventSourceParserStream } from "eventsource-parser/stream";
import type { AuthzEnforcer, IdentityProvider } from "../authz/model.ts";
import type { AgentCard } from "./card.ts";
import { DiscoveryClient } from "./discovery.ts";
import {
  A2AAuthorizationError,
  A2AClientError,
  A2ATimeoutError,
  TaskStatusError,
  TaskSubmissionError,
} from "./errors.ts";
import type { MessageInput, TaskDict } from "./model.ts";
import { Task } from "./task.ts";

export interface A2AClientOptions {
  identityProvider?: IdentityProvider;
  authzEnforcer?: AuthzEnforcer;
  /** Seconds a request may take. */
  timeout?: number;
  /** Further attempts after a connection error or a 5xx answer. */
  maxRetries?: number;
  /** Card discovery; by default one of the client's own, using the identity provider's TLS. */
  discovery?: DiscoveryClient;
}

export interface SendTaskOptions {
  messages?: MessageInput[];
  metadata?: Record<string, unknown>;
  /** Seconds this call may take (the client's timeout by default). */
  timeout?: number;
  /** Wait for the task to be final (default); false answers as soon as the task is accepted. */
  blocking?: boolean;
}

type ErrorKind = new (message: string, options?: { code?: number; data?: unknown; cause?: unknown }) => A2AClientError;

const endpoint = (targetUrl: string, path: string) => `${targetUrl.replace(/\/+$/, "")}${path}`;
const retryable = (status: number) => status >= 500;

export class A2AClient implements AsyncDisposable {
  readonly #identity?: IdentityProvider;
  readonly #enforcer?: AuthzEnforcer;
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #discovery: DiscoveryClient;
  readonly #open = new Set<AbortController>();
  #requestId = 0;

  constructor({ identityProvider, authzEnforcer, timeout = 30, maxRetries = 3, discovery }: A2AClientOptions = {}) {
    if (authzEnforcer && !identityProvider) throw new A2AClientError("An outbound authorization enforcer needs an identity provider: policy judges who is calling");
    this.#identity = identityProvider;
    this.#enforcer = authzEnforcer;
    this.#timeout = timeout;
    this.#maxRetries = maxRetries;
    this.#discovery = discovery ?? new DiscoveryClient({ timeout, tls: identityProvider && (() => identityProvider.clientTls()) });
  }

  discoverAgent(url: string): Promise<AgentCard> {
    return this.#discovery.discoverAgent(url);
  }

  async sendTask(targetUrl: string, taskType: string, payload: unknown, options: SendTaskOptions = {}): Promise<Task> {
    const { messages, metadata, timeout, blocking = true } = options;
    const params = { type: taskType, payload, ...(messages ? { messages } : {}), ...(metadata ? { metadata } : {}), blocking };
    const result = await this.#call(targetUrl, "task.send", params, TaskSubmissionError, { taskType, metadata }, timeout);
    return Task.fromDict(result as TaskDict);
  }

  async getTaskStatus(targetUrl: string, taskId: string): Promise<Task> {
    return Task.fromDict((await this.#call(targetUrl, "task.status", { id: taskId }, TaskStatusError, { taskId })) as TaskDict);
  }

  async cancelTask(targetUrl: string, taskId: string): Promise<Task> {
    return Task.fromDict((await this.#call(targetUrl, "task.cancel", { id: taskId }, TaskStatusError, { taskId })) as TaskDict);
  }

  /** Polls every `pollInterval` seconds until the task is final; A2ATimeoutError after `maxWait` seconds. */
  async pollUntilComplete(targetUrl: string, taskId: string, pollInterval = 1.0, maxWait?: number): Promise<Task> {
    const deadline = maxWait === undefined ? Infinity : Date.now() + maxWait * 1000;
    for (;;) {
      const task = await this.getTaskStatus(targetUrl, taskId);
      if (task.isTerminal()) return task;
      if (Date.now() + pollInterval * 1000 > deadline) throw new A2ATimeoutError(`Task ${taskId} was not final after ${maxWait}s`);
      await Bun.sleep(pollInterval * 1000);
    }
  }

  /**
   * Each state of the task as the server stores it, ending with the final one. A broken stream is resumed from
   * the last event seen (up to `maxRetries` times in a row).
   */
  async *streamTaskUpdates(targetUrl: string, taskId: string, options: { signal?: AbortSignal } = {}): AsyncGenerator<Task> {
    await this.#authorizeOutbound(targetUrl, "task.status", { taskId });
    const tls = await this.#tls(targetUrl);
    let lastEventId: string | undefined;
    let failures = 0;
    const controller = new AbortController();
    this.#open.add(controller);
    const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
    try {
      for (;;) {
        let response: Response;
        try {
          response = await fetch(endpoint(targetUrl, `/tasks/${encodeURIComponent(taskId)}/stream`), {
            headers: { accept: "text/event-stream", ...(lastEventId ? { "last-event-id": lastEventId } : {}) },
            signal,
            ...(tls ? { tls } : {}),
          });
        } catch (error) {
          if (signal.aborted) return;
          if (++failures > this.#maxRetries) throw new TaskStatusError(`Cannot stream task ${taskId}: ${(error as Error).message}`, { cause: error });
          await backoff(failures);
          continue;
        }
        if (!response.ok) {
          if (retryable(response.status) && ++failures <= this.#maxRetries) {
            await backoff(failures);
            continue;
          }
          throw await errorOf(response, TaskStatusError, `stream of task ${taskId}`);
        }
        const events = response.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream());
        try {
          for await (const event of events) {
            if (event.event !== "task.update" && event.event !== "task.final") continue;
            failures = 0;
            lastEventId = event.id ?? lastEventId;
            yield Task.fromDict(JSON.parse(event.data) as TaskDict);
            if (event.event === "task.final") return;
          }
        } catch (error) {
          if (signal.aborted) return;
          if (failures >= this.#maxRetries) throw new TaskStatusError(`Stream of task ${taskId} broke: ${(error as Error).message}`, { cause: error });
        }
        // The stream ended before the final state (the server restarted, a proxy cut it): resume from the last event.
        if (++failures > this.#maxRetries) throw new TaskStatusError(`Stream of task ${taskId} kept ending before the task was final`);
        await backoff(failures);
      }
    } finally {
      this.#open.delete(controller);
    }
  }

  /** Ends open streams and forgets discovered cards. */
  async close(): Promise<void> {
    for (const controller of this.#open) controller.abort();
    this.#open.clear();
    this.#discovery.close();
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  /** Runs the outbound policy check (when an enforcer is set) against the callee's SPIFFE id from its card. */
  async #authorizeOutbound(targetUrl: string, action: string, context: Record<string, unknown>): Promise<void> {
    if (!this.#enforcer || !this.#identity) return;
    const calleeId = (await this.discoverAgent(targetUrl)).getSpiffeId();
    if (!calleeId) throw new A2AAuthorizationError(`${action} to ${targetUrl} refused: the agent's card carries no SPIFFE id`);
    let decision;
    try {
      decision = await this.#enforcer.checkOutbound(this.#identity.spiffeId, calleeId, action, { ...context, url: targetUrl });
    } catch (error) {
      throw new A2AAuthorizationError(`${action} to ${calleeId} refused: the authorization check failed`, { cause: error });
    }
    if (!decision.allowed)
      throw new A2AAuthorizationError(`${action} to ${calleeId} refused: ${decision.reason}`, { data: { auditId: decision.auditId } });
  }

  /** TLS presenting this workload's SVID and expecting the callee's SPIFFE id, when there is an identity. */
  async #tls(targetUrl: string) {
    if (!this.#identity) return undefined;
    return this.#identity.clientTls((await this.discoverAgent(targetUrl)).getSpiffeId());
  }

  async #call(targetUrl: string, method: string, params: object, kind: ErrorKind, context: Record<string, unknown>, timeout = this.#timeout) {
    await this.#authorizeOutbound(targetUrl, method, context);
    const tls = await this.#tls(targetUrl);
    const id = ++this.#requestId;
    const body = JSON.stringify({ jsonrpc: "2.0", id, method, params });
    const deadline = AbortSignal.timeout(timeout * 1000);
    for (let attempt = 0; ; attempt++) {
      let response: Response;
      try {
        response = await fetch(endpoint(targetUrl, "/rpc"), {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body,
          signal: deadline,
          ...(tls ? { tls } : {}),
        });
      } catch (error) {
        if (deadline.aborted) throw new A2ATimeoutError(`${method} to ${targetUrl} timed out after ${timeout}s`, { cause: error });
        if (attempt >= this.#maxRetries) throw new kind(`${method} to ${targetUrl} failed: ${(error as Error).message}`, { cause: error });
        await backoff(attempt + 1);
        continue;
      }
      if (retryable(response.status) && attempt < this.#maxRetries) {
        await response.body?.cancel();
        await backoff(attempt + 1);
        continue;
      }
      const answer = (await response.json().catch(() => undefined)) as { result?: unknown; error?: { code: number; message: string; data?: unknown } } | undefined;
      if (answer?.error) throw new kind(`${method} failed: ${answer.error.message}`, { code: answer.error.code, data: answer.error.data });
      if (!response.ok || !answer || !("result" in answer)) throw new kind(`${method} to ${targetUrl} failed: HTTP ${response.status}`);
      return answer.result;
    }
  }
}

/** 100 ms, 200 ms, 400 ms, ... up to 2 s, with jitter so many clients do not retry in step. */
const backoff = (attempt: number) => Bun.sleep(Math.min(2000, 100 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2));

async function errorOf(response: Response, kind: ErrorKind, what: string): Promise<A2AClientError> {
  const body = (await response.json().catch(() => undefined)) as { error?: { code: number; message: string; data?: unknown } } | undefined;
  if (body?.error) return new kind(`${what} failed: ${body.error.message}`, { code: body.error.code, data: body.error.data });
  return new kind(`${what} failed: HTTP ${response.status}`);
}
