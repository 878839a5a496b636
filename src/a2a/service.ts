/**
 * The TaskManager: every task is a task actor; this sends it events and reads it back. A task in progress is
 * its live actor (stored, like every actor, on each transition); a finished one is its `a2a_tasks` row, written
 * by the actor kind's `record` in the transaction that stores the final snapshot, after which the actor is let
 * go. Each snapshot is also published once to the task's watchers (SSE streams, waiting callers), with a short
 * history so a stream can resume from the revision it last saw.
 */
import { randomUUID } from "node:crypto";
import type { Actor, SnapshotFrom } from "xstate";
import { ActorSystem, type ActorKind } from "../../actors/system.ts";
import { createdRunning, taskMachine, type TaskChanges, type TaskContext, type TaskEvent, type TaskInput } from "../../actors/task.machine.ts";
import { openDatabase, type Db } from "../db/client.ts";
import type { A2aTaskRow } from "../db/schema.ts";
import { createLogger, type Logger } from "../log.ts";
import { TaskNotCancelableError, TaskNotFoundError, TaskStateError, TaskTimeoutError } from "./errors.ts";
import { finalStates, type MessageInput, type TaskMessage, type TaskState } from "./model.ts";
import * as repo from "./repo.ts";
import { eventInto, Task } from "./task.ts";

export const taskKindName = "a2a.task";
type TaskKind = ActorKind<typeof taskMachine>;
type TaskSnapshot = SnapshotFrom<typeof taskMachine>;

/** One persisted change of a task, as watchers receive it. `revision` is the task's transition count. */
export interface TaskUpdate {
  id: string;
  revision: number;
  state: TaskState;
  task: Task;
  final: boolean;
}
export type TaskWatcher = (update: TaskUpdate) => void;

export interface NewTask {
  type: string;
  payload?: unknown;
  messages?: (MessageInput | TaskMessage)[];
  metadata?: Record<string, unknown>;
  contextId?: string;
  id?: string;
  /** The verified caller that sends it. */
  owner?: string;
}

export interface TaskManagerOptions {
  /** The runtime's actor system and database. Without them the manager opens its own store at `file`. */
  actors?: ActorSystem;
  db?: Db;
  /** SQLite file for a manager with its own store; in memory by default (tasks then live as long as the process). */
  file?: string;
  log?: Logger;
}

// Enough for a stream that blinked to catch up; older gaps get the current task, which subsumes them.
const historyLimit = 64;

export class TaskManager {
  #streams = 0;
  readonly kind: TaskKind;
  #actors!: ActorSystem;
  #db!: Db;
  /** Settles once the store is open: at once on the runtime's store, after opening it for a manager with its own. */
  readonly #ready: Promise<void>;
  #close?: () => Promise<void>;
  readonly #watchers = new Map<string, Set<TaskWatcher>>();
  readonly #history = new Map<string, TaskUpdate[]>();
  readonly #changes = new Set<TaskWatcher>();
  /** Each task's update being stored, which the next one waits for. */
  readonly #updating = new Map<string, Promise<Task>>();
  #interrupted: string[] = [];

  constructor(options: TaskManagerOptions = {}) {
    const log = options.log ?? createLogger({ level: "warn" });
    this.kind = {
      kind: taskKindName,
      machine: taskMachine,
      // Only a finished task gets its row, in the transaction that stores its final snapshot (a batch's together).
      records: (tx, changes) => repo.saveTasks(tx, changes.filter(({ snapshot }) => snapshot.status !== "active").map(({ snapshot }) => rowOf(snapshot))),
      // A finished task is read from its row, so its actor is let go at once.
      releaseFinal: true,
      // Streamed to subscribers on any node (on a store several nodes share), resumable from any revision.
      logged: true,
      restored: (actor) => this.#restored(actor),
    };
    if (options.actors && options.db) {
      this.#actors = options.actors;
      this.#db = options.db;
      this.#actors.register(this.kind);
      this.#ready = Promise.resolve();
    } else this.#ready = this.#open(options.file ?? ":memory:", log);
  }

