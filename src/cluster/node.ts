/**
 * This node among those sharing the store (docs/deploy.md): its lease (a row in cluster_nodes, renewed every third
 * of `cluster.lease_ms`), the takeover of actors whose node's lease ran out, and the mail that carries an event to
 * the node holding its actor. On PostgreSQL nodes hear of mail, answers and logged actor changes through
 * LISTEN/NOTIFY, each notification carrying ids only; on SQLite there is one node, and only its lease is kept.
 */
import type { ActorRemote, ActorSystem } from "../../actors/system.ts";
import { eventsChannel, ownerOf, postMail, releaseNode, renewNode, takeMail, takeMailFor } from "../../actors/repo.ts";
import { ActorPersistError } from "../../actors/system.ts";
import { sql } from "drizzle-orm";
import { execute, type DatabaseHandle } from "../db/client.ts";
import type { ActorMailRow } from "../db/schema.ts";
import type { Logger } from "../log.ts";

const mailChannel = "platform_actor_mail";
const answerChannel = "platform_actor_mail_answers";

export interface ClusterOptions {
  database: DatabaseHandle;
  actors: ActorSystem;
  log: Logger;
  leaseMs: number;
  /** Whether this node takes over the actors of nodes that died (the data dir's owner; not an MCP stdio guest). */
  takesOver: boolean;
}

type Answer = { ok: true; delivered: boolean } | { ok: false; error: string };

export class ClusterNode implements ActorRemote {
  readonly id: string;
  readonly leaseMs: number;
  #renewedAt?: Date;
  /** Where this node answers, once it listens (for people reading `platform cluster status`). */
  #url: string | null = null;
  #renewal = Promise.resolve();
  /** Whether the last renewal reached the store. */
  #leased = false;
  #timers: ReturnType<typeof setInterval>[] = [];
  #unlisten: (() => Promise<void>)[] = [];
  readonly #waiting = new Map<number, (answer: Answer) => void>();
  #stopped = false;
  /** Whether this node has held its lease since it started. */
  #running = false;

  constructor(private readonly options: ClusterOptions) {
    this.id = options.actors.node;
    this.leaseMs = options.leaseMs;
  }

