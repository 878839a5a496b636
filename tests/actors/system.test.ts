/** The actor system on both stores: committed transitions, refusals, restarts, deadlines, retirement. */
import { describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { ActorExistsError, ActorLoopError, ActorPersistError, ActorSystem, type ActorKind } from "../../actors/system.ts";
import { findActor } from "../../actors/repo.ts";
import { execute, type DatabaseHandle } from "../../src/db/client.ts";
import { createLogger } from "../../src/log.ts";
import { counterKind, counterMachine } from "../fixtures/counter.machine.ts";
import { stores, storesForFile } from "../support/stores.ts";

const fixture = storesForFile();
const log = createLogger({ level: "error", write: () => {} });

function system(handle: DatabaseHandle, { now, node, lines }: { now?: () => number; node?: string; lines?: string[] } = {}) {
  const actors = new ActorSystem({ db: handle.db, log: lines ? createLogger({ level: "warn", write: (line) => void lines.push(line) }) : log, retentionMs: 60_000, now, node });
  actors.register(counterKind);
  return actors;
}

const count = (snapshot: unknown) => (snapshot as { context: { count: number } }).context.count;

describe.each(stores)("on %s", (kind) => {
  test("spawn and send resolve once the transition is committed, and subscribers hear of it only then", async () => {
    const handle = await (await fixture.fresh(kind)).open();
    const actors = system(handle);
    await actors.spawn(counterKind, "c1", { start: 5 });
    expect(await findActor(handle.db, "c1")).toMatchObject({ kind: "counter", status: "active", state: "counting", owner: actors.node, fence: 1, revision: 1 });
    const heard: number[] = [];
    actors.subscribe(counterKind, "c1", (s) => void heard.push(s.context.count));
    const sent = actors.send(counterKind, "c1", { type: "INC" });
    // The actor moved at once; nobody has heard of it before its commit.
    expect(actors.get(counterKind, "c1")!.getSnapshot().context.count).toBe(6);
    expect(heard).toEqual([]);
    expect(await sent).toBe(true);
    expect(heard).toEqual([6]);
    await actors.send(counterKind, "c1", { type: "FINISH" });
    const row = (await findActor(handle.db, "c1"))!;
    expect(row).toMatchObject({ status: "done", state: "finished", revision: 3 });
    expect(count(row.snapshot)).toBe(6);
    expect(row.finishedAt).toBeInstanceOf(Date);
    expect(await actors.send(counterKind, "nobody", { type: "INC" })).toBe(false);
    await actors.stop();
    await handle.close();
  });

  test("transitions of one turn are committed together, each actor's in order", async () => {
    const handle = await (await fixture.fresh(kind)).open();
    const actors = system(handle);
    await Promise.all([actors.spawn(counterKind, "a", { start: 0 }), actors.spawn(counterKind, "b", { start: 10 })]);
    const heard: string[] = [];
    for (const id of ["a", "b"]) actors.subscribe(counterKind, id, (s) => void heard.push(`${id}${s.context.count}`));
    await Promise.all([
      actors.send(counterKind, "a", { type: "INC" }),
      actors.send(counterKind, "b", { type: "INC" }),
      actors.send(counterKind, "a", { type: "INC" }),
    ]);
    expect(heard).toEqual(["a1", "b11", "a2"]);
    expect(count((await findActor(handle.db, "a"))!.snapshot)).toBe(2);
    await actors.stop();
    await handle.close();
  });

  test("a second actor under a taken id is refused, live or only stored", async () => {
    const handle = await (await fixture.fresh(kind)).open();
    const actors = system(handle);
    await actors.spawn(counterKind, "dup", { start: 0 });
    expect(actors.spawn(counterKind, "dup", { start: 1 })).rejects.toThrow(ActorExistsError);
    await actors.send(counterKind, "dup", { type: "FINISH" });
    await actors.stop();

    // Finished, so not restored: only its row holds the id now.
    const later = system(handle);
    expect(await later.restore()).toBe(0);
    expect(later.spawn(counterKind, "dup", { start: 5 })).rejects.toThrow(ActorExistsError);
    expect(later.get(counterKind, "dup")).toBeUndefined();
    expect(await findActor(handle.db, "dup")).toMatchObject({ status: "done", snapshot: { context: { count: 0 } } });
    await later.spawn(counterKind, "fresh", { start: 5 });
    expect(await findActor(handle.db, "fresh")).toMatchObject({ status: "active", snapshot: { context: { count: 5 } } });
    await later.stop();
    await handle.close();
  });

  test("the capability's record is written in the snapshot's transaction, or neither is, and other actors' writes stand", async () => {
    const handle = await (await fixture.fresh(kind)).open();
    await handle.rows(sql`CREATE TABLE counter_records (id TEXT PRIMARY KEY, count INTEGER NOT NULL)`);
    const actors = new ActorSystem({ db: handle.db, log, retentionMs: 60_000 });
    const recorded: ActorKind<typeof counterMachine> = {
      ...counterKind,
      async record(tx, id, snapshot) {
        if (snapshot.context.count > 1) throw new Error("record rejected");
        await execute(tx, sql`INSERT INTO counter_records (id, count) VALUES (${id}, ${snapshot.context.count})
                   ON CONFLICT (id) DO UPDATE SET count = excluded.count`);
      },
    };
    actors.register(recorded);
    await actors.spawn(recorded, "r1", { start: 0 });
    await actors.spawn(recorded, "r2", { start: 0 });
    await actors.send(recorded, "r1", { type: "INC" });
    // The record refuses count 2 for r1 while r2 moves in the same batch: r1 goes back to count 1, r2 is stored.
    const [refused, other] = await Promise.allSettled([actors.send(recorded, "r1", { type: "INC" }), actors.send(recorded, "r2", { type: "INC" })]);
    expect((refused as PromiseRejectedResult).reason).toBeInstanceOf(ActorPersistError);
    expect(other.status).toBe("fulfilled");
    expect(await handle.rows(sql`SELECT id, count FROM counter_records ORDER BY id`)).toEqual([
      { id: "r1", count: 1 },
      { id: "r2", count: 1 },
    ]);
    expect(count((await findActor(handle.db, "r1"))!.snapshot)).toBe(1);
    expect(actors.get(recorded, "r1")!.getSnapshot().context.count).toBe(1);
    await actors.stop();
    await handle.close();
  });

  test("stop leaves actors as they were; restore brings them back and subscribers see new snapshots", async () => {
    const store = await fixture.fresh(kind);
    const first = await store.open();
    const before = system(first);
    await before.spawn(counterKind, "a", { start: 1 });
    await before.spawn(counterKind, "b", { start: 10 });
    before.tell(counterKind, "b", { type: "INC" });
    await before.spawn(counterKind, "done", { start: 0 });
    await before.send(counterKind, "done", { type: "FINISH" });
    await before.stop(); // writes what is queued first
    expect((await findActor(first.db, "a"))!.status).toBe("active");
    await first.close();

    const second = await store.open();
    const after = system(second);
    expect(await after.restore()).toBe(2);
    expect(after.get(counterKind, "b")!.getSnapshot().context.count).toBe(11);
    expect(after.get(counterKind, "done")).toBeUndefined();
    const seen = Promise.withResolvers<number>();
    after.subscribe(counterKind, "a", (s) => seen.resolve(s.context.count));
    await after.send(counterKind, "a", { type: "INC" });
    expect(await seen.promise).toBe(2);
    expect(await findActor(second.db, "a")).toMatchObject({ owner: after.node, fence: 2 });
    await after.stop();
    await second.close();
  });

  test("adopt takes over one stored, unfinished actor and no other; a finished one or another kind's is refused", async () => {
    const handle = await (await fixture.fresh(kind)).open();
    const before = system(handle);
    await before.spawn(counterKind, "wanted", { start: 3 });
    await before.spawn(counterKind, "other", { start: 0 });
    await before.spawn(counterKind, "over", { start: 0 });
    await before.send(counterKind, "over", { type: "FINISH" });
    await before.stop();

    const later = system(handle);
    expect(await later.adopt(counterKind, "wanted")).toBe(true);
    expect(later.get(counterKind, "other")).toBeUndefined();
    expect(await later.adopt(counterKind, "over")).toBe(false);
    expect(await later.adopt({ ...counterKind, kind: "elsewhere" }, "other")).toBe(false);
    expect(await later.adopt(counterKind, "missing")).toBe(false);
    // Live and stored as any other, under a new token: its next transition is written.
    await later.send(counterKind, "wanted", { type: "INC" });
    expect(await findActor(handle.db, "wanted")).toMatchObject({ owner: later.node, fence: 2, snapshot: { context: { count: 4 } } });
    expect(await later.adopt(counterKind, "wanted")).toBe(true);
    await later.stop();
    await handle.close();
  });

  test("a deadline kept in context fires after a restart, even if it passed while the process was down", async () => {
    const store = await fixture.fresh(kind);
    const first = await store.open();
    const before = system(first);
    await before.spawn(counterKind, "t", { start: 0 });
    await before.send(counterKind, "t", { type: "ARM", at: Date.now() + 60 });
    expect((await findActor(first.db, "t"))!.deadline).toBeGreaterThan(0);
    await before.stop();
    await first.close();

    const second = await store.open();
    const after = system(second);
    const expired = Promise.withResolvers<string>();
    await after.restore();
    after.subscribe(counterKind, "t", (s) => expired.resolve(String(s.value)));
    expect(await expired.promise).toBe("expired");
    expect(await findActor(second.db, "t")).toMatchObject({ status: "done", deadline: null });
    await after.stop();
    await second.close();
  });

  test("a node that lost an actor to another can no longer write it: its transition is refused and its copy let go", async () => {
    const store = await fixture.fresh(kind);
    const handle = await store.open();
    const lines: string[] = [];
    const old = system(handle, { node: "old", lines });
    await old.spawn(counterKind, "f", { start: 0 });
    // Another node claims it (as it would once old's lease ran out): the token moves on.
    const other = system(await store.open(), { node: "new" });
    expect(await other.restore()).toBe(1);
    expect(old.send(counterKind, "f", { type: "INC" })).rejects.toThrow("is held by another node");
    await old.committed();
    expect(old.get(counterKind, "f")).toBeUndefined();
    expect(await findActor(handle.db, "f")).toMatchObject({ owner: "new", fence: 2, snapshot: { context: { count: 0 } } });
    await other.send(counterKind, "f", { type: "INC" });
    expect(count((await findActor(handle.db, "f"))!.snapshot)).toBe(1);
    expect(lines.some((line) => line.includes("taken over by another node"))).toBe(true);
    await old.stop();
    await other.stop();
    await handle.close();
  });

  test("a batch writes many actors at once: each row as its last transition left it, each transition logged; a refused actor fails alone", async () => {
    const store = await fixture.fresh(kind);
    const handle = await store.open();
    const streamed = { ...counterKind, logged: true };
    const shared = (db: DatabaseHandle, node: string) => {
      const actors = new ActorSystem({ db: db.db, log, retentionMs: 60_000, node, shared: true });
      actors.register(streamed);
      return actors;
    };
    const old = shared(handle, "old");
    await Promise.all([old.spawn(streamed, "taken", { start: 0 }), old.spawn(streamed, "kept", { start: 0 })]);
    // Another node takes one of them over, and holds an id the old node does not know.
    const other = shared(await store.open(), "new");
    expect(await other.adopt(streamed, "taken")).toBe(true);
    await other.spawn(streamed, "elsewhere", { start: 0 });

    // One turn, so one batch: two updates, an update fenced out, a new actor moved at once, a taken id.
    const outcomes = Promise.allSettled([
      old.send(streamed, "taken", { type: "INC" }),
      old.send(streamed, "kept", { type: "INC" }),
      old.send(streamed, "kept", { type: "INC" }),
      old.spawn(streamed, "fresh", { start: 5 }),
      old.spawn(streamed, "elsewhere", { start: 7 }),
    ]);
    old.tell(streamed, "fresh", { type: "INC" });
    const [taken, ...rest] = await outcomes;
    expect(String((taken as PromiseRejectedResult).reason)).toContain("is held by another node");
    expect(rest.map((outcome) => outcome.status)).toEqual(["fulfilled", "fulfilled", "fulfilled", "rejected"]);
    expect((rest[3] as PromiseRejectedResult).reason).toBeInstanceOf(ActorExistsError);

    expect(await findActor(handle.db, "kept")).toMatchObject({ owner: "old", revision: 3, snapshot: { context: { count: 2 } } });
    expect(await findActor(handle.db, "fresh")).toMatchObject({ owner: "old", fence: 1, revision: 2, snapshot: { context: { count: 6 } } });
    expect(await findActor(handle.db, "taken")).toMatchObject({ owner: "new", fence: 2, revision: 1, snapshot: { context: { count: 0 } } });
    expect(await findActor(handle.db, "elsewhere")).toMatchObject({ owner: "new", snapshot: { context: { count: 0 } } });
    const logged = async (id: string) => (await old.history(id, 0)).map(({ revision, snapshot }) => [revision, count(snapshot)]);
    expect(await logged("kept")).toEqual([[1, 0], [2, 1], [3, 2]]);
    expect(await logged("fresh")).toEqual([[1, 5], [2, 6]]);
    expect(await logged("taken")).toEqual([[1, 0]]);
    expect(old.get(streamed, "taken")).toBeUndefined();
    expect(old.get(streamed, "fresh")!.getSnapshot().context.count).toBe(6);
    await old.stop();
    await other.stop();
    await handle.close();
  });

  test("a transition whose store keeps failing is retried no sooner than a second later, not in a loop", async () => {
    const handle = await (await fixture.fresh(kind)).open();
    // When each refusal was logged; the test goes on once the second has come.
    const refusals: number[] = [];
    const second = Promise.withResolvers<void>();
    const write = (line: string) => {
      if (line.includes("could not be stored") && refusals.push(performance.now()) === 2) second.resolve();
    };
    const actors = new ActorSystem({ db: handle.db, log: createLogger({ level: "error", write }), retentionMs: 60_000 });
    let refuse = false;
    const failing: ActorKind<typeof counterMachine> = {
      ...counterKind,
      async record() {
        if (refuse) throw new Error("disk full");
      },
    };
    actors.register(failing);
    await actors.spawn(failing, "d", { start: 0 });
    await actors.send(failing, "d", { type: "ARM", at: Date.now() });
    refuse = true;
    // The deadline fires at once and its transition cannot be stored: the actor goes back to its stored snapshot,
    // whose deadline has passed. It is tried again, but not before a second has gone by (a loop would retry at once).
    await second.promise;
    expect(refusals[1]! - refusals[0]!).toBeGreaterThanOrEqual(950);
    expect(actors.get(failing, "d")!.getSnapshot().value).toBe("counting");
    refuse = false;
    await actors.stop();
    await handle.close();
  });

  test("final actors are retired once their retention has passed, live ones never", async () => {
    let clock = 1_000_000;
    const handle = await (await fixture.fresh(kind)).open();
    const actors = system(handle, { now: () => clock });
    await actors.spawn(counterKind, "old", { start: 0 });
    await actors.send(counterKind, "old", { type: "FINISH" });
    await actors.spawn(counterKind, "live", { start: 0 });
    clock += 30_000;
    expect(await actors.sweep()).toBe(0);
    clock += 31_000;
    expect(await actors.sweep()).toBe(1);
    expect(actors.get(counterKind, "old")).toBeUndefined();
    expect(await findActor(handle.db, "old")).toBeUndefined();
    expect(actors.get(counterKind, "live")).toBeDefined();
    await actors.stop();
    await handle.close();
  });

  test("a releaseFinal kind lets go of an actor once its final snapshot is stored and told; its row stays", async () => {
    const handle = await (await fixture.fresh(kind)).open();
    const actors = new ActorSystem({ db: handle.db, log, retentionMs: 60_000 });
    const released = { ...counterKind, kind: "released-counter", releaseFinal: true };
    actors.register(released);
    await actors.spawn(released, "r1", { start: 1 });
    const heard: string[] = [];
    actors.subscribe(released, "r1", (s) => void heard.push(String(s.value)));
    const finishing = actors.send(released, "r1", { type: "FINISH" });
    expect(actors.get(released, "r1")).toBeDefined(); // until its commit
    await finishing;
    expect(heard).toEqual(["finished"]);
    expect(actors.get(released, "r1")).toBeUndefined();
    expect(await findActor(handle.db, "r1")).toMatchObject({ status: "done", state: "finished" });
    expect(actors.stats().live).toBe(0);
    await actors.stop();
    await handle.close();
  });
});

test("more sends to one actor in one turn than any workload makes are refused until the next turn", async () => {
  const handle = await (await fixture.fresh("sqlite")).open();
  const lines: string[] = [];
  const actors = system(handle, { lines });
  await actors.spawn(counterKind, "echo", { start: 0 });
  let refused: unknown;
  try {
    for (let i = 0; i < 2000; i++) actors.tell(counterKind, "echo", { type: "INC" });
  } catch (error) {
    refused = error;
  }
  expect(refused).toBeInstanceOf(ActorLoopError);
  expect(actors.get(counterKind, "echo")!.getSnapshot().context.count).toBe(1000);
  expect(lines.filter((line) => line.includes("actor send loop stopped"))).toHaveLength(1);
  // A new turn lets the actor be sent to again.
  await new Promise((resolve) => setImmediate(resolve));
  expect(await actors.send(counterKind, "echo", { type: "FINISH" })).toBe(true);
  expect(count((await findActor(handle.db, "echo"))!.snapshot)).toBe(1000);
  await actors.stop();
  await handle.close();
});
