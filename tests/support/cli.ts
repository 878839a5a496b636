/**
 * Runs the real `platform` command as a child process: from source by default, or a compiled executable.
 * Its JSON-line stderr is collected; waits are on the lines themselves, never on time.
 */
import { join } from "node:path";
import type { Subprocess } from "bun";

export const repoRoot = join(import.meta.dir, "../..");
export const sourceCommand = ["bun", join(repoRoot, "src/main.ts")];

export interface Running {
  proc: Subprocess<"ignore" | "pipe", "pipe", "pipe">;
  url: string;
  /** Every stderr line so far. */
  lines: string[];
  /** Resolves with the first stderr line (past or future) that satisfies `match`. */
  waitForLine(match: (line: string) => boolean): Promise<string>;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
}

// Every child still running when the test process exits is ended, so a test that times out mid-start leaves
// no server behind.
const children = new Set<Subprocess>();
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
});

export function platform(args: string[], options: { env?: Record<string, string>; cwd?: string; command?: string[] } = {}) {
  const child = Bun.spawn([...(options.command ?? sourceCommand), ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  children.add(child);
  void child.exited.then(() => children.delete(child));
  return child;
}

/** Runs `platform` to its end with `stdin` as its input (none when left out); resolves with its output and exit code. */
export async function runPlatform(args: string[], options: { stdin?: string; env?: Record<string, string>; cwd?: string; command?: string[] } = {}) {
  const child = Bun.spawn([...(options.command ?? sourceCommand), ...args], {
    cwd: options.cwd ?? repoRoot,
    env: { ...process.env, ...options.env },
    stdin: options.stdin === undefined ? "ignore" : new TextEncoder().encode(options.stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  children.add(child);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  children.delete(child);
  return { stdout, stderr, code };
}

/** Starts `serve` on a free loopback port in `dataDir` and resolves once it listens. */
export async function serve(dataDir: string, options: { env?: Record<string, string>; command?: string[]; args?: string[] } = {}): Promise<Running> {
  const proc = platform(["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir, ...(options.args ?? [])], options);
  const lines: string[] = [];
  const waiters = new Set<{ match: (line: string) => boolean; resolve: (line: string) => void }>();
  void (async () => {
    let buffered = "";
    for await (const chunk of proc.stderr.pipeThrough(new TextDecoderStream())) {
      buffered += chunk;
      let newline: number;
      while ((newline = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        lines.push(line);
        for (const waiter of waiters) if (waiter.match(line)) (waiters.delete(waiter), waiter.resolve(line));
      }
    }
  })();
  const waitForLine = (match: (line: string) => boolean) => {
    const seen = lines.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    const { promise, resolve, reject } = Promise.withResolvers<string>();
    waiters.add({ match, resolve });
    void proc.exited.then((code) => reject(new Error(`platform exited with ${code} before the line came:\n${lines.join("\n")}`)));
    return promise;
  };
  const listening = await waitForLine((l) => l.includes('"message":"listening"'));
  const url = (JSON.parse(listening) as { url: string }).url;
  return {
    proc,
    url,
    lines,
    waitForLine,
    async stop(signal = "SIGTERM") {
      if (proc.exitCode === null) proc.kill(signal);
      return proc.exited;
    },
  };
}
