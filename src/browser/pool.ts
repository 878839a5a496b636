/**
 * The pool of browser sessions. Each session is a `browser-session` actor and, while it lives, a session host
 * (its own Chromium and driver thread). Callers are keyed by owner (an MCP session, a WebSocket client, a shared
 * name); at most `max_sessions` are claimed at once, the least recently used idle one making room when needed;
 * `warm_sessions` launched spares wait for the next caller. A session runs one operation at a time. A browser
 * that dies or stalls is relaunched (a named session with its stored cookies and local storage) up to
 * `max_restarts` times; an idle session closes after its timeout; shutdown closes them all.
 */
import { randomUUID } from "node:crypto";
import type { Actor } from "xstate";
import { browserSessionMachine, type BrowserSessionEvent, type BrowserSessionState } from "../../actors/browser-session.machine.ts";
import type { ActorKind, ActorSystem } from "../../actors/system.ts";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import type { ArgsOf, OperationName, ResultOf } from "./driver/operations.ts";
import type { DriverSettings, StorageState } from "./driver/protocol.ts";
import { BrowserServiceError } from "./errors.ts";
import { SessionHost, type CallOptions } from "./host.ts";
import type { SessionView } from "./model.ts";

/** Where a named session's storage state is kept between its lives (encrypted; see storage.ts). */
export interface StateStore {
  load(name: string): Promise<StorageState | undefined>;
  save(name: string, state: StorageState): Promise<void>;
}

export interface PoolOptions {
  actors: ActorSystem;
  log: Logger;
  config: Config["browser"];
  settings: DriverSettings;
  /** The Chromium to launch; throws the "unavailable" error when there is none. */
  executable(): string;
  states: StateStore;
}

interface Slot {
  id: string;
  owner: string;
  name?: string;
  host?: SessionHost;
  /** Resolves once the session's browser is up (after a launch or a restart). */
  ready: Promise<SessionHost>;
  /** The tail of the session's operations: each waits for the one before. */
  queue: Promise<unknown>;
  pending: number;
  lastUsed: number;
  closing?: Promise<void>;
}

const live: BrowserSessionState[] = ["launching", "ready", "busy", "idle", "crashed"];

export class BrowserPool {
  readonly kind: ActorKind<typeof browserSessionMachine>;
  readonly #claimed = new Map<string, Slot>();
  readonly #opening = new Map<string, Promise<Slot>>();
  readonly #warm = new Set<Slot>();
  readonly #roomWaiters = new Set<() => void>();
  /** Openings that have room reserved but are not claimed yet. */
  #reserved = 0;
  #shuttingDown = false;

  constructor(private readonly options: PoolOptions) {
    this.kind = {
      kind: "browser-session",
      machine: browserSessionMachine,
      // Its browser went with the process that stopped: the session is over. A named session's cookies and
      // local storage are stored apart and come back with its next use.
      restored: (actor) => {
        actor.send({ type: "CLOSE", reason: "the server restarted" });
        actor.send({ type: "CLOSED" });
      },
    };
    options.actors.register(this.kind);
  }

