/**
 * The actor system: every task, session, lease and order is an XState actor spawned here under an id.
 * Each transition is persisted (snapshot plus the capability's own record, in one transaction or savepoint)
 * before subscribers hear of it, so what an SSE stream shows has already survived a crash. A busy kind may
 * commit its transitions a turn at a time (ActorKind.groupCommit, actors/turn-transaction.ts).
 *
 * Deadlines: XState does not persist `after:` timers, so a machine that needs one keeps `deadline` (epoch ms)
 * in its context; the system keeps a timer armed for it (re-armed on restore) and sends `{ type: "DEADLINE" }`.
 */
import { createActor, type Actor, type AnyStateMachine, type EventFrom, type InputFrom, type SnapshotFrom } from "xstate";
import type { Db, DbOrTx } from "../src/db/client.ts";
import type { ActorRow } from "../src/db/schema.ts";
import type { Logger } from "../src/log.ts";
import { TurnTransaction } from "./turn-transaction.ts";
import { activeActors, deleteFinishedBefore, findActor, insertActor, saveActor } from "./repo.ts";

export const DEADLINE = "DEADLINE" as const;
export type DeadlineEvent = { type: typeof DEADLINE };

export interface ActorKind<M extends AnyStateMachine = AnyStateMachine> {
  /** Stored with each snapshot; names the machine to restore it with. */
  kind: string;
  machine: M;
  /** Writes the capability's own record of the actor, in the transaction that stores the snapshot. */
  record?(tx: DbOrTx, id: string, snapshot: SnapshotFrom<M>): void;
  /**
   * Store this kind's transitions with the others of the same event-loop turn, in one transaction committed as
   * the turn ends: far fewer commits under load. spawn/send then return before the change is committed (a refused
   * write still throws at once); subscribers hear of it after the commit, and an answer that acknowledges it
   * must first await `committed()`. Other kinds commit before spawn/send return.
   */
  groupCommit?: boolean;
  /** Called once for each actor restored at boot (e.g. to fail work that was interrupted). */
  restored?(actor: Actor<M>): void;
  /** How long a final actor stays addressable before it is retired; defaults to the system's retention. */
  retentionMs?: number;
  /**
   * Let go of an actor as soon as its final snapshot is stored and told, not at retirement: for a kind whose
   * capability keeps its own record of finished actors (A2A tasks), so a busy server does not hold every
   * actor of the last retention period in memory. Its row is retired as usual.
   */
  releaseFinal?: boolean;
}

/** The database refused a transition; the actor is put back to its last stored snapshot. */
export class ActorPersistError extends Error {
  constructor(id: string, cause: unknown) {
    super(`actor ${id}: transition could not be stored, so it did not happen`, { cause });
    this.name = "ActorPersistError";
  }
}

/**
 * An actor was sent more events in one turn of the event loop than any real workload sends: something answers
 * the actor's notifications by sending to it again, in a loop that would never let the process serve anything
 * else. The send is refused; the loop ends with this error and the process keeps serving.
 */
export class ActorLoopError extends Error {
  constructor(id: string, limit: number) {
    super(`actor ${id} was sent ${limit} events in one turn of the event loop; refusing more until the next turn`);
    this.name = "ActorLoopError";
  }
}

export class ActorExistsError extends Error {
  constructor(id: string) {
    super(`an actor with id ${id} already exists`);
    this.name = "ActorExistsError";
  }
}

type Listener = (snapshot: SnapshotFrom<AnyStateMachine>) => void;
type WriteTransition = (id: string, entry: Entry, snapshot: SnapshotFrom<AnyStateMachine>, now: Date, finished: boolean, deadline?: number) => void;

