/**
 * Task handlers by type, and running one: START, the handler, then COMPLETE with what it returned or FAIL
 * with what it threw. Cancelling the task aborts the handler's signal and discards its late answer.
 */
import { storeUnreachable } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { TaskStateError } from "./errors.ts";
import type { TaskManager } from "./service.ts";
import type { Task } from "./task.ts";

export interface TaskHandlerContext {
  /** Aborted when the task is cancelled. */
  signal: AbortSignal;
  /** The verified identity of whoever sent the task, when the transport established one. */
  callerId?: string;
  /** Stores the task's progress so far (messages, artifacts, metadata); watchers see it once it is stored. */
  update(task: Task): Promise<Task>;
}

/** Returns the task (changed as it likes) or nothing; a returned task still in progress is completed. */
export type TaskHandler = (task: Task, context: TaskHandlerContext) => Promise<Task | void> | Task | void;

export interface TaskHandlerOptions {
  /** The agent card capability this handler serves (its name by default is the task type). */
  capability?: string;
  /** Only this SPIFFE id, or ids under a `prefix/*`, may use the task type; checked besides policy. */
  requiresPeer?: string;
  /** Run the handler again for a task it was running when the process stopped, instead of failing it. */
  resumable?: boolean;
}

export interface RegisteredHandler {
  type: string;
  handler: TaskHandler;
  options: TaskHandlerOptions;
}

export class TaskHandlers {
  readonly #entries = new Map<string, RegisteredHandler>();

  constructor(readonly log?: Logger) {}

  register(type: string, handler: TaskHandler, options: TaskHandlerOptions = {}): void {
    if (this.#entries.has(type)) throw new Error(`a handler for task type ${type} is registered twice`);
    this.#entries.set(type, { type, handler, options });
  }

  get(type: string): RegisteredHandler | undefined {
    return this.#entries.get(type);
  }

  types(): string[] {
    return [...this.#entries.keys()];
  }

  /**
   * Runs the handler of a pending (or, when resuming, running) task to a final state; resolves with the task as
   * stored then (undefined when it was cancelled meanwhile). Rejects with ActorPersistError when the store refused
   * its start or its outcome (the task then stays as stored before).
   */
  async run(manager: TaskManager, task: Task, callerId?: string): Promise<Task | undefined> {
    const entry = this.#entries.get(task.type);
    if (!entry) return this.#settle(() => manager.fail(task.id, `No handler for task type ${task.type}`));
    const cancelled = new AbortController();
    const unwatch = manager.watchHere(task.id, (update) => {
      if (update.state === "cancelled") cancelled.abort(new Error(`task ${task.id} was cancelled`));
    });
    let outcome: { task: Task } | { failed: string };
    try {
      const working = task.state === "running" ? task : await manager.start(task.id);
      const context: TaskHandlerContext = { signal: cancelled.signal, callerId, update: (t) => manager.updateTask(t) };
      const returned = (await entry.handler(working, context)) ?? working;
      if (cancelled.signal.aborted) return await manager.getTask(task.id);
      if (returned.id !== task.id) throw new Error(`the handler returned task ${returned.id} in place of ${task.id}`);
      if (!returned.isTerminal()) returned.markCompleted();
      outcome = { task: returned };
    } catch (error) {
      if (cancelled.signal.aborted) return await manager.getTask(task.id);
      const message = error instanceof Error ? error.message : String(error);
      this.log?.debug("task handler failed", { taskId: task.id, taskType: task.type, error: message });
      outcome = { failed: message || "the handler failed" };
    } finally {
      unwatch?.();
    }
    const settle = () => ("failed" in outcome ? manager.fail(task.id, outcome.failed) : manager.updateTask(outcome.task));
    try {
      return await this.#settle(settle);
    } catch (error) {
      // The work is done but the store is out of reach: its outcome is stored once the store is back (whoever
      // waits hears of the failure now), so the task never stays in progress with nothing running it.
      if (storeUnreachable(error)) void this.#settleLater(task.id, settle);
      throw error;
    }
  }

  /**
   * Settles tasks that were pending or running when the process stopped: a pending one runs now (its handler
   * never started), a running one resumes if its handler is resumable and otherwise fails as interrupted.
   */
  async recover(manager: TaskManager): Promise<void> {
    for (const id of manager.takeInterrupted()) {
      const task = await manager.getTask(id);
      if (!task || task.isTerminal()) continue;
      const entry = this.#entries.get(task.type);
      if (task.state === "pending" || entry?.options.resumable)
        this.run(manager, task).catch((error) => this.log?.error("recovered task's outcome could not be stored", { taskId: id, error }));
      // A refusal of the store is logged by #settle; the task stays in progress and is recovered again later.
      else await this.#settle(() => manager.fail(id, "interrupted: the process stopped while the task was running")).catch(() => {});
    }
  }

  /**
   * Tries `move` again, less and less often, while the store stays out of reach. It ends once the outcome is
   * stored, or refused otherwise: the task was cancelled, or another node took it over while this one was cut off.
   */
  async #settleLater(taskId: string, move: () => Promise<Task>): Promise<void> {
    for (let waitMs = 250; ; waitMs = Math.min(waitMs * 2, 5000)) {
      await new Promise((resolve) => setTimeout(resolve, waitMs).unref());
      try {
        await move();
        this.log?.info("task outcome stored after the store came back", { taskId });
        return;
      } catch (error) {
        if (storeUnreachable(error)) continue;
        if (!(error instanceof TaskStateError)) this.log?.warn("task outcome given up: the task moved on meanwhile", { taskId, error });
        return;
      }
    }
  }

  /** A task cancelled meanwhile refuses further moves: the expected race, not a fault. A refusal of the store is reported. */
  async #settle(move: () => Promise<Task>): Promise<Task | undefined> {
    try {
      return await move();
    } catch (error) {
      if (error instanceof TaskStateError) return undefined;
      this.log?.error("task outcome could not be stored", { error });
      throw error;
    }
  }
}
