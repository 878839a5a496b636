/**
 * One run of an external program (tofu, terraform, git): its output streamed line by line to a listener and in
 * full to a log file, stopped on cancellation or at its time limit with SIGINT first (so tofu can release its
 * state lock) and SIGKILL after a grace period. A non-zero exit is the caller's to judge; a cancellation or a
 * timeout is an error naming the log.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { InfraError } from "./errors.ts";

export interface RunOptions {
  command: string[];
  cwd: string;
  /** The child's whole environment (this process's when left out). */
  env?: Record<string, string>;
  /** The full output, both streams as they came, is written here. */
  logFile: string;
  timeoutMs: number;
  graceMs: number;
  signal?: AbortSignal;
  onLine?(line: string, stream: "stdout" | "stderr"): void;
}

export interface RunResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  durationMs: number;
  logFile: string;
}

export async function runProgram({ command, cwd, env, logFile, timeoutMs, graceMs, signal, onLine }: RunOptions): Promise<RunResult> {
  if (signal?.aborted) throw new InfraError("CANCELLED", "the run was cancelled before it started", { logFile });
  mkdirSync(dirname(logFile), { recursive: true });
  const log = Bun.file(logFile).writer();
  log.write(`$ ${command.join(" ")}\n`);
  const started = performance.now();
  const child = Bun.spawn(command, { cwd, env: env ?? process.env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });

  let stopping: "cancelled" | "timed out" | undefined;
  let killTimer: ReturnType<typeof setTimeout> | undefined;
  const stop = (why: "cancelled" | "timed out") => {
    if (stopping || child.exitCode !== null) return;
    stopping = why;
    child.kill("SIGINT");
    killTimer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  };
  const onAbort = () => stop("cancelled");
  signal?.addEventListener("abort", onAbort, { once: true });
  const deadline = setTimeout(() => stop("timed out"), timeoutMs);

  // Bytes go to the log as they come; text is decoded once at the end, and line by line only for a listener.
  const collect = async (stream: ReadableStream<Uint8Array<ArrayBuffer>>, name: "stdout" | "stderr") => {
    const chunks: Uint8Array[] = [];
    const decoder = onLine && new TextDecoder();
    let pending = "";
    for await (const chunk of stream) {
      chunks.push(chunk);
      log.write(chunk);
      if (!decoder) continue;
      pending += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf("\n")) >= 0) {
        onLine!(pending.slice(0, newline), name);
        pending = pending.slice(newline + 1);
      }
    }
    if (onLine && pending) onLine(pending, name);
    return Buffer.concat(chunks).toString("utf8");
  };
  try {
    const [stdout, stderr, exitCode] = await Promise.all([collect(child.stdout, "stdout"), collect(child.stderr, "stderr"), child.exited]);
    const durationMs = Math.round(performance.now() - started);
    log.write(`\n[exit ${exitCode} after ${durationMs} ms${stopping ? `, ${stopping}` : ""}]\n`);
    if (stopping === "cancelled") throw new InfraError("CANCELLED", `the run was cancelled (${command[1] ?? command[0]})`, { logFile, stderrTail: tail(stderr) });
    if (stopping === "timed out")
      throw new InfraError("TIMEOUT", `the run passed its time limit of ${Math.round(timeoutMs / 1000)} s and was stopped`, { logFile, stderrTail: tail(stderr) });
    return { exitCode, stdout, stderr, durationMs, logFile };
  } finally {
    clearTimeout(deadline);
    clearTimeout(killTimer);
    signal?.removeEventListener("abort", onAbort);
    await log.end();
  }
}

/** The last `max` characters of `text`, cut at a line start, for an error's details. */
export function tail(text: string, max = 2000): string {
  if (text.length <= max) return text.trim();
  const cut = text.slice(-max);
  const newline = cut.indexOf("\n");
  return (newline >= 0 ? cut.slice(newline + 1) : cut).trim();
}