  /** Runs one operation in the session of `owner` (or the shared session `name`), opening it when needed. */
  async run<K extends OperationName>(
    owner: string,
    name: string | undefined,
    operation: K,
    args: ArgsOf<K>,
    call: CallOptions,
  ): Promise<ResultOf<K>> {
    const slot = await this.#slotFor(name ? `name:${name}` : owner, name);
    return this.#enqueue(slot, async (): Promise<ResultOf<K>> => {
      const host = await slot.ready;
      this.#send(slot, { type: "WORK", operation, at: Date.now() });
      try {
        return await host.call(operation, args, call);
      } finally {
        if (this.#state(slot) === "busy") this.#send(slot, { type: "DONE", at: Date.now() });
        if (slot.name && host.alive) await this.#persist(slot, host);
      }
    });
  }

  /** The session id serving `owner` (or the name), if one is open. */
  sessionOf(owner: string, name?: string): SessionView | undefined {
    const slot = this.#claimed.get(name ? `name:${name}` : owner);
    return slot && this.#view(slot);
  }

  /** Closes the session of `owner` (or the shared name); false when none was open. */
  async close(owner: string, name?: string, reason = "closed by its owner"): Promise<boolean> {
    const slot = this.#claimed.get(name ? `name:${name}` : owner);
    if (!slot) return false;
    await this.#close(slot, reason);
    return true;
  }

  /** The Chromium version a session runs, once launched. */
  browserVersion(sessionId: string): string | undefined {
    return [...this.#claimed.values(), ...this.#warm].find((slot) => slot.id === sessionId)?.host?.browserVersion;
  }

  views(): SessionView[] {
    return [...this.#claimed.values(), ...this.#warm].map((slot) => this.#view(slot)).filter((view): view is SessionView => view !== undefined);
  }

  counts(): Record<string, number> {
    const counts: Record<string, number> = { claimed: this.#claimed.size, warm: this.#warm.size };
    for (const view of this.views()) counts[view.state] = (counts[view.state] ?? 0) + 1;
    return counts;
  }

  /** Ensures `warm_sessions` spares are launched or launching. */
  warmUp(): void {
    if (this.#shuttingDown) return;
    while (this.#warm.size < this.options.config.warm_sessions) {
      const slot = this.#spawn("warm");
      this.#warm.add(slot);
      // A spare that cannot start is dropped; the next caller then sees the reason for itself.
      slot.ready.catch(() => this.#warm.delete(slot));
    }
  }

  async shutdown(): Promise<void> {
    this.#shuttingDown = true;
    await Promise.all([...this.#claimed.values(), ...this.#warm].map((slot) => this.#close(slot, "the server is shutting down")));
  }

  // --- sessions ---

  async #slotFor(key: string, name: string | undefined): Promise<Slot> {
    const found = this.#claimed.get(key);
    if (found) return found;
    let opening = this.#opening.get(key);
    if (!opening) {
      opening = this.#open(key, name).finally(() => this.#opening.delete(key));
      this.#opening.set(key, opening);
    }
    return opening;
  }

  async #open(key: string, name: string | undefined): Promise<Slot> {
    if (this.#shuttingDown) throw BrowserServiceError.browser("The server is shutting down");
    this.options.executable();
    await this.#room();
    try {
      return await this.#claim(key, name);
    } finally {
      this.#reserved--;
    }
  }

  async #claim(key: string, name: string | undefined): Promise<Slot> {
    const stored = name ? await this.options.states.load(name) : undefined;
    const spare = [...this.#warm].find((slot) => this.#state(slot) === "ready" || this.#state(slot) === "launching");
    let slot: Slot;
    if (spare) {
      this.#warm.delete(spare);
      slot = spare;
      slot.owner = key;
      slot.name = name;
      this.#send(slot, { type: "CLAIM", owner: key, name, at: Date.now() });
      if (stored) void this.#enqueue(slot, async () => (await slot.ready).call("open_context", { storageState: stored }, { timeoutMs: this.#launchTimeout }));
    } else {
      slot = this.#spawn(key, name, stored);
    }
    this.#claimed.set(key, slot);
    this.warmUp();
    await slot.ready.catch((error) => {
      this.#claimed.delete(key);
      throw error;
    });
    return slot;
  }

  /** Waits until fewer than max_sessions are claimed, closing the least recently used idle one if that helps. */
  async #room(): Promise<void> {
    const deadline = Date.now() + this.options.config.queue_timeout_ms;
    while (this.#claimed.size + this.#reserved >= this.options.config.max_sessions) {
      const idle = [...this.#claimed.values()]
        .filter((slot) => slot.pending === 0 && (this.#state(slot) === "idle" || this.#state(slot) === "ready"))
        .sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (idle) {
        await this.#close(idle, "closed to make room for another session");
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0)
        throw BrowserServiceError.timeout(`All ${this.options.config.max_sessions} browser sessions are busy; try again shortly`, {
          max_sessions: this.options.config.max_sessions,
        });
      const freed = Promise.withResolvers<void>();
      this.#roomWaiters.add(freed.resolve);
      const timer = setTimeout(freed.resolve, left);
      await freed.promise;
      clearTimeout(timer);
      this.#roomWaiters.delete(freed.resolve);
    }
    this.#reserved++;
  }

  #spawn(owner: string, name?: string, stored?: StorageState): Slot {
    const { config, actors } = this.options;
    const id = `browser-session:${randomUUID()}`;
    // Live at once; its first snapshot is stored as the session launches (a refusal is logged, the session goes on).
    actors.spawn(this.kind, id, { owner, name, idleTimeoutMs: config.idle_timeout_seconds * 1000, maxRestarts: config.max_restarts, at: Date.now() }).catch((error) =>
      this.options.log.error("browser session could not be stored", { sessionId: id, error }),
    );
    const slot = { id, owner, name, queue: Promise.resolve(), pending: 0, lastUsed: Date.now() } as Slot;
    actors.subscribe(this.kind, id, (snapshot) => {
      // An idle timeout moves the machine to closing by itself; the browser is ended here.
      if (snapshot.value === "closing" && !slot.closing) queueMicrotask(() => void this.#close(slot, snapshot.context.reason ?? "closed"));
    });
    slot.ready = this.#launch(slot, stored);
    return slot;
  }

  async #launch(slot: Slot, stored?: StorageState | Promise<StorageState | undefined>): Promise<SessionHost> {
    const { config, settings, log } = this.options;
    let host: SessionHost;
    try {
      host = await SessionHost.launch({
        executable: this.options.executable(),
        launchTimeoutMs: config.launch_timeout_ms,
        settings,
        storageState: await stored,
        log,
      });
    } catch (error) {
      this.#send(slot, { type: "CRASHED", reason: (error as Error).message });
      void this.#close(slot, "its browser could not be started");
      throw error;
    }
    if (slot.closing) {
      await host.kill();
      throw BrowserServiceError.browser("The session was closed while its browser started");
    }
    slot.host = host;
    this.#send(slot, { type: "LAUNCHED", at: Date.now(), pid: host.pid, browserVersion: host.browserVersion });
    void host.ended.then((reason) => this.#ended(slot, host, reason));
    return host;
  }

  /** The browser or driver of a session went away: relaunch it while restarts are left, else close it. */
  #ended(slot: Slot, host: SessionHost, reason: string): void {
    if (slot.host !== host || slot.closing) return;
    slot.host = undefined;
    this.options.log.warn("browser session crashed", { sessionId: slot.id, reason });
    this.#send(slot, { type: "CRASHED", reason });
    if (this.#warm.has(slot) || !this.#send(slot, { type: "RESTART" }) || this.#state(slot) !== "launching") {
      void this.#close(slot, `its browser stopped: ${reason}`);
      return;
    }
    slot.ready = this.#launch(slot, slot.name ? this.options.states.load(slot.name) : undefined);
    slot.ready.catch(() => {});
  }

  #close(slot: Slot, reason: string): Promise<void> {
    slot.closing ??= (async () => {
      if (this.#claimed.get(slot.owner) === slot) this.#claimed.delete(slot.owner);
      this.#warm.delete(slot);
      if (this.#state(slot) !== "closing") this.#send(slot, { type: "CLOSE", reason });
      const host = slot.host;
      if (host?.alive) {
        if (slot.name && slot.pending === 0) await this.#persist(slot, host);
        await host.close();
      }
      this.#send(slot, { type: "CLOSED" });
      for (const wake of this.#roomWaiters) wake();
    })();
    return slot.closing;
  }

  async #persist(slot: Slot, host: SessionHost): Promise<void> {
    try {
      const state = await host.call("storage_state", undefined as never, { timeoutMs: this.options.config.action_timeout_ms });
      await this.options.states.save(slot.name!, state as StorageState);
    } catch (error) {
      this.options.log.warn("named session state not saved", { session: slot.name, error });
    }
  }

  #enqueue<T>(slot: Slot, work: () => Promise<T>): Promise<T> {
    slot.pending++;
    const run = slot.queue.then(work, work);
    slot.queue = run.then(
      () => {},
      () => {},
    );
    return run.finally(() => {
      slot.pending--;
      slot.lastUsed = Date.now();
    });
  }

  get #launchTimeout() {
    return this.options.config.launch_timeout_ms;
  }

  #actor(slot: Slot): Actor<typeof browserSessionMachine> | undefined {
    return this.options.actors.get(this.kind, slot.id);
  }

  #state(slot: Slot): BrowserSessionState | undefined {
    return this.#actor(slot)?.getSnapshot().value as BrowserSessionState | undefined;
  }

  #send(slot: Slot, event: BrowserSessionEvent): boolean {
    const state = this.#state(slot);
    if (!state || (!live.includes(state) && state !== "closing")) return false;
    return this.options.actors.tell(this.kind, slot.id, event);
  }

  #view(slot: Slot): SessionView | undefined {
    const snapshot = this.#actor(slot)?.getSnapshot();
    if (!snapshot) return undefined;
    const { owner, name, restarts, createdAt, lastUsedAt, operation } = snapshot.context;
    return {
      id: slot.id,
      owner,
      name,
      state: snapshot.value as string,
      restarts,
      created_at: new Date(createdAt).toISOString(),
      last_used_at: new Date(lastUsedAt).toISOString(),
      operation,
    };
  }
}
