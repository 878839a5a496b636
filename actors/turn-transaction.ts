/**
 * Group commit. Writes made during one event-loop turn share one SQLite transaction, committed when the turn
 * ends (setImmediate): under load, thousands of commits a second (each a write to the WAL) become a few.
 * The statements themselves run at once, so the connection reads them back and a refused write still fails
 * its writer (inside a savepoint). Only the commit waits, and with it whatever must not be seen before it is
 * stored: subscribers are called after the commit, and an answer awaits `committed()` before it leaves.
 */
import type { Database } from "bun:sqlite";
import type { Logger } from "../src/log.ts";

interface Open {
  done: PromiseWithResolvers<void>;
  afterCommit: (() => void)[];
  afterRollback: ((error: unknown) => void)[];
}

export class TurnTransaction {
  #open?: Open;

  constructor(
    private readonly sqlite: Database,
    private readonly log: Logger,
  ) {}

  /** True while this turn's transaction holds uncommitted writes. */
  get pending(): boolean {
    return this.#open !== undefined;
  }

  /**
   * Makes the following writes part of this turn's transaction, opening it if needed. False when another
   * transaction is already open on the connection: the writes then belong to it, and its owner commits them.
   */
  join(): boolean {
    if (this.#open) return true;
    if (this.sqlite.inTransaction) return false;
    this.sqlite.run("BEGIN IMMEDIATE");
    const done = Promise.withResolvers<void>();
    // A failed commit is reported to whoever awaits it; nobody awaiting is not a crash.
    done.promise.catch(() => {});
    this.#open = { done, afterCommit: [], afterRollback: [] };
    setImmediate(() => this.commit());
    return true;
  }

  /**
   * Runs `commit` once the turn's writes are stored, `rollback` if they never will be. (Not named `then`: that
   * would make the object a thenable, which `await` would call.)
   */
  settle(commit: () => void, rollback: (error: unknown) => void): void {
    this.#open?.afterCommit.push(commit);
    this.#open?.afterRollback.push(rollback);
  }

  /** Resolves once everything written so far is committed; rejects if it could not be. */
  committed(): Promise<void> {
    return this.#open?.done.promise ?? Promise.resolve();
  }

  /** Commits now: at the end of the turn, before an immediate write is made, and at shutdown. */
  commit(): void {
    const open = this.#open;
    if (!open) return;
    this.#open = undefined;
    try {
      this.sqlite.run("COMMIT");
    } catch (error) {
      if (this.sqlite.inTransaction) this.sqlite.run("ROLLBACK");
      this.log.error("a group of writes could not be committed; rolled back", { error });
      try {
        for (const undo of open.afterRollback) undo(error);
      } finally {
        open.done.reject(error);
      }
      return;
    }
    // Whatever a callback does, those awaiting the commit hear of it.
    try {
      for (const notify of open.afterCommit) notify();
    } finally {
      open.done.resolve();
    }
  }
}
