/**
 * The actor system: every task, session, lease and order is an XState actor spawned here under an id.
 *
 * A transition happens in memory at once; its write (the snapshot row, the kind's own record, and for streamed
 * kinds an entry in the event log) joins a batch that the writer commits in one transaction as soon as the previous
 * batch is done: under load the batches grow and the commits stay few (group commit). `spawn` and `send` resolve
 * once the transition is committed, and subscribers hear of it only then, so what a stream shows has already
 * survived a crash. One actor's writes go in order; different actors' go out together, each table's rows in one
 * statement on PostgreSQL. A batch that fails is rolled back whole and each actor's writes are retried on their
 * own, so a refused write fails only its actor, which goes back to its last committed snapshot (kept in memory: no
 * read is needed, even with the store gone).
 *
 * Ownership: each row names the node that holds the actor and a fencing token; a write changes the row only while
 * both still match, so a node that lost an actor to another (docs/deploy.md) can never write it again.
 *
 * Deadlines: XState does not persist `after:` timers, so a machine that needs one keeps `deadline` (epoch ms)
 * in its context; the system keeps a timer armed for it (re-armed on restore) and sends `{ type: "DEADLINE" }`.
 */
import { createActor, type Actor, type AnyStateMachine, type EventFrom, type InputFrom, type SnapshotFrom } from "xstate";
import { isUniqueViolation, type Db, type DbOrTx } from "../src/db/client.ts";
import type { ActorEventRow, ActorRow } from "../src/db/schema.ts";
import { makeStorable, refusedText } from "../src/db/storable.ts";
import type { Logger } from "../src/log.ts";
import { claimActor, claimActors, deleteFinishedBefore, eventsAfter, findActor, insertActors, logEvents, notifyEvents, updateActors } from "./repo.ts";

export const DEADLINE = "DEADLINE" as const;
export type DeadlineEvent = { type: typeof DEADLINE };

