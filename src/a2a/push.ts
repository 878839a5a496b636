/**
 * Push notifications: a client sets a webhook for a task (a push config), and every state change of the task is
 * POSTed to it. Each notification is a delivery actor (actors/delivery.machine.ts): attempts are retried with
 * backoff, each attempt leaves a row in `a2a_push_attempts` (written with the actor's transition), and a delivery
 * in flight or waiting survives a restart. Webhooks are reached under the vault's egress rules: no private,
 * loopback, link-local or metadata address unless `allowAddresses` names its class.
 */
import type { Actor, SnapshotFrom } from "xstate";
import { deliveryMachine, type DeliveryInput } from "../../actors/delivery.machine.ts";
import type { ActorKind, ActorSystem } from "../../actors/system.ts";
import type { ClientTls } from "../authz/model.ts";
import type { Db } from "../db/client.ts";
import type { A2aPushConfigRow } from "../db/schema.ts";
import type { Logger } from "../log.ts";
import { assertPublicAddress } from "../vault/egress.ts";
import type { AddressClass } from "../vault/model.ts";
import { invalidParams, RpcError, TaskNotFoundError } from "./errors.ts";
import type { TaskState } from "./model.ts";
import { taskTo, type ProtocolVersion } from "./protocol.ts";
import * as repo from "./repo.ts";
import type { TaskManager, TaskUpdate } from "./service.ts";

export const deliveryKindName = "a2a.push-delivery";
type Delivery = SnapshotFrom<typeof deliveryMachine>;

export interface PushOptions {
  actors: ActorSystem;
  db: Db;
  log: Logger;
  /** Address classes webhooks may resolve to besides public ones (the vault's classes). */
  allowAddresses: AddressClass[];
  maxAttempts: number;
  /** The wait after the first failed attempt; doubled after each further one, up to `maxDelayMs`. */
  retryMs: number;
  maxDelayMs: number;
  /** How long one attempt may take. */
  timeoutMs: number;
  /** This agent's SVID as a client, for webhooks that authenticate it by mTLS (the card's own scheme). */
  clientTls?: () => ClientTls | undefined;
}

/** A push config as a client sets it. */
export interface PushConfigInput {
  id?: string;
  url: string;
  token?: string;
  authentication?: { scheme: string; credentials?: string };
}

const checkedMark = Symbol("checked");
/** A config whose URL passed `checked` (only `checked` makes one). */
export type CheckedConfig = PushConfigInput & { [checkedMark]: true };

/** At most this many webhooks per task. */
const maxConfigsPerTask = 10;
const mtlsScheme = /^(mtls|mutualtls)$/i;

export class PushNotifications {
  readonly kind: ActorKind<typeof deliveryMachine>;
  /** Tasks that have a push config: the others' changes cost one set lookup. */
  readonly #watched = new Set<string>();
  /** The state each watched task was last notified in: only a change of state is pushed. */
  readonly #notified = new Map<string, TaskState>();

