import { afterAll, afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { ActorSystem } from "../../actors/system.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { createLogger } from "../../src/log.ts";
import { counterKind } from "../fixtures/counter.machine.ts";
import { groupedKind, refuseCommitsFromThree, refusingKind } from "../fixtures/refused-commit.ts";
import { tempDir } from "../support/temp.ts";
import { failOnStalls } from "../support/loop.ts";

failOnStalls();

const dir = tempDir();
afterAll(() => dir.remove());
const log = createLogger({ level: "error", write: () => {} });

let n = 0;
const opened: { handle: DatabaseHandle; actors: ActorSystem; reader: Database }[] = [];
afterEach(() => {
  for (const { handle, actors, reader } of opened.splice(0)) {
    actors.stop();
    reader.close();
    handle.close();
  }
});

/** An actor system on a fresh file, and a second connection that sees only what is committed. */
function setup(configure?: (handle: DatabaseHandle) => void) {
  const file = join(dir.path, `group-${n++}.db`);
  const handle = openDatabase(file);
  configure?.(handle);
  const actors = new ActorSystem({ db: handle.db, log, retentionMs: 60_000 });
  const reader = new Database(file, { readonly: true });
  opened.push({ handle, actors, reader });
  const committedCount = (id: string) =>
    (reader.query("SELECT json_extract(snapshot, '$.context.count') AS count FROM actors WHERE id = ?").get(id) as { count: number } | null)?.count;
  return { handle, actors, committedCount };
}

test("a grouped kind's transitions of one turn are committed together at its end, and subscribers hear them after", async () => {
  const { handle, actors, committedCount } = setup();
  actors.register(groupedKind);
  actors.spawn(groupedKind, "a", { start: 0 });
  actors.spawn(groupedKind, "b", { start: 10 });
  const heard: number[] = [];
  actors.subscribe(groupedKind, "a", (snapshot) => heard.push(snapshot.context.count));
  actors.send(groupedKind, "a", { type: "INC" });
  actors.send(groupedKind, "a", { type: "INC" });

  // Visible on the writing connection at once, on no other until the commit; nobody has been told yet.
  expect(handle.sqlite.query("SELECT count(*) AS n FROM actors").get()).toEqual({ n: 2 });
  expect(actors.uncommitted).toBe(true);
  expect(committedCount("a")).toBeUndefined();
  expect(heard).toEqual([]);

  await actors.committed();
  expect(actors.uncommitted).toBe(false);
  expect(committedCount("a")).toBe(2);
  expect(committedCount("b")).toBe(10);
  expect(heard).toEqual([1, 2]);
});

test("a subscriber hears only what happened after it subscribed, and nothing once it unsubscribed", async () => {
  const { actors } = setup();
  actors.register(groupedKind);
  actors.spawn(groupedKind, "s", { start: 0 });
  const early: number[] = [];
  const late: number[] = [];
  const stopEarly = actors.subscribe(groupedKind, "s", (snapshot) => early.push(snapshot.context.count))!;
  actors.send(groupedKind, "s", { type: "INC" });
  actors.subscribe(groupedKind, "s", (snapshot) => late.push(snapshot.context.count));
  actors.send(groupedKind, "s", { type: "INC" });
  stopEarly();
  await actors.committed();
  expect(early).toEqual([]);
  expect(late).toEqual([2]);
});

test("an immediate kind commits the open group, then its own transition, before spawn returns", () => {
  const { actors, committedCount } = setup();
  actors.register(groupedKind);
  actors.register(counterKind);
  actors.spawn(groupedKind, "g", { start: 0 });
  actors.spawn(counterKind, "i", { start: 5 });
  expect(actors.uncommitted).toBe(false);
  expect(committedCount("g")).toBe(0);
  expect(committedCount("i")).toBe(5);
});

test("a group that cannot be committed does not take an immediate kind's transition down with it", async () => {
  const { actors, committedCount } = setup(({ sqlite }) => refuseCommitsFromThree(sqlite));
  actors.register(refusingKind);
  actors.register(counterKind);
  actors.spawn(groupedKind, "g", { start: 5 });
  const refused = actors.committed();
  actors.spawn(counterKind, "i", { start: 7 });
  expect(refused).rejects.toThrow(/FOREIGN KEY/);
  await refused.catch(() => {});
  expect(committedCount("g")).toBeUndefined();
  expect(committedCount("i")).toBe(7);
});

test("a group that cannot be committed is rolled back: its actors go back to what is stored and committed() rejects", async () => {
  const { actors, committedCount } = setup(({ sqlite }) => refuseCommitsFromThree(sqlite));
  actors.register(refusingKind);
  actors.spawn(groupedKind, "kept", { start: 1 });
  await actors.committed();

  const heard: number[] = [];
  actors.subscribe(groupedKind, "kept", (snapshot) => heard.push(snapshot.context.count));
  actors.send(groupedKind, "kept", { type: "INC" });
  actors.send(groupedKind, "kept", { type: "INC" });
  actors.spawn(groupedKind, "new", { start: 0 });
  expect(actors.get(groupedKind, "kept")!.getSnapshot().context.count).toBe(3);

  expect(actors.committed()).rejects.toThrow(/FOREIGN KEY/);
  await actors.committed().catch(() => {});
  await Promise.resolve(); // the revert runs in a microtask
  expect(committedCount("kept")).toBe(1);
  expect(actors.get(groupedKind, "kept")!.getSnapshot().context.count).toBe(1);
  expect(actors.get(groupedKind, "new")).toBeUndefined();
  expect(heard).toEqual([]);

  // The system goes on. Subscribers never heard the changes that were rolled back, so the revert tells them
  // nothing; the next turn commits the actor's next change and they hear that.
  actors.send(groupedKind, "kept", { type: "INC" });
  await actors.committed();
  expect(committedCount("kept")).toBe(2);
  expect(heard).toEqual([2]);
});

test("stop commits what the turn still holds", () => {
  const { actors, committedCount } = setup();
  actors.register(groupedKind);
  actors.spawn(groupedKind, "s", { start: 7 });
  actors.stop();
  expect(committedCount("s")).toBe(7);
});