export interface ActorKind<M extends AnyStateMachine = AnyStateMachine> {
  /** Stored with each snapshot; names the machine to restore it with. */
  kind: string;
  machine: M;
  /**
   * Writes the capability's own record of the actor, in the transaction that stores the snapshot; `previous` is
   * the snapshot before this transition (none for the first). Throwing refuses the transition: nothing of it is
   * stored and the actor goes back to its last stored snapshot.
   */
  record?(tx: DbOrTx, id: string, snapshot: SnapshotFrom<M>, previous: SnapshotFrom<M> | undefined): Promise<void>;
  /**
   * `record` for a batch: the records of every transition of this kind in one transaction (each actor's in order),
   * written at once, in place of `record` one by one: for a kind whose record is a row per actor, so that a batch
   * writes them in one statement. Throwing refuses the batch's transitions (each actor's are then tried alone).
   */
  records?(tx: DbOrTx, changes: { id: string; snapshot: SnapshotFrom<M>; previous: SnapshotFrom<M> | undefined }[]): Promise<void>;
  /** Appends each transition to the event log, which subscribers on any node read in order (A2A task streams). */
  logged?: boolean;
  /** Called once for each actor restored (at boot, or taken over from a node that died), e.g. to resume its work. */
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

/** The store refused a transition; the actor is put back to its last stored snapshot. */
export class ActorPersistError extends Error {
  constructor(id: string, cause: unknown) {
    super(`actor ${id}: transition could not be stored, so it did not happen`, { cause });
    this.name = "ActorPersistError";
  }
}

/** Another node holds the actor now (it took over this node's lease); this node lets its copy go. */
export class ActorFencedError extends Error {
  constructor(id: string) {
    super(`actor ${id} is held by another node now; this node's copy was let go`);
    this.name = "ActorFencedError";
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

type Snapshot = SnapshotFrom<AnyStateMachine>;
type Listener = (snapshot: Snapshot) => void;

interface Entry {
  id: string;
  kind: ActorKind;
  actor: Actor<AnyStateMachine>;
  createdAt: Date;
  listeners: Set<Listener>;
  subscription?: { unsubscribe(): void };
  timer?: ReturnType<typeof setTimeout>;
  deadline?: number;
  /** The fencing token this node holds the actor with. */
  fence: number;
  /** Transitions queued so far (the next write's revision is one more). */
  revision: number;
  /** The last committed snapshot (persisted form) and its revision: what a failed transition goes back to. */
  stored?: { snapshot: unknown; revision: number; active: boolean };
  /** The snapshot of the last queued transition: the `previous` of the next one. */
  last?: Snapshot;
  /** The write of the last queued transition. */
  lastWrite?: Write;
  /** Set when a transition could not be stored; the entry is then replaced by its last stored snapshot. */
  failed?: unknown;
  /** After a failed transition, its deadline fires no sooner than this, so a store that keeps failing is not retried in a hot loop. */
  retryNotBefore?: number;
  /** Events sent to it in the current turn of the event loop (see ActorLoopError). */
  sentThisTurn: number;
}

/** One transition on its way to the store. */
interface Write {
  entry: Entry;
  snapshot: Snapshot;
  previous?: Snapshot;
  /** The persisted form, taken when the transition happened (the actor moves on). */
  persisted: unknown;
  revision: number;
  at: Date;
  /** Those subscribed when it happened: they are told once it is committed. */
  listeners: Listener[];
  done: PromiseWithResolvers<void>;
}

/** How events reach actors held by other nodes sharing the store (src/cluster). */
export interface ActorRemote {
  /** Delivers the event to the actor's owner; resolves once the owner has committed what it caused; false when no node holds the actor. */
  send(id: string, event: unknown): Promise<boolean>;
}

export interface ActorSystemOptions {
  db: Db;
  log: Logger;
  /** Default time a final actor is kept before it is retired. */
  retentionMs: number;
  /** This node's id: the owner written on every actor it holds. */
  node?: string;
  /**
   * Whether other nodes share the store: streamed kinds' transitions are then logged and announced to them
   * (ActorKind.logged).
   */
  shared?: boolean;
  now?: () => number;
}

// setTimeout's ceiling; a later deadline is re-armed when this one fires.
const maxTimer = 2 ** 31 - 1;
/** More events than this to one actor in one turn is a loop, not a workload (a task's busiest turn sends a handful). */
const sendsPerTurn = 1000;
/** How long a deadline waits after its transition could not be stored before it is tried again. */
const failedRetryMs = 1000;

export class ActorSystem {
  readonly node: string;
  readonly #kinds = new Map<string, ActorKind>();
  readonly #entries = new Map<string, Entry>();
  readonly #db: Db;
  readonly #log: Logger;
  readonly #retentionMs: number;
  readonly #now: () => number;
  #sweeper?: ReturnType<typeof setInterval>;
  /** Entries sent to in this turn; their counts are reset when the turn ends. */
  readonly #sentTo = new Set<Entry>();
  /** Transitions waiting for the next batch. */
  #queue: Write[] = [];
  #flushing?: Promise<void>;
  /** The batch being written. */
  #inFlight: Write[] = [];
  #scheduled = false;
  #stopped = false;
  readonly #shared: boolean;

  constructor({ db, log, retentionMs, node = `node-${crypto.randomUUID().slice(0, 8)}`, shared = false, now = Date.now }: ActorSystemOptions) {
    this.#db = db;
    this.#shared = shared;
    this.#log = log.child({ component: "actors" });
    this.#retentionMs = retentionMs;
    this.#now = now;
    this.node = node;
  }

  register<M extends AnyStateMachine>(kind: ActorKind<M>): void {
    if (this.#kinds.has(kind.kind)) throw new Error(`actor kind ${kind.kind} is registered twice`);
    this.#kinds.set(kind.kind, kind as unknown as ActorKind);
  }

  /**
   * Starts a new actor and resolves with it once its initial snapshot is committed; rejects with ActorExistsError
   * when the id is taken, or ActorPersistError when the store refused it (the actor is then gone). The actor is
   * live (`get`, `tell`) as soon as this is called. `from`, a snapshot of the kind's machine (machine.resolveState),
   * starts it there instead of at the initial state.
   */
  async spawn<M extends AnyStateMachine>(kind: ActorKind<M>, id: string, input: InputFrom<M>, from?: SnapshotFrom<M>): Promise<Actor<M>> {
    if (this.#entries.has(id)) throw new ActorExistsError(id);
    const registered = this.#kindOf(kind.kind);
    const actor = createActor(registered.machine, from ? { id, snapshot: from } : { id, input });
    const entry = this.#track(id, registered, actor, new Date(this.#now()), { fence: 1, revision: 0 });
    await this.#settled(entry, entry.lastWrite);
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
   * Sends an event to a live actor and resolves once the transition it caused (if any) is committed; false when
   * there is no live actor under that id. Rejects with ActorPersistError when the transition could not be stored
   * (the actor then goes back to its last stored snapshot).
   */
  async send<M extends AnyStateMachine>(kind: ActorKind<M>, id: string, event: EventFrom<M>): Promise<boolean> {
    const entry = this.#entries.get(id);
    if (!entry) return this.#remote ? this.#remote.send(id, event) : false;
    if (entry.kind.kind !== kind.kind) return false;
    this.#count(id, entry);
    const before = entry.lastWrite;
    entry.actor.send(event);
    if (entry.lastWrite !== before) await this.#settled(entry, entry.lastWrite);
    return true;
  }

  /**
   * Applies an event that came by mail for an actor held here (see ActorRemote); false when it is not live here.
   * Rejects as `send` does.
   */
  async deliver(id: string, event: { type: string }): Promise<boolean> {
    const entry = this.#entries.get(id);
    return entry ? this.send(entry.kind, id, event as never) : false;
  }

  /**
   * The actor's last stored snapshot, wherever it runs (a node reads one held elsewhere from the store). Undefined
   * when no row has that id (never spawned, or retired).
   */
  async stored<M extends AnyStateMachine>(kind: ActorKind<M>, id: string): Promise<{ snapshot: SnapshotFrom<M>; revision: number; active: boolean } | undefined> {
    const row = await findActor(this.#db, id);
    if (!row || row.kind !== kind.kind) return undefined;
    return { snapshot: row.snapshot as SnapshotFrom<M>, revision: row.revision, active: row.status === "active" };
  }

  /** The logged snapshots of a streamed actor after `revision`, oldest first, whichever node wrote them. */
  async history(id: string, revision: number): Promise<{ revision: number; snapshot: unknown }[]> {
    return (await eventsAfter(this.#db, id, revision)).map(({ revision, snapshot }) => ({ revision, snapshot }));
  }

  /**
   * Calls `listener` with each logged snapshot of a streamed actor after `revision`, in order, whichever node holds
   * it (on a store several nodes share, as they announce their changes). Returns the function that stops it.
   */
  follow(id: string, revision: number, listener: (snapshot: unknown, revision: number) => void): () => void {
    const follower = { listener, revision };
    let set = this.#followers.get(id);
    if (!set) this.#followers.set(id, (set = new Set()));
    set.add(follower);
    this.changed([id]);
    return () => {
      set.delete(follower);
      if (!set.size && this.#followers.get(id) === set) this.#followers.delete(id);
    };
  }
  readonly #followers = new Map<string, Set<{ listener: (snapshot: unknown, revision: number) => void; revision: number }>>();
  /** Per followed actor, the read of its log under way: reads of one actor go in order. */
  readonly #reading = new Map<string, Promise<void>>();

  /**
   * Hears that actors changed (`id:revision` entries, as other nodes announce them; none: every followed actor,
   * after notifications may have been missed) and has their followers read the log.
   */
  changed(entries?: string[]): void {
    const ids = entries ? new Set(entries.map((entry) => entry.slice(0, entry.lastIndexOf(":")))) : this.#followers.keys();
    for (const id of ids) {
      const followers = this.#followers.get(id);
      if (!followers?.size) continue;
      const read = (this.#reading.get(id) ?? Promise.resolve()).then(async () => {
        const from = Math.min(...[...followers].map((f) => f.revision));
        for (const event of await eventsAfter(this.#db, id, from).catch(() => []))
          for (const follower of followers)
            if (event.revision > follower.revision) {
              follower.revision = event.revision;
              try {
                follower.listener(event.snapshot, event.revision);
              } catch (error) {
                this.#log.error("actor follower failed", { actorId: id, error });
              }
            }
      });
      this.#reading.set(id, read);
      void read.finally(() => this.#reading.get(id) === read && this.#reading.delete(id));
    }
  }

  /** Whether other nodes share the store (see ActorSystemOptions.shared). */
  get shared(): boolean {
    return this.#shared;
  }

  /** Ids of the live actors (those this node holds). */
  liveIds(): string[] {
    return [...this.#entries.keys()];
  }

  /**
   * Lets events for actors held by other nodes reach them (see send): set by the cluster on a store several
   * nodes share.
   */
  connect(remote: ActorRemote): void {
    this.#remote = remote;
  }
  #remote?: ActorRemote;

  /**
   * Sends an event without waiting for its commit: the actor moves at once and its write goes with the next batch;
   * a refused write is logged and the actor goes back to its last stored snapshot. For actors whose truth is this
   * process (a browser, a gateway connection), whose callers act on the move at once. False when there is no live
   * actor under that id.
   */
  tell<M extends AnyStateMachine>(kind: ActorKind<M>, id: string, event: EventFrom<M>): boolean {
    const entry = this.#entries.get(id);
    if (!entry || entry.kind.kind !== kind.kind) return false;
    this.#count(id, entry);
    entry.actor.send(event);
    return true;
  }

  /**
   * Calls `listener` with every committed snapshot of the actor from now on. Returns the unsubscribe function,
   * or undefined when no live actor has that id.
   */
  subscribe<M extends AnyStateMachine>(kind: ActorKind<M>, id: string, listener: (snapshot: SnapshotFrom<M>) => void) {
    const entry = this.#entries.get(id);
    if (!entry || entry.kind.kind !== kind.kind) return undefined;
    entry.listeners.add(listener as Listener);
    return () => void entry.listeners.delete(listener as Listener);
  }

  /**
   * Takes over and brings back the active actors this node may run: its own from before a restart, those a guest
   * process spawned, and those of nodes whose lease ran out. Returns how many.
   */
  async restore(): Promise<number> {
    return (await this.#claim({ own: true })).length;
  }

  /**
   * Takes over the active actors of nodes whose lease ran out (and those a guest process left), bringing each back
   * from its snapshot; the actors this node holds already stay as they are. Returns the ids taken over.
   */
  async takeOver(): Promise<string[]> {
    return this.#claim({ own: false });
  }

  /**
   * Lets go of every actor and takes back those still this node's: after its lease ran out (it was cut off from the
   * store), when other nodes may have taken some over and its copies may be behind what is stored.
   */
  async resync(): Promise<number> {
    await this.committed().catch(() => {});
    for (const id of [...this.#entries.keys()]) this.#forget(id);
    return this.restore();
  }

  async #claim({ own }: { own: boolean }): Promise<string[]> {
    const claimed: string[] = [];
    for (const row of await claimActors(this.#db, this.node, { own })) {
      if (this.#entries.has(row.id)) this.#forget(row.id); // held under an older token: the claim supersedes it
      const kind = this.#kinds.get(row.kind);
      if (!kind) {
        this.#log.warn("actor of unknown kind left as it is", { actorId: row.id, kind: row.kind });
        continue;
      }
      this.#revive(row, kind);
      claimed.push(row.id);
    }
    if (claimed.length) this.#log.info(own ? "actors restored" : "actors taken over", { count: claimed.length });
    return claimed;
  }

  /**
   * Brings back one stored, unfinished actor of `kind` that is not live here, as `restore` would: for a process
   * that owns the data dir for a moment (a CLI verb while no server runs) and must change one actor. It takes the
   * actor over (a new fencing token), so a copy elsewhere can no longer write it. True when the actor is live here
   * afterwards.
   */
  async adopt<M extends AnyStateMachine>(kind: ActorKind<M>, id: string): Promise<boolean> {
    if (this.#entries.has(id)) return this.#entries.get(id)!.kind.kind === kind.kind;
    const [row] = await claimActor(this.#db, id, kind.kind, this.node);
    if (!row) return false;
    if (this.#entries.has(id)) this.#forget(id);
    this.#revive(row, this.#kindOf(kind.kind));
    return true;
  }

  /** Starts a stored actor from its snapshot (its deadline armed again) and tells its kind. */
  #revive(row: ActorRow, kind: ActorKind): void {
    const actor = createActor(kind.machine, { id: row.id, snapshot: row.snapshot as never });
    this.#track(row.id, kind, actor, row.createdAt, {
      fence: row.fence,
      revision: row.revision,
      stored: { snapshot: row.snapshot, revision: row.revision, active: true },
    });
    kind.restored?.(actor);
  }

  /** Retires final actors whose retention has passed: stopped, forgotten, their snapshot rows deleted. */
  async sweep(): Promise<number> {
    let retired = 0;
    for (const kind of this.#kinds.values()) {
      const before = new Date(this.#now() - (kind.retentionMs ?? this.#retentionMs));
      for (const id of await deleteFinishedBefore(this.#db, kind.kind, before)) {
        this.#forget(id);
        retired++;
      }
    }
    return retired;
  }

  /** Sweeps every `intervalMs` until stopped; the timer never keeps the process alive. */
  startSweeping(intervalMs: number): void {
    this.#sweeper = setInterval(() => {
      this.sweep().catch((error) => this.#log.warn("retiring finished actors failed; will try again", { error }));
    }, intervalMs);
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

  /**
   * Resolves once every transition made so far is committed; rejects with the first refusal among them (each also
   * reaches its own sender). An answer that acknowledges changes made with `tell` awaits this first.
   */
  async committed(): Promise<void> {
    const writes = [...this.#inFlight, ...this.#queue];
    const outcomes = await Promise.allSettled(writes.map((write) => write.done.promise));
    const refused = outcomes.find((outcome) => outcome.status === "rejected");
    if (refused) throw (refused as PromiseRejectedResult).reason;
  }

  /** True while transitions wait for their commit. */
  get uncommitted(): boolean {
    return this.#queue.length > 0 || this.#flushing !== undefined;
  }

  /** Writes what is queued, then stops every actor without touching what is stored: a restart restores them as they were. */
  async stop(): Promise<void> {
    clearInterval(this.#sweeper);
    while (this.#queue.length || this.#flushing) await (this.#flushing ?? this.#flush());
    this.#stopped = true;
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
    state: Pick<Entry, "fence" | "revision" | "stored" | "retryNotBefore"> & { listeners?: Set<Listener> },
  ): Entry {
    const { listeners = new Set<Listener>(), ...rest } = state;
    const entry: Entry = { id, kind, actor, createdAt, listeners, sentThisTurn: 0, ...rest };
    this.#entries.set(id, entry);
    // A stored actor announces its stored snapshot when it starts: nothing to write or tell, only its deadline to
    // arm. (Writing it again would also turn a store that keeps failing into a loop of reverts.)
    const restored = entry.stored !== undefined;
    if (restored) entry.last = actor.getSnapshot();
    let last: unknown = restored ? actor.getSnapshot() : undefined;
    entry.subscription = actor.subscribe({
      next: (snapshot) => {
        if (snapshot === last) return; // an event that changed nothing
        last = snapshot;
        this.#enqueue(entry, snapshot);
      },
      error: (error) => {
        this.#log.error("actor failed", { actorId: id, kind: kind.kind, error });
        this.#enqueue(entry, actor.getSnapshot());
      },
    });
    actor.start();
    if (restored && actor.getSnapshot().status === "active") this.#arm(entry, deadlineOf(actor.getSnapshot()));
    return entry;
  }

  #enqueue(entry: Entry, snapshot: Snapshot): void {
    if (entry.failed) return; // its later transitions go with the failed one
    const write: Write = {
      entry,
      snapshot,
      previous: entry.last,
      persisted: entry.actor.getPersistedSnapshot(),
      revision: ++entry.revision,
      at: new Date(this.#now()),
      listeners: [...entry.listeners],
      done: Promise.withResolvers<void>(),
    };
    // Whoever awaits it hears of a failure; nobody awaiting is not a crash.
    write.done.promise.catch(() => {});
    entry.last = snapshot;
    entry.lastWrite = write;
    this.#queue.push(write);
    if (!this.#scheduled && !this.#flushing) {
      this.#scheduled = true;
      // At the end of this turn, so the turn's other transitions join the batch.
      setImmediate(() => void this.#flush());
    }
  }

  /** Waits for a write of `entry`; rejects as the entry failed. */
  async #settled(entry: Entry, write: Write | undefined): Promise<void> {
    if (!write) return;
    try {
      await write.done.promise;
    } catch (error) {
      if (error instanceof ActorExistsError || error instanceof ActorFencedError) throw error;
      throw new ActorPersistError(entry.id, error);
    }
  }

  #flush(): Promise<void> {
    this.#scheduled = false;
    if (this.#flushing) return this.#flushing;
    const batch = this.#queue;
    this.#queue = [];
    if (!batch.length) return Promise.resolve();
    this.#inFlight = batch;
    this.#flushing = this.#store(batch).finally(() => {
      this.#flushing = undefined;
      this.#inFlight = [];
      if (this.#queue.length && !this.#stopped) void this.#flush();
    });
    return this.#flushing;
  }

  /** Commits a batch; if that fails, each actor's writes on their own, so only the faulty ones fail. */
  async #store(batch: Write[]): Promise<void> {
    const chains = [...Map.groupBy(batch, (write) => write.entry).values()];
    try {
      await this.#db.transaction((tx) => this.#writeChains(tx, chains));
    } catch (error) {
      for (const chain of chains) {
        try {
          await this.#storeAlone(chain, chains.length === 1 ? error : undefined);
        } catch (error) {
          this.#failed(chain, error);
          continue;
        }
        this.#committed(chain);
      }
      return;
    }
    this.#committed(batch);
  }

  /**
   * One actor's writes in a transaction of their own (unless `refused` already tells why they failed alone). Text
   * PostgreSQL cannot hold is stored with U+FFFD in its place, in memory too (src/db/storable.ts).
   */
  async #storeAlone(chain: Write[], refused?: unknown): Promise<void> {
    try {
      if (refused) throw refused;
      await this.#db.transaction((tx) => this.#writeChains(tx, [chain]));
    } catch (error) {
      if (!refusedText(error)) throw error;
      for (const write of chain) {
        makeStorable(write.persisted);
        makeStorable(write.snapshot.context);
      }
      await this.#db.transaction((tx) => this.#writeChains(tx, [chain]));
    }
  }

  /**
   * Writes the chains of one transaction: each actor's row once, as its last transition left it (a row inserted
   * and changed within one batch is inserted as it ends), the event log entries and the kinds' records of every
   * transition; each table's rows together (one statement each on PostgreSQL). Then announces the logged ones
   * (delivered to other nodes on commit).
   */
  async #writeChains(tx: DbOrTx, chains: Write[][]): Promise<void> {
    const inserted: ActorRow[] = [];
    const updated: ActorRow[] = [];
    const logged: ActorEventRow[] = [];
    for (const chain of chains) {
      const { entry, revision } = chain[0]!;
      (revision === 1 && !entry.stored ? inserted : updated).push(this.#row(chain.at(-1)!));
      if (entry.kind.logged && this.#shared) for (const { revision, persisted, at } of chain) logged.push({ actorId: entry.id, revision, snapshot: persisted, at });
    }
    await settleAll([
      insertActors(tx, inserted).catch((error) => {
        // Several new ids in one statement: which one is taken is found when each chain is retried alone.
        throw isUniqueViolation(error) && inserted.length === 1 ? new ActorExistsError(inserted[0]!.id) : error;
      }),
      updateActors(tx, updated).then((fenced) => {
        if (fenced.length) throw new ActorFencedError(fenced[0]!);
      }),
      logEvents(tx, logged),
      ...this.#records(tx, chains),
    ]);
    if (this.#shared) await notifyEvents(tx, chains.flat().filter((w) => w.entry.kind.logged).map((w) => `${w.entry.id}:${w.revision}`));
  }

  /** The kinds' records of the chains' transitions: each actor's in order, a kind with `records` all at once. */
  #records(tx: DbOrTx, chains: Write[][]): Promise<void>[] {
    const together = new Map<ActorKind, Write[]>();
    const alone: Write[][] = [];
    for (const chain of chains) {
      const { kind } = chain[0]!.entry;
      if (kind.records) together.set(kind, (together.get(kind) ?? []).concat(chain));
      else if (kind.record) alone.push(chain);
    }
    return [
      ...[...together].map(([kind, writes]) => kind.records!(tx, writes.map(({ entry, snapshot, previous }) => ({ id: entry.id, snapshot, previous })))),
      ...alone.map(async (chain) => {
        for (const { entry, snapshot, previous } of chain) await entry.kind.record!(tx, entry.id, snapshot, previous);
      }),
    ];
  }

  /** The snapshot row a transition leaves. */
  #row({ entry, snapshot, persisted, revision, at }: Write): ActorRow {
    const finished = snapshot.status !== "active";
    return {
      id: entry.id,
      kind: entry.kind.kind,
      status: snapshot.status === "active" ? "active" : snapshot.status === "error" ? "error" : "done",
      state: snapshot.value ?? null,
      snapshot: persisted,
      deadline: finished ? null : (deadlineOf(snapshot) ?? null),
      createdAt: entry.createdAt,
      updatedAt: at,
      finishedAt: finished ? at : null,
      owner: this.node,
      fence: entry.fence,
      revision,
    };
  }

  #committed(writes: Write[]): void {
    for (const write of writes) {
      const { entry, snapshot } = write;
      entry.stored = { snapshot: write.persisted, revision: write.revision, active: snapshot.status === "active" };
      entry.retryNotBefore = undefined;
      const current = this.#entries.get(entry.id) === entry;
      if (current && entry.lastWrite === write) this.#arm(entry, snapshot.status === "active" ? deadlineOf(snapshot) : undefined);
      this.#notify(entry, snapshot, write.listeners);
      write.done.resolve();
      if (current && snapshot.status !== "active" && entry.kind.releaseFinal && entry.lastWrite === write) this.#forget(entry.id);
    }
  }

  /** A chain of one actor's writes was refused: they and the actor's later ones fail, and the actor goes back. */
  #failed(chain: Write[], error: unknown): void {
    const entry = chain[0]!.entry;
    if (error instanceof ActorFencedError) this.#log.warn("actor taken over by another node; letting it go", { actorId: entry.id, kind: entry.kind.kind });
    else if (!(error instanceof ActorExistsError)) this.#log.error("actor transition could not be stored; reverting", { actorId: entry.id, kind: entry.kind.kind, error });
    entry.failed = error;
    const later = this.#queue.filter((write) => write.entry === entry);
    this.#queue = this.#queue.filter((write) => write.entry !== entry);
    for (const write of [...chain, ...later]) write.done.reject(error);
    this.#revert(entry, error instanceof ActorFencedError);
  }

  /** Replaces an actor whose transition was not stored with its last stored snapshot; a fenced one is let go. */
  #revert(entry: Entry, fenced: boolean): void {
    if (this.#entries.get(entry.id) !== entry) return;
    // Copied: forgetting the entry clears its set, and its subscribers stay with the restored actor.
    const listeners = new Set(entry.listeners);
    this.#forget(entry.id);
    if (fenced || !entry.stored?.active || this.#stopped) return;
    const actor = createActor(entry.kind.machine, { id: entry.id, snapshot: entry.stored.snapshot as never });
    this.#track(entry.id, entry.kind, actor, entry.createdAt, {
      fence: entry.fence,
      revision: entry.stored.revision,
      stored: entry.stored,
      listeners,
      retryNotBefore: this.#now() + failedRetryMs,
    });
  }

  #notify(entry: Entry, snapshot: Snapshot, listeners: Iterable<Listener>): void {
    for (const listener of listeners) {
      if (!entry.listeners.has(listener)) continue;
      try {
        listener(snapshot);
      } catch (error) {
        this.#log.error("actor subscriber failed", { actorId: entry.id, error });
      }
    }
  }

  #arm(entry: Entry, deadline: number | undefined): void {
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
        this.#arm(entry, deadline);
      } else entry.actor.send({ type: DEADLINE });
    }, Math.min(delay, maxTimer));
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

/** Awaits every write; each is let finish before the first error is thrown, so nothing is still writing when the transaction rolls back. */
async function settleAll(writes: Promise<void>[]): Promise<void> {
  const failure = (await Promise.allSettled(writes)).find((o) => o.status === "rejected");
  if (failure) throw (failure as PromiseRejectedResult).reason;
}

function deadlineOf(snapshot: Snapshot): number | undefined {
  const deadline = (snapshot.context as { deadline?: unknown } | undefined)?.deadline;
  return typeof deadline === "number" && Number.isFinite(deadline) ? deadline : undefined;
}
