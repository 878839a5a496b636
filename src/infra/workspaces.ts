/**
 * The workspace actors: one per workspace folder, created when first used, holding whether a run is under way.
 * A run's child process lives and dies with this process, so these actors are kept in memory, not stored: after a
 * restart every workspace is idle. What outlives the process is on disk beside the run logs: each run's full log
 * and the workspace's last run.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createActor, type Actor } from "xstate";
import { ended, workspaceMachine } from "../../actors/workspace.machine.ts";
import { InfraError } from "./errors.ts";
import type { WorkspaceState } from "./model.ts";
import type { RunRecord, WorkspaceView } from "./views.ts";

export class Workspaces {
  readonly #actors = new Map<string, Actor<typeof workspaceMachine>>();

  /** `runsDir` holds, per workspace, every run's log and the last run's record. */
  constructor(private readonly runsDir: string) {}

  /**
   * Starts a run of `action` in the workspace at `path` (relative to the root) and returns its id and log file;
   * Busy when one is under way. `finish` must follow, whatever happens.
   */
  begin(path: string, action: string): { runId: string; logFile: string } {
    const actor = this.#actorFor(path);
    const snapshot = actor.getSnapshot();
    const running = snapshot.context.running;
    if (running)
      throw new InfraError("BUSY", `workspace ${path} is busy running ${running.action} (run ${running.runId}); wait for it or cancel it`, {
        runningAction: running.action,
        runId: running.runId,
      });
    const runId = randomUUID();
    actor.send({ type: "RUN", action, runId, at: Date.now() });
    return { runId, logFile: join(this.#dirOf(path), `${new Date().toISOString().replace(/[:.]/g, "-")}-${action}-${runId.slice(0, 8)}.log`) };
  }

  finish(path: string, record: RunRecord): void {
    this.#actorFor(path).send({ type: "FINISHED", record });
    writeFileSync(join(this.#dirOf(path), "last-run.json"), JSON.stringify(record, null, 2));
  }

  view(path: string): WorkspaceView {
    const actor = this.#actors.get(path);
    if (!actor) {
      const lastRun = this.#storedLastRun(path);
      return { state: lastRun && !ended(lastRun) ? "failed" : "idle", ...(lastRun ? { lastRun } : {}) };
    }
    const { value, context } = actor.getSnapshot();
    return {
      state: value as WorkspaceState,
      ...(context.running ? { running: { ...context.running, startedAt: new Date(context.running.startedAt).toISOString() } } : {}),
      ...(context.lastRun ? { lastRun: context.lastRun } : {}),
    };
  }

  /** Resolves once the workspace at `path` has no run under way. */
  settled(path: string): Promise<WorkspaceView> {
    const actor = this.#actors.get(path);
    if (!actor?.getSnapshot().context.running) return Promise.resolve(this.view(path));
    const { promise, resolve } = Promise.withResolvers<WorkspaceView>();
    const subscription = actor.subscribe((snapshot) => {
      if (snapshot.context.running) return;
      subscription.unsubscribe();
      resolve(this.view(path));
    });
    return promise;
  }

  /** The paths of the workspaces with a run under way. */
  busy(): string[] {
    return [...this.#actors].filter(([, actor]) => actor.getSnapshot().context.running).map(([path]) => path);
  }

  stop(): void {
    for (const actor of this.#actors.values()) actor.stop();
    this.#actors.clear();
  }

  #actorFor(path: string) {
    let actor = this.#actors.get(path);
    if (!actor) {
      const lastRun = this.#storedLastRun(path);
      actor = createActor(workspaceMachine, { input: { path, lastRun } });
      actor.start();
      this.#actors.set(path, actor);
    }
    return actor;
  }

  #storedLastRun(path: string): RunRecord | undefined {
    const file = join(this.#dirOf(path, false), "last-run.json");
    if (!existsSync(file)) return undefined;
    try {
      return JSON.parse(readFileSync(file, "utf8")) as RunRecord;
    } catch {
      return undefined;
    }
  }

  /** A workspace's own folder of logs: readable, and distinct for every path. */
  #dirOf(path: string, create = true): string {
    const readable = path === "." ? "root" : path.replace(/[^A-Za-z0-9._-]+/g, "_").slice(0, 80);
    const dir = join(this.runsDir, `${readable}-${createHash("sha256").update(path).digest("hex").slice(0, 8)}`);
    if (create) mkdirSync(dir, { recursive: true });
    return dir;
  }
}
