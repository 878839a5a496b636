import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { tempDir } from "../support/temp.ts";

const dir = tempDir();
afterAll(() => dir.remove());
const host = join(import.meta.dir, "../fixtures/actor-host.ts");

/** Starts the actor host and returns a function that sends one command and resolves with its answer line. */
function startHost(file: string) {
  const proc = Bun.spawn(["bun", host, file], { stdin: "pipe", stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = "";
  const nextLine = async (): Promise<string> => {
    while (!buffered.includes("\n")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("actor host closed its output");
      buffered += value;
    }
    const line = buffered.slice(0, buffered.indexOf("\n"));
    buffered = buffered.slice(line.length + 1);
    return line;
  };
  const ask = async (command: string) => {
    proc.stdin.write(`${command}\n`);
    proc.stdin.flush();
    return nextLine();
  };
  return { proc, nextLine, ask };
}

test("after SIGKILL mid-run, a restart finds every actor back in its state with nothing lost", async () => {
  const file = join(dir.path, "crash.db");
  const first = startHost(file);
  expect(JSON.parse(await first.nextLine())).toEqual({ restored: 0 });
  const expected: Record<string, { state: string; count: number } | undefined> = {};
  for (let i = 0; i < 20; i++) {
    expect(await first.ask(`spawn a${i} ${i}`)).toBe("ok");
    for (let n = 0; n < i % 4; n++) expect(await first.ask(`inc a${i}`)).toBe("ok");
    expected[`a${i}`] = { state: "counting", count: i + (i % 4) };
  }
  expect(await first.ask("finish a3")).toBe("ok");
  delete expected.a3; // final actors are not restored as live ones
  first.proc.kill("SIGKILL");
  expect(await first.proc.exited).not.toBe(0);

  const second = startHost(file);
  expect(JSON.parse(await second.nextLine())).toEqual({ restored: 19 });
  const dump = JSON.parse(await second.ask(`dump ${Object.keys(expected).join(",")}`));
  expect(dump).toEqual(expected);
  expect(await second.ask("inc a5")).toBe("ok");
  expect(JSON.parse(await second.ask("dump a5"))).toEqual({ a5: { state: "counting", count: 7 } });
  second.proc.kill("SIGKILL");
  await second.proc.exited;
});
