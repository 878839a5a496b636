/** Group commit on both stores: a turn's transitions go to the store in one batch; a refused batch fails only its faulty actors. */
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { ActorPersistError, ActorSystem } from "../../actors/system.ts";
import { tablesOf, type DatabaseHandle } from "../../src/db/client.ts";
import { createLogger } from "../../src/log.ts";
import { counterKind } from "../fixtures/counter.machine.ts";
import { refuseCommitsFromThree, refusingKind } from "../fixtures/refused-commit.ts";
import { stores, storesForFile } from "../support/stores.ts";
import { failOnStalls } from "../support/loop.ts";

failOnStalls();

const fixture = storesForFile();
const log = createLogger({ level: "error", write: () => {} });
const opened: { handle: DatabaseHandle; reader: DatabaseHandle; actors: ActorSystem }[] = [];
afterEach(async () => {
  for (const { handle, reader, actors } of opened.splice(0)) {
    await actors.stop();
    await reader.close();
    await handle.close();
  }
});

describe.each(stores)("on %s", (kind) => {
  /** An actor system on a fresh store, and a second connection that sees only what is committed. */
  async function setup(prepare?: (handle: DatabaseHandle) => Promise<void>) {
    const store = await fixture.fresh(kind);
    const handle = await store.open();
    await prepare?.(handle);
    const reader = await store.open();
    const actors = new ActorSystem({ db: handle.db, log, retentionMs: 60_000 });
    opened.push({ handle, reader, actors });
    const committedCount = async (id: string) => {
      const { actors: table } = tablesOf(reader.db);
      const [row] = await reader.db.select({ snapshot: table.snapshot }).from(table).where(eq(table.id, id));
      return (row?.snapshot as { context: { count: number } } | undefined)?.context.count;
    };
    return { actors, committedCount };
  }

  test("a turn's transitions are committed together, and subscribers hear them after", async () => {
    const { actors, committedCount } = await setup();
    actors.register(counterKind);
    await Promise.all([actors.spawn(counterKind, "a", { start: 0 }), actors.spawn(counterKind, "b", { start: 10 })]);
    const heard: number[] = [];
    actors.subscribe(counterKind, "a", (snapshot) => void heard.push(snapshot.context.count));
    actors.tell(counterKind, "a", { type: "INC" });
    actors.tell(counterKind, "a", { type: "INC" });
    actors.tell(counterKind, "b", { type: "INC" });

    // Moved in memory at once; nobody is told until the batch commits.
    expect(actors.get(counterKind, "a")!.getSnapshot().context.count).toBe(2);
    expect(actors.uncommitted).toBe(true);
    expect(heard).toEqual([]);

    await actors.committed();
    expect(actors.uncommitted).toBe(false);
    expect(await committedCount("a")).toBe(2);
    expect(await committedCount("b")).toBe(11);
    expect(heard).toEqual([1, 2]);
  });

  test("a subscriber hears only what happened after it subscribed, and nothing once it unsubscribed", async () => {
    const { actors } = await setup();
    actors.register(counterKind);
    await actors.spawn(counterKind, "s", { start: 0 });
    const early: number[] = [];
    const late: number[] = [];
    const stopEarly = actors.subscribe(counterKind, "s", (snapshot) => void early.push(snapshot.context.count))!;
    actors.tell(counterKind, "s", { type: "INC" });
    actors.subscribe(counterKind, "s", (snapshot) => void late.push(snapshot.context.count));
    actors.tell(counterKind, "s", { type: "INC" });
    stopEarly();
    await actors.committed();
    expect(early).toEqual([]);
    expect(late).toEqual([2]);
  });

  test("a batch the store refuses at commit fails only the actors whose writes it refused; they go back to what is stored", async () => {
    const { actors, committedCount } = await setup(refuseCommitsFromThree);
    actors.register(refusingKind);
    await actors.spawn(refusingKind, "kept", { start: 1 });
    await actors.spawn(refusingKind, "other", { start: 0 });

    const heard: number[] = [];
    actors.subscribe(refusingKind, "kept", (snapshot) => void heard.push(snapshot.context.count));
    const kept = [actors.send(refusingKind, "kept", { type: "INC" }), actors.send(refusingKind, "kept", { type: "INC" })];
    const other = actors.send(refusingKind, "other", { type: "INC" });
    const born = actors.spawn(refusingKind, "new", { start: 5 });
    const refused = Promise.allSettled([...kept, born]);
    expect(actors.get(refusingKind, "kept")!.getSnapshot().context.count).toBe(3);

    await expect(actors.committed()).rejects.toThrow();
    for (const outcome of await refused) expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(ActorPersistError);
    expect(await other).toBe(true);
    await actors.committed().catch(() => {});
    expect(await committedCount("kept")).toBe(1);
    expect(actors.get(refusingKind, "kept")!.getSnapshot().context.count).toBe(1);
    expect(actors.get(refusingKind, "new")).toBeUndefined();
    expect(await committedCount("new")).toBeUndefined();
    expect(await committedCount("other")).toBe(1);
    expect(heard).toEqual([]);

    // The system goes on: the actor's next change is committed and heard.
    await actors.send(refusingKind, "kept", { type: "INC" });
    expect(await committedCount("kept")).toBe(2);
    expect(heard).toEqual([2]);
  });

  test("stop commits what is still queued", async () => {
    const { actors, committedCount } = await setup();
    actors.register(counterKind);
    await actors.spawn(counterKind, "s", { start: 7 });
    actors.tell(counterKind, "s", { type: "INC" });
    await actors.stop();
    expect(await committedCount("s")).toBe(8);
  });
});