  /** Takes this node's lease, hears its mail (on a shared store), and keeps renewing and taking over until stopped. */
  async start(): Promise<void> {
    const { database, actors, takesOver } = this.options;
    await this.#renew();
    if (database.listen) {
      actors.connect(this);
      this.#unlisten.push(
        await database.listen(mailChannel, (payload) => void this.#mailArrived(payload)),
        await database.listen(answerChannel, (payload) => this.#answered(payload)),
        // Ids and revisions only: followers read the changes from the event log. After a reconnect (notifications
        // sent meanwhile are lost) every follower reads what it missed.
        await database.listen(eventsChannel, (payload) => actors.changed(payload.split("\n")), () => actors.changed()),
      );
    }
    this.#every(this.leaseMs / 3, () => this.#renew());
    if (takesOver && database.shared) this.#every(Math.min(1000, this.leaseMs / 3), () => this.#takeOver());
  }

  /** Answers the mail left for the actors this node holds (after it restored them at start). */
  async collectMail(): Promise<void> {
    if (this.options.database.shared) await this.#deliverAll(await takeMailFor(this.options.database.db, this.options.actors.liveIds()));
  }

  /** Records where this node answers; resolves once written, or once it failed (the next renewal writes it again). */
  async advertise(url: string): Promise<void> {
    this.#url = url;
    await this.#renew().catch(() => {});
  }

  /** What /health says of this node. */
  health() {
    return {
      status: this.#leased ? ("ok" as const) : ("down" as const),
      node: this.id,
      leaseMs: this.leaseMs,
      renewedAt: this.#renewedAt?.toISOString() ?? null,
      owned: this.options.actors.stats().active,
    };
  }

  /** Stops renewing and ends the lease at once, so other nodes take this node's actors without waiting for it to run out. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    for (const unlisten of this.#unlisten) await unlisten().catch(() => {});
    for (const resolve of this.#waiting.values()) resolve({ ok: false, error: "this node is stopping" });
    await releaseNode(this.options.database.db, this.id).catch(() => {});
  }

  /**
   * Carries an event to the node holding the actor and resolves once that node has committed what it caused; false
   * when no node holds it (unknown or finished). If the holder dies meanwhile, the node that takes the actor over
   * finds the letter and answers it.
   */
  async send(id: string, event: unknown): Promise<boolean> {
    const { db } = this.options.database;
    for (let attempt = 0; attempt < 3; attempt++) {
      const owner = await ownerOf(db, id);
      if (!owner) return false;
      if (owner === this.id) {
        if (await this.options.actors.deliver(id, event as { type: string })) return true;
        // Taken over by this node a moment ago and still being brought back: ask again.
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      const mailId = await postMail(db, id, event, this.id);
      const answer = new Promise<Answer>((resolve) => this.#waiting.set(mailId, resolve));
      await execute(db, sql`SELECT pg_notify(${mailChannel}, ${`${owner}:${mailId}`})`);
      // The holder answers within its lease, or dies and the node that takes over answers.
      const timer = setTimeout(() => this.#waiting.get(mailId)?.({ ok: false, error: "timeout" }), this.leaseMs * 2 + 2000);
      const got = await answer.finally(() => (clearTimeout(timer), this.#waiting.delete(mailId)));
      if (got.ok) {
        if (got.delivered) return true;
        continue; // the holder had let it go (taken over elsewhere): route again
      }
      if (got.error !== "timeout") throw new ActorPersistError(id, new Error(got.error));
      // Nobody answered: if the letter is still there, no node took it; take it back and route again.
      if (await takeMail(db, mailId)) continue;
      throw new ActorPersistError(id, new Error(`the node holding actor ${id} did not answer`));
    }
    throw new ActorPersistError(id, new Error(`actor ${id} kept moving between nodes`));
  }

  #every(ms: number, run: () => Promise<unknown>): void {
    let running = false;
    const timer = setInterval(async () => {
      if (running || this.#stopped) return;
      running = true;
      try {
        await run();
      } catch (error) {
        this.options.log.warn("cluster upkeep failed; will try again", { node: this.id, error });
      } finally {
        running = false;
      }
    }, ms);
    timer.unref();
    this.#timers.push(timer);
  }

  /** Renews the lease; one renewal at a time (the timer's and `advertise`'s never overlap). */
  #renew(): Promise<void> {
    const renewal = this.#renewal.then(() => this.#renewOnce());
    this.#renewal = renewal.catch(() => {});
    return renewal;
  }

  async #renewOnce(): Promise<void> {
    try {
      const { lapsed } = await renewNode(this.options.database.db, this.id, this.#url, this.leaseMs);
      this.#renewedAt = new Date();
      const running = this.#running;
      this.#leased = this.#running = true;
      // Cut off from the store for longer than the lease: other nodes may have taken actors over, and this node's
      // copies may be behind what is stored. It starts again from the store. (At start a lapsed lease is only the
      // last run's, whose actors the start restores.)
      if (lapsed && running && this.options.takesOver) {
        this.options.log.warn("this node's lease had run out; taking back what is still its own", { node: this.id });
        await this.options.actors.resync();
      }
    } catch (error) {
      if (this.#leased) this.options.log.error("this node's lease could not be renewed", { node: this.id, error });
      this.#leased = false;
      throw error;
    }
  }

  async #takeOver(): Promise<void> {
    const taken = await this.options.actors.takeOver();
    if (taken.length) await this.#deliverAll(await takeMailFor(this.options.database.db, taken));
  }

  async #mailArrived(payload: string): Promise<void> {
    const [owner, id] = payload.split(":");
    if (owner !== this.id || !id) return;
    const letter = await takeMail(this.options.database.db, Number(id)).catch(() => undefined);
    if (letter) await this.#deliverAll([letter]);
  }

  async #deliverAll(letters: ActorMailRow[]): Promise<void> {
    const { db } = this.options.database;
    for (const letter of letters) {
      let answer: Answer;
      try {
        answer = { ok: true, delivered: await this.options.actors.deliver(letter.actorId, letter.event as { type: string }) };
      } catch (error) {
        answer = { ok: false, error: (error as Error).message };
      }
      const text = answer.ok ? (answer.delivered ? "delivered" : "gone") : `refused:${answer.error}`;
      await execute(db, sql`SELECT pg_notify(${answerChannel}, ${`${letter.sender}:${letter.id}:${text}`.slice(0, 7900)})`).catch((error) =>
        this.options.log.error("actor mail answer not sent", { mailId: letter.id, error }),
      );
    }
  }

  #answered(payload: string): void {
    const [sender, id, ...rest] = payload.split(":");
    if (sender !== this.id) return;
    const text = rest.join(":");
    const answer: Answer = text === "delivered" ? { ok: true, delivered: true } : text === "gone" ? { ok: true, delivered: false } : { ok: false, error: text.replace(/^refused:/, "") };
    this.#waiting.get(Number(id))?.(answer);
  }
}