interface Entry {
  kind: ActorKind;
  actor: Actor<AnyStateMachine>;
  createdAt: Date;
  listeners: Set<Listener>;
  subscription?: { unsubscribe(): void };
  timer?: ReturnType<typeof setTimeout>;
  deadline?: number;
  /** Whether its row exists: a spawned actor's first snapshot is inserted, so a taken id is refused there. */
  stored: boolean;
  /** Set when a transition could not be stored; the entry is then replaced from the database. */
  failed?: unknown;
  /** After a failed transition, its deadline fires no sooner than this, so a store that keeps failing is not retried in a hot loop. */
  retryNotBefore?: number;
  /** Events sent to it in the current turn of the event loop (see ActorLoopError). */
  sentThisTurn: number;
}

export interface ActorSystemOptions {
  db: Db;
  log: Logger;
  /** Default time a final actor is kept before it is retired. */
  retentionMs: number;
  now?: () => number;
}

// setTimeout's ceiling; a later deadline is re-armed when this one fires.
const maxTimer = 2 ** 31 - 1;
/** More events than this to one actor in one turn is a loop, not a workload (a task's busiest turn sends a handful). */
const sendsPerTurn = 1000;
/** How long a deadline waits after its transition could not be stored before it is tried again. */
const failedRetryMs = 1000;

export class ActorSystem {
  readonly #kinds = new Map<string, ActorKind>();
  readonly #entries = new Map<string, Entry>();
  readonly #db: Db;
  readonly #log: Logger;
  readonly #retentionMs: number;
  readonly #now: () => number;
  readonly #turn: TurnTransaction;
  readonly #store: WriteTransition;
  #sweeper?: ReturnType<typeof setInterval>;
  /** Entries sent to in this turn; their counts are reset when the turn ends. */
  readonly #sentTo = new Set<Entry>();

  constructor({ db, log, retentionMs, now = Date.now }: ActorSystemOptions) {
    this.#db = db;
    this.#log = log.child({ component: "actors" });
    this.#retentionMs = retentionMs;
    this.#now = now;
    this.#turn = new TurnTransaction(db.$client, this.#log);
    // bun:sqlite's own transaction (a savepoint when one is open), made once: drizzle's builds a query API per call.
    this.#store = db.$client.transaction((...args: Parameters<WriteTransition>) => this.#write(...args));
  }