  constructor(
    readonly tasks: TaskManager,
    private readonly options: PushOptions,
  ) {
    this.kind = {
      kind: deliveryKindName,
      machine: deliveryMachine,
      // Written in the transaction that stores the transition the attempt caused.
      record: async (tx, id, snapshot) => {
        const { last, taskId, configId } = snapshot.context;
        if (!last || snapshot.value === "sending") return;
        const outcome = snapshot.value === "delivered" ? "delivered" : snapshot.value === "waiting" ? "retrying" : "failed";
        await repo.recordPushAttempt(tx, { deliveryId: id, attempt: last.n, taskId, configId, at: new Date(last.at), status: last.status ?? null, outcome, error: last.error ?? null });
      },
      // A delivery that was sending when the process stopped is sent again; a waiting one waits on (its deadline
      // is re-armed by the actor system).
      restored: (actor) => this.#follow(actor),
      // A finished delivery lives on in its attempt rows; its actor is let go at once.
      releaseFinal: true,
    };
    options.actors.register(this.kind);
    tasks.onChange((update) => this.#changed(update));
  }

  /** Follows the tasks in progress that have push configs, as they were stored before this process started. */
  async start(): Promise<void> {
    for (const row of await repo.pushConfigTasks(this.options.db)) this.#watched.add(row);
  }

  /** Sets (or replaces) a push config of a task; the URL must be http(s) and reachable under the egress rules. */
  async set(taskId: string, input: PushConfigInput, version: ProtocolVersion): Promise<A2aPushConfigRow> {
    if (!(await this.tasks.getTask(taskId))) throw new TaskNotFoundError(taskId);
    return this.save(taskId, await this.checked(input), version);
  }

  /** A config's URL checked (http or https, no credentials in it, an address the egress rules allow). */
  async checked(input: PushConfigInput): Promise<CheckedConfig> {
    let url: URL;
    try {
      url = new URL(input.url);
    } catch {
      throw invalidParams("Invalid params at /url: a push notification URL must be an absolute http or https URL", { path: "/url" });
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidParams("Invalid params at /url: a push notification URL must be http or https", { path: "/url" });
    if (url.username || url.password) throw invalidParams("Invalid params at /url: put credentials in authentication, not in the URL", { path: "/url" });
    try {
      await assertPublicAddress(url.hostname, this.options.allowAddresses);
    } catch (error) {
      throw invalidParams(`Invalid params at /url: ${(error as Error).message} (a2a.push.allow_addresses)`, { path: "/url" });
    }
    return { ...input, url: url.href, [checkedMark]: true };
  }

  /**
   * Stores a checked config (a new task's before its handler starts, so its first change is pushed too). Throws
   * TaskNotFoundError for an unknown task.
   */
  async save(taskId: string, input: CheckedConfig, version: ProtocolVersion): Promise<A2aPushConfigRow> {
    const task = await this.tasks.getTask(taskId);
    if (!task) throw new TaskNotFoundError(taskId);
    const existing = await repo.pushConfigs(this.options.db, taskId);
    const id = input.id || crypto.randomUUID();
    if (existing.length >= maxConfigsPerTask && !existing.some((c) => c.id === id))
      throw invalidParams(`Invalid params: a task has at most ${maxConfigsPerTask} push notification configs`);
    const row: A2aPushConfigRow = {
      id,
      taskId,
      url: input.url,
      token: input.token || null,
      authScheme: input.authentication?.scheme || null,
      authCredentials: input.authentication?.credentials || null,
      version,
      createdAt: new Date(),
    };
    await repo.savePushConfig(this.options.db, row);
    if (!task.isTerminal()) {
      this.#watched.add(taskId);
      // The state it is in now is known to the client; the next one is the first to push.
      if (!this.#notified.has(taskId)) this.#notified.set(taskId, task.state);
    }
    return row;
  }

  async get(taskId: string, id: string): Promise<A2aPushConfigRow> {
    const row = await repo.pushConfig(this.options.db, taskId, id);
    if (!row) throw new RpcError(-32001, `No push notification config ${id} for task ${taskId}`, { taskId, id });
    return row;
  }

  list(taskId: string): Promise<A2aPushConfigRow[]> {
    return repo.pushConfigs(this.options.db, taskId);
  }

  async delete(taskId: string, id: string): Promise<void> {
    if (!(await repo.deletePushConfig(this.options.db, taskId, id))) throw new RpcError(-32001, `No push notification config ${id} for task ${taskId}`, { taskId, id });
  }

  /** Every attempt to deliver a task's notifications, oldest first. */
  attempts(taskId: string) {
    return repo.pushAttempts(this.options.db, taskId);
  }

  #changed(update: TaskUpdate): void {
    if (!this.#watched.has(update.id)) return;
    this.#notify(update).catch((error) => {
      // The task's change is stored; its notification could not be. Reported, and the task carries on.
      this.options.log.error("push notification could not be queued", { taskId: update.id, error });
    });
  }

  async #notify(update: TaskUpdate): Promise<void> {
    if (this.#notified.get(update.id) === update.state) return;
    this.#notified.set(update.id, update.state);
    if (update.final) {
      // Nothing more will happen to it.
      this.#notified.delete(update.id);
      this.#watched.delete(update.id);
    }
    const { maxAttempts, retryMs, maxDelayMs } = this.options;
    // The body is the task as of this change, made now: the task moves on while the configs are read.
    const task = update.task;
    for (const config of await repo.pushConfigs(this.options.db, update.id)) {
      const version = config.version as ProtocolVersion;
      const shaped = taskTo(version, task);
      const input: DeliveryInput = { taskId: update.id, configId: config.id, body: JSON.stringify(version === "1.0" ? { task: shaped } : shaped), maxAttempts, retryMs, maxDelayMs };
      const actor = await this.options.actors.spawn(this.kind, Bun.randomUUIDv7(), input);
      this.#follow(actor);
    }
  }

  /** Makes an attempt whenever the delivery is `sending`: now, and each time a wait ends. */
  #follow(actor: Actor<typeof deliveryMachine>): void {
    const attempt = (snapshot: Delivery) => {
      if (snapshot.value === "sending") void this.#attempt(actor.id, snapshot);
    };
    this.options.actors.subscribe(this.kind, actor.id, attempt);
    attempt(actor.getSnapshot());
  }

  async #attempt(id: string, { context: { taskId, configId, body } }: Delivery): Promise<void> {
    const send = async (event: Parameters<ActorSystem["send"]>[2]) => {
      try {
        await this.options.actors.send(this.kind, id, event as never);
      } catch (error) {
        this.options.log.error("push delivery could not be stored", { deliveryId: id, taskId, error });
      }
    };
    let config: A2aPushConfigRow | undefined;
    try {
      config = await repo.pushConfig(this.options.db, taskId, configId);
    } catch (error) {
      // The store is out of reach: the attempt fails like one whose webhook could not be reached, and is retried.
      return send({ type: "ATTEMPTED", at: Date.now(), ok: false, error: `the push config could not be read: ${(error as Error).message}` });
    }
    if (!config) return send({ type: "ABANDON", at: Date.now(), error: `push notification config ${configId} was deleted` });
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (config.token) headers["x-a2a-notification-token"] = config.token;
    const mtls = config.authScheme !== null && mtlsScheme.test(config.authScheme);
    if (config.authScheme && config.authCredentials && !mtls) headers.authorization = `${config.authScheme} ${config.authCredentials}`;
    let outcome: { ok: boolean; status?: number; error?: string };
    try {
      // Checked on every attempt: a name may resolve elsewhere than when the config was set.
      await assertPublicAddress(new URL(config.url).hostname, this.options.allowAddresses);
      const tls = mtls ? this.options.clientTls?.() : undefined;
      if (mtls && !tls) throw new Error("the webhook asks for mTLS and this agent has no SVID");
      const response = await fetch(config.url, {
        method: "POST",
        headers,
        body,
        redirect: "manual",
        signal: AbortSignal.timeout(this.options.timeoutMs),
        ...(tls ? { tls } : {}),
      } as RequestInit);
      await response.body?.cancel();
      outcome = response.ok ? { ok: true, status: response.status } : { ok: false, status: response.status, error: `HTTP ${response.status}` };
    } catch (error) {
      outcome = { ok: false, error: (error as Error).message };
    }
    if (!outcome.ok) this.options.log.info("push delivery attempt failed", { deliveryId: id, taskId, configId, status: outcome.status, error: outcome.error });
    await send({ type: "ATTEMPTED", at: Date.now(), ...outcome });
  }
}
