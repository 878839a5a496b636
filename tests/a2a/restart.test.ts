/** A real SIGKILL mid-task, then a restart on the same data: nothing stored is lost, interrupted work is settled. */
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { A2AClient } from "../../src/a2a/index.ts";
import { serve } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { call, openAuthorization, rpc } from "./support.ts";

const dir = tempDir();
const client = new A2AClient({ maxRetries: 0 });
afterAll(async () => {
  await client.close();
  dir.remove();
});
const withHold = ["bun", join(import.meta.dir, "fixtures/serve-with-hold.ts")];

test("platform serve: a task running at SIGKILL comes back failed as interrupted; finished ones are intact", async () => {
  const dataDir = join(dir.path, "serve");
  const first = await serve(dataDir, { command: withHold, env: openAuthorization });
  const done = (await rpc(first.url, call("task.send", { type: "health" }))).body.result;
  expect(done.state).toBe("completed");
  const running = (await rpc(first.url, call("task.send", { type: "hold", blocking: false }))).body.result;
  expect(running.state).toBe("running");
  first.proc.kill("SIGKILL");
  expect(await first.proc.exited).not.toBe(0);

  const second = await serve(dataDir, { command: withHold, env: openAuthorization });
  try {
    const after = (await rpc(second.url, call("task.status", { id: running.id }))).body.result;
    expect(after).toMatchObject({ state: "failed", error: expect.stringContaining("interrupted") });
    expect((await rpc(second.url, call("task.status", { id: done.id }))).body.result).toEqual(done);
  } finally {
    await second.stop();
  }
});

/** Starts the resumable agent fixture on `file` and resolves with its URL once it listens. */
async function startResumer(file: string) {
  const proc = Bun.spawn(["bun", join(import.meta.dir, "fixtures/resumable-agent.ts"), file], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the agent exited before listening");
    text += value;
  }
  reader.releaseLock();
  return { proc, url: (JSON.parse(text.slice(0, text.indexOf("\n"))) as { url: string }).url };
}

test("a resumable handler resumes after SIGKILL; a plain one fails as interrupted", async () => {
  const file = join(dir.path, "resumer.db");
  const first = await startResumer(file);
  const resumable = await client.sendTask(first.url, "resumable", {}, { blocking: false });
  const fragile = await client.sendTask(first.url, "fragile", {}, { blocking: false });
  expect((await client.getTaskStatus(first.url, resumable.id)).metadata).toEqual({ attempts: 1 });
  first.proc.kill("SIGKILL");
  await first.proc.exited;

  const second = await startResumer(file);
  try {
    let last;
    for await (const task of client.streamTaskUpdates(second.url, resumable.id)) last = task;
    expect(last).toMatchObject({ state: "completed", result: { attempts: 2 }, metadata: { attempts: 2 } });
    expect(await client.getTaskStatus(second.url, fragile.id)).toMatchObject({ state: "failed", error: expect.stringContaining("interrupted") });
  } finally {
    second.proc.kill("SIGKILL");
    await second.proc.exited;
  }
});