  async #open(file: string, log: Logger): Promise<void> {
    const handle = await openDatabase(file);
    this.#db = handle.db;
    this.#actors = new ActorSystem({ db: handle.db, log, retentionMs: 3_600_000 });
    this.#close = async () => (await this.#actors.stop(), await handle.close());
    this.#actors.register(this.kind);
    await this.#actors.restore();
  }

  /** With `started`, its handler starts at once (see TaskHandlers.run), so the task is created running. */
  async createTask(input: NewTask | Task, { started = false }: { started?: boolean } = {}): Promise<Task> {
    await this.#ready;
    const at = Date.now();
    // Time-ordered (UUIDv7): new rows land at the end of the id indexes, not on a random page each.
    const id = input.id ?? Bun.randomUUIDv7();
    const machineInput: TaskInput = {
      id,
      type: input.type,
      contextId: input.contextId ?? id,
      payload: input.payload ?? {},
      messages: (input.messages ?? []).map((m) => stampMessage(m, at)),
      metadata: input.metadata ?? {},
      ...("owner" in input && input.owner ? { owner: input.owner } : {}),
      at,
    };
    const actor = await this.#actors.spawn(this.kind, id, machineInput, started ? createdRunning(machineInput) : undefined);
    const first = actor.getSnapshot();
    // Its first snapshot is stored; later ones reach the watchers as they are committed.
    this.#remember(id, updateOf(first));
    this.#follow(id);
    return taskOf(first);
  }

  /** Resolves once every change made so far has been committed or refused (each method also awaits its own). */
  async committed(): Promise<void> {
    await this.#ready;
    return this.#actors.committed();
  }

  /**
   * A task in progress is read from its actor (here, or as stored by the node that runs it); a final one from its
   * row, written by its final transition (the actor itself is let go then).
   */
  async getTask(id: string): Promise<Task | undefined> {
    return (await this.current(id))?.task;
  }

  /** The task as of its latest stored change, with that change's revision. */
  async current(id: string): Promise<TaskUpdate | undefined> {
    await this.#ready;
    let snapshot = this.#actors.get(this.kind, id)?.getSnapshot();
    if (snapshot && snapshot.status !== "active") {
      // A final snapshot still held here may be on its way to the store: its row is read once it is there (or,
      // if the store refused it, the actor is back in its last stored state).
      await this.#actors.committed();
      snapshot = this.#actors.get(this.kind, id)?.getSnapshot();
    }
    if (snapshot?.status === "active") return updateOf(snapshot);
    const row = await repo.findTask(this.#db, id);
    if (row) return { id: row.id, revision: row.revision, state: row.state as TaskState, task: taskOfRow(row), final: finalStates.has(row.state as TaskState) };
    const elsewhere = this.#actors.shared ? await this.#actors.stored(this.kind, id) : undefined;
    return elsewhere?.active ? updateOf(elsewhere.snapshot) : undefined;
  }

  /** Open event streams of tasks (SSE subscribers), for /metrics. */
  get streams(): number {
    return this.#streams;
  }

  /** Counts a stream as open; the returned function counts it closed (once, however often it is called). */
  streamOpened(): () => void {
    this.#streams++;
    let open = true;
    return () => {
      if (open) this.#streams--;
      open = false;
    };
  }

  /** How many tasks are in `state`, without reading them. */
  async countTasks(state: TaskState): Promise<number> {
    await this.#ready;
    if (finalStates.has(state)) return repo.countTasks(this.#db, state);
    let n = 0;
    for (const snapshot of this.#inProgress()) if (snapshot.value === state) n++;
    return n;
  }

  /** How many tasks this node is running now (from its live actors, without a query). */
  countRunning(): number {
    let n = 0;
    if (this.#actors) for (const snapshot of this.#inProgress()) if (snapshot.value === "running") n++;
    return n;
  }

  /**
   * Tasks newest first, optionally only those in `state` and of `type` and as `filter` narrows them: in progress
   * from their actors, finished from their rows.
   */
  async listTasks(state?: TaskState, type?: string, filter: Omit<repo.TaskFilter, "state" | "type"> = {}): Promise<Task[]> {
    await this.#ready;
    const live: TaskSnapshot[] = [];
    for (const snapshot of this.#inProgress()) {
      const c = snapshot.context;
      if (
        (!state || snapshot.value === state) &&
        (!type || c.type === type) &&
        (!filter.contextId || c.contextId === filter.contextId) &&
        (filter.owner === undefined || (c.owner ?? null) === filter.owner) &&
        (!filter.updatedAfter || c.updatedAt > filter.updatedAfter.getTime())
      )
        live.push(snapshot);
    }
    const ids = new Set(live.map((snapshot) => snapshot.context.id));
    const tasks = [
      ...live.map(taskOf),
      // A row written for a task in progress by an earlier version is its actor's older copy.
      ...(await repo.listTasks(this.#db, { state, type, ...filter })).filter((row) => !ids.has(row.id)).map(taskOfRow),
    ].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    return filter.limit ? tasks.slice(0, filter.limit) : tasks;
  }

  /**
   * Stores what changed in `task` since the stored version: appended messages and artifacts, merged metadata,
   * and a state move (with its result or error). Throws TaskNotFoundError, or TaskStateError when the machine
   * does not allow the move (a final task never moves again).
   */
  updateTask(task: Task): Promise<Task> {
    // Read now, not after the awaits below: a handler may change its task again right after calling this
    // without awaiting it, and what it had at the call is what this update stores.
    const given = { id: task.id, state: task.state, messages: task.messages.slice(), artifacts: task.artifacts.slice(), metadata: JSON.stringify(task.metadata), result: task.result, error: task.error };
    // One task's updates are stored one after the other: each is measured against what the one before stored.
    const previous = this.#updating.get(task.id);
    const stored = previous ? previous.then(() => this.#store(given), () => this.#store(given)) : this.#store(given);
    this.#updating.set(task.id, stored);
    const forget = () => this.#updating.get(task.id) === stored && this.#updating.delete(task.id);
    stored.then(forget, forget);
    return stored;
  }

  async #store(task: Pick<Task, "id" | "state" | "messages" | "artifacts" | "result" | "error"> & { metadata: string }): Promise<Task> {
    await this.#ready;
    // Compared with the stored context itself: a Task copy of it would be thrown away.
    const live = this.#actors.get(this.kind, task.id)?.getSnapshot();
    const current = live?.status === "active" ? { ...live.context, state: live.value as TaskState } : await this.getTask(task.id);
    if (!current) throw new TaskNotFoundError(task.id);
    const changes: TaskChanges = {};
    if (task.messages.length > current.messages.length) changes.messages = task.messages.slice(current.messages.length);
    if (task.artifacts.length > current.artifacts.length) changes.artifacts = task.artifacts.slice(current.artifacts.length);
    if (task.metadata !== JSON.stringify(current.metadata)) changes.metadata = JSON.parse(task.metadata) as Record<string, unknown>;
    const at = Date.now();
    if (task.state === current.state) {
      if (!changes.messages && !changes.artifacts && !changes.metadata) return current instanceof Task ? current : taskOf(live!);
      if (finalStates.has(current.state)) throw new TaskStateError(task.id, current.state, current.state);
      return this.#send(task.id, { type: "UPDATE", at, changes }, current.state);
    }
    const type = eventInto[task.state];
    if (!type) throw new TaskStateError(task.id, current.state, task.state);
    const event: TaskEvent =
      type === "COMPLETE"
        ? { type, at, changes, result: task.result }
        : type === "FAIL"
          ? { type, at, changes, error: task.error ?? "failed" }
          : { type, at, changes };
    return this.#send(task.id, event, task.state);
  }

  start(id: string): Promise<Task> {
    return this.#send(id, { type: "START", at: Date.now() }, "running");
  }

  fail(id: string, error: string): Promise<Task> {
    return this.#send(id, { type: "FAIL", at: Date.now(), error }, "failed");
  }

  /** Throws TaskNotFoundError, or TaskNotCancelableError when the task is already final. */
  async cancel(id: string): Promise<Task> {
    const current = await this.getTask(id);
    if (!current) throw new TaskNotFoundError(id);
    if (current.isTerminal()) throw new TaskNotCancelableError(id, current.state);
    return this.#send(id, { type: "CANCEL", at: Date.now() }, "cancelled");
  }

  /** Forgets a task; one still in progress is cancelled first so its actor cannot write the row back. */
  async deleteTask(id: string): Promise<boolean> {
    const current = await this.getTask(id);
    if (!current) return false;
    if (!current.isTerminal()) await this.cancel(id);
    this.#history.delete(id);
    return repo.deleteTask(this.#db, id);
  }

  /** Resolves with the task once it is final; rejects with TaskTimeoutError after `timeout` seconds. */
  async waitForCompletion(id: string, timeout?: number, signal?: AbortSignal): Promise<Task> {
    const current = await this.getTask(id);
    if (!current) throw new TaskNotFoundError(id);
    if (current.isTerminal()) return current;
    const { promise, resolve, reject } = Promise.withResolvers<Task>();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = () => (clearTimeout(timer), unsubscribe?.(), signal?.removeEventListener("abort", aborted));
    const aborted = () => (done(), reject(signal?.reason ?? new Error("aborted")));
    const unsubscribe = await this.watch(id, (update) => update.final && (done(), resolve(update.task)));
    if (!unsubscribe) return (await this.getTask(id))!;
    if (timeout !== undefined) timer = setTimeout(() => (done(), reject(new TaskTimeoutError(id, timeout))), timeout * 1000);
    signal?.addEventListener("abort", aborted, { once: true });
    return promise;
  }

  /** Deletes final tasks not updated for `maxAgeSeconds`; returns how many. */
  async cleanupCompletedTasks(maxAgeSeconds = 3600): Promise<number> {
    await this.#ready;
    const ids = await repo.deleteFinishedBefore(this.#db, new Date(Date.now() - maxAgeSeconds * 1000));
    for (const id of ids) this.#history.delete(id);
    return ids.length;
  }

  /**
   * Calls `watcher` with every persisted change of a task in progress from now on, on this node or (on a store
   * several nodes share) another. Resolves with the unsubscribe function, or undefined when the task is final or
   * unknown (nothing more will happen to it).
   */
  async watch(id: string, watcher: TaskWatcher): Promise<(() => void) | undefined> {
    await this.#ready;
    const here = this.watchHere(id, watcher);
    if (here || !this.#actors.shared) return here;
    const elsewhere = await this.#actors.stored(this.kind, id);
    if (!elsewhere?.active) return undefined;
    // Read from the event log as the node running it announces its changes; a change made meanwhile is read too.
    return this.#actors.follow(id, elsewhere.revision - 1, (snapshot) => watcher(updateOf(snapshot as TaskSnapshot)));
  }

  /** `watch` for a task this node runs, at once; undefined when it runs elsewhere, is final or is unknown. */
  watchHere(id: string, watcher: TaskWatcher): (() => void) | undefined {
    const snapshot = this.#actors?.get(this.kind, id)?.getSnapshot();
    if (!snapshot || snapshot.status !== "active") return undefined;
    let set = this.#watchers.get(id);
    if (!set) this.#watchers.set(id, (set = new Set()));
    set.add(watcher);
    return () => {
      set.delete(watcher);
      if (!set.size && this.#watchers.get(id) === set) this.#watchers.delete(id);
    };
  }

  /** Calls `listener` with every persisted change of every task from now on (push notifications follow them here). */
  onChange(listener: TaskWatcher): void {
    this.#changes.add(listener);
  }

  /**
   * The changes after `revision`, when all of them are still known: remembered here, or (on a store several nodes
   * share) in the event log, whichever node made them; undefined when some are not.
   */
  async changesSince(id: string, revision: number): Promise<TaskUpdate[] | undefined> {
    const history = this.#history.get(id);
    if (history?.length && history[0]!.revision <= revision + 1) return history.filter((u) => u.revision > revision);
    if (!this.#actors?.shared) return undefined;
    const logged = await this.#actors.history(id, revision);
    if (!logged.length || logged[0]!.revision !== revision + 1) return undefined;
    return logged.map(({ snapshot }) => updateOf(snapshot as TaskSnapshot));
  }

  /**
   * Calls `listener` whenever tasks are handed back as interrupted while serving (taken over from a node that died),
   * so they are settled as those found at start-up are (see takeInterrupted).
   */
  onInterrupted(listener: () => void): void {
    this.#interruptedListener = listener;
  }
  #interruptedListener?: () => void;

  /** Ids of the tasks that were pending or running when the process stopped; each is returned once. */
  takeInterrupted(): string[] {
    const ids = this.#interrupted;
    this.#interrupted = [];
    return ids;
  }

  /** Closes the store the manager opened itself; a manager on the runtime's store leaves it to the runtime. */
  async close(): Promise<void> {
    await this.#ready.catch(() => {});
    await this.#close?.();
  }

  async #send(id: string, event: TaskEvent, target: TaskState): Promise<Task> {
    await this.#ready;
    const actor = this.#actors.get(this.kind, id);
    const before = actor?.getSnapshot();
    if (!before) {
      const row = await repo.findTask(this.#db, id);
      if (row) throw new TaskStateError(id, row.state, target);
      // Running on another node: the event goes there by mail, and the answer is the task as that node stored it.
      const elsewhere = this.#actors.shared ? await this.#actors.stored(this.kind, id) : undefined;
      if (!elsewhere) throw new TaskNotFoundError(id);
      const { value, context } = elsewhere.snapshot as TaskSnapshot;
      if (!elsewhere.active || !taskMachine.resolveState({ value, context }).can(event)) throw new TaskStateError(id, String(value), target);
      if (!(await this.#actors.send(this.kind, id, event))) throw new TaskStateError(id, "final", target);
      return (await this.getTask(id))!;
    }
    // The machine ignores an event its state does not take: that is a refused move, and nothing is stored.
    if (before.status !== "active" || !before.can(event)) throw new TaskStateError(id, String(before.value), target);
    await this.#actors.send(this.kind, id, event);
    return taskOf(actor!.getSnapshot());
  }

  *#inProgress(): Generator<TaskSnapshot> {
    for (const actor of this.#actors.live(this.kind)) {
      const snapshot = actor.getSnapshot();
      if (snapshot.status === "active") yield snapshot;
    }
  }

  #follow(id: string): void {
    this.#actors.subscribe(this.kind, id, (snapshot) => {
      const update = updateOf(snapshot);
      this.#remember(id, update);
      const watchers = this.#watchers.get(id);
      if (update.final) {
        this.#watchers.delete(id);
        this.#history.delete(id);
      }
      if (watchers) for (const watcher of watchers) watcher(update);
      for (const listener of this.#changes) listener(update);
    });
  }

  #remember(id: string, update: TaskUpdate): void {
    let history = this.#history.get(id);
    if (!history) this.#history.set(id, (history = []));
    history.push(update);
    if (history.length > historyLimit) history.shift();
  }

  #restored(actor: Actor<typeof taskMachine>): void {
    this.#follow(actor.id);
    this.#remember(actor.id, updateOf(actor.getSnapshot()));
    this.#interrupted.push(actor.id);
    // Taken over while serving (its node died): told once for all the tasks taken over together.
    if (this.#interruptedListener && this.#interrupted.length === 1) queueMicrotask(() => this.#interruptedListener?.());
  }
}

function stampMessage(message: MessageInput | TaskMessage, at: number): TaskMessage {
  const { id, role, parts, metadata } = message;
  const createdAt = "createdAt" in message && message.createdAt ? message.createdAt : new Date(at).toISOString();
  return { id: id ?? randomUUID(), role, parts, createdAt, ...(metadata ? { metadata } : {}) };
}

/** The Task is built on first read: most changes are never watched. */
function updateOf(snapshot: TaskSnapshot): TaskUpdate {
  let task: Task | undefined;
  return {
    id: snapshot.context.id,
    revision: snapshot.context.revision,
    state: snapshot.value as TaskState,
    final: snapshot.status !== "active",
    get task() {
      return (task ??= taskOf(snapshot));
    },
  };
}

/** A Task of its own: a handler that changes it changes nothing stored until it is handed back. */
function taskOf({ context, value }: TaskSnapshot): Task {
  return fromContext(context, value as TaskState);
}

function fromContext(c: Omit<TaskContext, "revision">, state: TaskState): Task {
  return new Task({
    id: c.id,
    type: c.type,
    state,
    contextId: c.contextId,
    payload: c.payload !== null && typeof c.payload === "object" ? structuredClone(c.payload) : c.payload,
    messages: [...c.messages],
    result: c.result,
    artifacts: [...c.artifacts],
    error: c.error,
    metadata: { ...c.metadata },
    createdAt: new Date(c.createdAt),
    updatedAt: new Date(c.updatedAt),
  });
}

function taskOfRow(row: A2aTaskRow): Task {
  return fromContext(
    {
      ...row,
      messages: row.messages as TaskMessage[],
      artifacts: row.artifacts as TaskContext["artifacts"],
      result: row.result ?? undefined,
      error: row.error ?? undefined,
      owner: row.owner ?? undefined,
      createdAt: row.createdAt.getTime(),
      updatedAt: row.updatedAt.getTime(),
    },
    row.state as TaskState,
  );
}

function rowOf({ context: c, value }: TaskSnapshot): A2aTaskRow {
  return {
    id: c.id,
    type: c.type,
    state: value as string,
    contextId: c.contextId,
    payload: c.payload ?? null,
    messages: c.messages,
    artifacts: c.artifacts,
    result: c.result ?? null,
    error: c.error ?? null,
    metadata: c.metadata,
    owner: c.owner ?? null,
    revision: c.revision,
    createdAt: new Date(c.createdAt),
    updatedAt: new Date(c.updatedAt),
  };
}
