/**
 * Log lines a test can read and wait for. Some lines are written after the answer has left (the access line, the
 * request metrics counted with it, and every line of a child process, whose stderr is written at the end of its
 * turn), so a test waits for the line itself, never for time.
 */
import type { Readable } from "node:stream";
import { createLogger, type Logger } from "../../src/log.ts";

export interface Lines {
  lines: string[];
  /** The first line (past or future) that `match` accepts. */
  until(match: (line: string) => boolean): Promise<string>;
}

export interface LogLines extends Lines {
  log: Logger;
}

/** Lines collected by `push`, and waited for by `until`. */
function collector(): Lines & { push(line: string): void } {
  const lines: string[] = [];
  const waiting = new Set<{ match: (line: string) => boolean; resolve: (line: string) => void }>();
  const push = (line: string) => {
    lines.push(line);
    for (const waiter of waiting) if (waiter.match(line)) (waiting.delete(waiter), waiter.resolve(line));
  };
  const until = (match: (line: string) => boolean) =>
    new Promise<string>((resolve) => {
      const seen = lines.find(match);
      if (seen !== undefined) resolve(seen);
      else waiting.add({ match, resolve });
    });
  return { lines, until, push };
}

export function logLines(level: "error" | "warn" | "info" | "debug" = "info"): LogLines {
  const { lines, until, push } = collector();
  return { log: createLogger({ level, write: push }), lines, until };
}

/** The lines of a child's stream, split where it writes a newline even when a line arrives in several chunks. */
export function streamLines(stream: Readable): Lines {
  const { lines, until, push } = collector();
  let partial = "";
  stream.on("data", (chunk: Buffer) => {
    const parts = (partial + chunk.toString()).split("\n");
    partial = parts.pop()!;
    for (const line of parts) if (line) push(line);
  });
  return { lines, until };
}