  register<M extends AnyStateMachine>(kind: ActorKind<M>): void {
    if (this.#kinds.has(kind.kind)) throw new Error(`actor kind ${kind.kind} is registered twice`);
    this.#kinds.set(kind.kind, kind as unknown as ActorKind);
  }

  /**
   * Starts a new actor; its initial snapshot is written before this returns (committed too, unless the kind
   * commits a turn at a time: see groupCommit). `from`, a snapshot of the kind's machine (machine.resolveState),
   * starts it there instead of at the machine's initial state.
   */
  spawn<M extends AnyStateMachine>(kind: ActorKind<M>, id: string, input: InputFrom<M>, from?: SnapshotFrom<M>): Actor<M> {
    if (this.#entries.has(id)) throw new ActorExistsError(id);
    const registered = this.#kindOf(kind.kind);
    const actor = createActor(registered.machine, from ? { id, snapshot: from } : { id, input });
    const entry = this.#track(id, registered, actor, new Date(this.#now()), false);
    if (entry.failed instanceof ActorExistsError) {
      this.#forget(id);
      throw entry.failed;
    }
    if (entry.failed) throw new ActorPersistError(id, entry.failed);
    return actor as unknown as Actor<M>;
  }

  /** The live actors of a kind (those restored or spawned and not yet retired or let go). */
  *live<M extends AnyStateMachine>(kind: ActorKind<M>): Generator<Actor<M>> {
    for (const entry of this.#entries.values()) if (entry.kind.kind === kind.kind) yield entry.actor as unknown as Actor<M>;
  }

  get<M extends AnyStateMachine>(kind: ActorKind<M>, id: string): Actor<M> | undefined {
    const entry = this.#entries.get(id);
    return entry?.kind.kind === kind.kind ? (entry.actor as unknown as Actor<M>) : undefined;
  }

  /**
   * Sends an event to a live actor; false when there is none under that id. Throws ActorPersistError when the
   * resulting transition could not be stored (the actor then stays at its last stored snapshot).
   */
  send<M extends AnyStateMachine>(kind: ActorKind<M>, id: string, event: EventFrom<M>): boolean {
    const entry = this.#entries.get(id);
    if (!entry || entry.kind.kind !== kind.kind) return false;
    this.#count(id, entry);
    entry.actor.send(event);
    if (entry.failed) throw new ActorPersistError(id, entry.failed);
    return true;
  }

  /**
   * Calls `listener` with every persisted snapshot of the actor from now on. Returns the unsubscribe function,
   * or undefined when no live actor has that id.
   */
  subscribe<M extends AnyStateMachine>(kind: ActorKind<M>, id: string, listener: (snapshot: SnapshotFrom<M>) => void) {
    const entry = this.#entries.get(id);
    if (!entry || entry.kind.kind !== kind.kind) return undefined;
    entry.listeners.add(listener as Listener);
    return () => void entry.listeners.delete(listener as Listener);
  }

  /** Brings back every actor that had not finished when the process stopped. Returns how many. */
  restore(): number {
    let restored = 0;
    for (const row of activeActors(this.#db)) {
      const kind = this.#kinds.get(row.kind);
      if (!kind) {
        this.#log.warn("actor of unknown kind left as it is", { actorId: row.id, kind: row.kind });
        continue;
      }
      this.#revive(row, kind);
      restored++;
    }
    if (restored) this.#log.info("actors restored", { count: restored });
    return restored;
  }

  /**
   * Brings back one stored, unfinished actor of `kind` that is not live here, as `restore` would: for a process
   * that owns the data dir for a moment (a CLI verb while no server runs) and must change one actor. True when
   * the actor is live here afterwards.
   */
  adopt<M extends AnyStateMachine>(kind: ActorKind<M>, id: string): boolean {
    if (this.#entries.has(id)) return this.#entries.get(id)!.kind.kind === kind.kind;
    const row = findActor(this.#db, id);
    if (row?.status !== "active" || row.kind !== kind.kind) return false;
    this.#revive(row, this.#kindOf(kind.kind));
    return true;
  }

  /** Retires final actors whose retention has passed: stopped, forgotten, their snapshot rows deleted. */
  sweep(): number {
    let retired = 0;
    for (const kind of this.#kinds.values()) {
      const before = new Date(this.#now() - (kind.retentionMs ?? this.#retentionMs));
      for (const id of deleteFinishedBefore(this.#db, kind.kind, before)) {
        this.#forget(id);
        retired++;
      }
    }
    return retired;
  }

  /** Sweeps every `intervalMs` until stopped; the timer never keeps the process alive. */
  startSweeping(intervalMs: number): void {
    this.#sweeper = setInterval(() => this.sweep(), intervalMs);
    this.#sweeper.unref();
  }

  stats(): { live: number; active: number; byKind: Record<string, number> } {
    const byKind: Record<string, number> = {};
    let active = 0;
    for (const { kind, actor } of this.#entries.values()) {
      byKind[kind.kind] = (byKind[kind.kind] ?? 0) + 1;
      if (actor.getSnapshot().status === "active") active++;
    }
    return { live: this.#entries.size, active, byKind };
  }

  /** How many live actors each kind has in each state (a nested state as its JSON). */
  census(): { kind: string; state: string; count: number }[] {
    const counts = new Map<string, { kind: string; state: string; count: number }>();
    for (const { kind, actor } of this.#entries.values()) {
      const value = actor.getSnapshot().value;
      const state = typeof value === "string" ? value : JSON.stringify(value);
      const key = `${kind.kind}\0${state}`;
      const entry = counts.get(key);
      if (entry) entry.count++;
      else counts.set(key, { kind: kind.kind, state, count: 1 });
    }
    return [...counts.values()];
  }

  /** Resolves once every transition so far is committed (see ActorKind.groupCommit); rejects if it could not be. */
  committed(): Promise<void> {
    return this.#turn.committed();
  }

  /** True while transitions of this turn await their commit. */
  get uncommitted(): boolean {
    return this.#turn.pending;
  }

  /** Stops every actor without touching what is stored: a restart restores them as they were. */
  stop(): void {
    this.#turn.commit();
    clearInterval(this.#sweeper);
    for (const id of [...this.#entries.keys()]) this.#forget(id);
  }

  #kindOf(name: string): ActorKind {
    const kind = this.#kinds.get(name);
    if (!kind) throw new Error(`actor kind ${name} is not registered`);
    return kind;
  }

  /** Counts a send to the entry in this turn; throws ActorLoopError past the limit. */
  #count(id: string, entry: Entry): void {
    if (!this.#sentTo.size) setImmediate(() => this.#newTurn());
    this.#sentTo.add(entry);
    if (++entry.sentThisTurn <= sendsPerTurn) return;
    if (entry.sentThisTurn === sendsPerTurn + 1) this.#log.error("actor send loop stopped", { actorId: id, kind: entry.kind.kind, limit: sendsPerTurn });
    throw new ActorLoopError(id, sendsPerTurn);
  }

  #newTurn(): void {
    for (const entry of this.#sentTo) entry.sentThisTurn = 0;
    this.#sentTo.clear();
  }

  #track(
    id: string,
    kind: ActorKind,
    actor: Actor<AnyStateMachine>,
    createdAt: Date,
    stored: boolean,
    listeners = new Set<Listener>(),
    retryNotBefore?: number,
  ): Entry {
    const entry: Entry = { kind, actor, createdAt, listeners, stored, retryNotBefore, sentThisTurn: 0 };
    this.#entries.set(id, entry);
    // A stored actor announces its stored snapshot when it starts: nothing to write or tell, only its deadline to
    // arm. (Writing it again would also turn a store that keeps failing into a loop of reverts.)
    let last: unknown = stored ? actor.getSnapshot() : undefined;
    entry.subscription = actor.subscribe({
      next: (snapshot) => {
        if (snapshot === last) return; // an event that changed nothing
        last = snapshot;
        this.#persist(id, entry, snapshot);
      },
      error: (error) => {
        this.#log.error("actor failed", { actorId: id, kind: kind.kind, error });
        this.#persist(id, entry, actor.getSnapshot());
      },
    });
    actor.start();
    if (stored && actor.getSnapshot().status === "active") this.#arm(id, entry, deadlineOf(actor.getSnapshot()));
    return entry;
  }

  /** Starts a stored actor from its snapshot (its deadline armed again) and tells its kind. */
  #revive(row: ActorRow, kind: ActorKind): void {
    const actor = createActor(kind.machine, { id: row.id, snapshot: row.snapshot as never });
    this.#track(row.id, kind, actor, row.createdAt, true);
    kind.restored?.(actor);
  }

  /** Replaces a live actor whose transition was not stored with one restored from its last stored snapshot. */
  #revert(id: string, entry: Entry): void {
    if (this.#entries.get(id) !== entry) return;
    // Copied: forgetting the entry clears its set, and its subscribers stay with the restored actor.
    const listeners = new Set(entry.listeners);
    this.#forget(id);
    const row = findActor(this.#db, id);
    if (row?.status !== "active") return;
    const actor = createActor(entry.kind.machine, { id, snapshot: row.snapshot as never });
    this.#track(id, entry.kind, actor, row.createdAt, true, listeners, this.#now() + failedRetryMs);
  }

  #persist(id: string, entry: Entry, snapshot: SnapshotFrom<AnyStateMachine>): void {
    const now = new Date(this.#now());
    const finished = snapshot.status !== "active";
    const deadline = finished ? undefined : deadlineOf(snapshot);
    let joined = false;
    try {
      // A grouped kind joins the turn's transaction. An immediate one is stored on its own: what the turn holds so
      // far is committed first, so that this write commits as it is made.
      if (!entry.kind.groupCommit) this.#turn.commit();
      joined = entry.kind.groupCommit === true && this.#turn.join();
      this.#store(id, entry, snapshot, now, finished, deadline);
    } catch (error) {
      // A spawn under a taken id: nothing was stored and nothing is to be put back.
      if (error instanceof ActorExistsError) entry.failed = error;
      else this.#fail(id, entry, error);
      return;
    }
    entry.retryNotBefore = undefined;
    this.#arm(id, entry, deadline);
    const release = finished && entry.kind.releaseFinal === true;
    if (!joined) {
      this.#notify(id, entry, snapshot, entry.listeners);
      // Not while XState is still delivering this snapshot.
      if (release) queueMicrotask(() => this.#release(id, entry));
      return;
    }
    // Told after the commit: those subscribed when it happened and still subscribed then.
    const listeners = [...entry.listeners];
    this.#turn.settle(
      () => {
        this.#notify(id, entry, snapshot, listeners);
        if (release) this.#release(id, entry);
      },
      (error) => this.#fail(id, entry, error),
    );
  }

  #fail(id: string, entry: Entry, error: unknown): void {
    if (entry.failed) return; // a rolled-back group fails each of its transitions; one revert undoes them all
    this.#log.error("actor transition could not be stored; reverting", { actorId: id, kind: entry.kind.kind, error });
    entry.failed = error;
    queueMicrotask(() => this.#revert(id, entry));
  }

  #notify(id: string, entry: Entry, snapshot: SnapshotFrom<AnyStateMachine>, listeners: Iterable<Listener>): void {
    for (const listener of listeners) {
      if (!entry.listeners.has(listener)) continue;
      try {
        listener(snapshot);
      } catch (error) {
        this.#log.error("actor subscriber failed", { actorId: id, error });
      }
    }
  }

  /** Writes one transition: the snapshot row and the kind's record. Runs inside #store's transaction. */
  #write(...[id, entry, snapshot, now, finished, deadline]: Parameters<WriteTransition>): void {
    const row: ActorRow = {
      id,
      kind: entry.kind.kind,
      status: snapshot.status === "active" ? "active" : snapshot.status === "error" ? "error" : "done",
      state: snapshot.value ?? null,
      snapshot: entry.actor.getPersistedSnapshot(),
      deadline: deadline ?? null,
      createdAt: entry.createdAt,
      updatedAt: now,
      finishedAt: finished ? now : null,
    };
    if (entry.stored) saveActor(this.#db, row);
    else if (insertActor(this.#db, row)) entry.stored = true;
    else throw new ActorExistsError(id);
    entry.kind.record?.(this.#db, id, snapshot);
  }

  #arm(id: string, entry: Entry, deadline: number | undefined): void {
    if (entry.deadline === deadline) return;
    clearTimeout(entry.timer);
    entry.deadline = deadline;
    entry.timer = undefined;
    if (deadline === undefined) return;
    const delay = Math.max(0, deadline - this.#now(), (entry.retryNotBefore ?? 0) - this.#now());
    entry.timer = setTimeout(() => {
      entry.timer = undefined;
      if (delay > maxTimer) {
        entry.deadline = undefined;
        this.#arm(id, entry, deadline);
      } else entry.actor.send({ type: DEADLINE });
    }, Math.min(delay, maxTimer));
  }

  #release(id: string, entry: Entry): void {
    if (this.#entries.get(id) === entry && !entry.failed) this.#forget(id);
  }

  #forget(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.listeners.clear();
    // Unsubscribe first: stopping is not a transition and must not be persisted.
    entry.subscription?.unsubscribe();
    this.#entries.delete(id);
    entry.actor.stop();
  }
}

function deadlineOf(snapshot: SnapshotFrom<AnyStateMachine>): number | undefined {
  const deadline = (snapshot.context as { deadline?: unknown } | undefined)?.deadline;
  return typeof deadline === "number" && Number.isFinite(deadline) ? deadline : undefined;
}
