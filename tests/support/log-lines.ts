/**
 * A logger whose lines a test can read and wait for. Some lines are written after the answer has left (the access
 * line, and the request metrics counted with it), so a test waits for the line itself, never for time.
 */
import { createLogger, type Logger } from "../../src/log.ts";

export interface LogLines {
  log: Logger;
  lines: string[];
  /** The first line (past or future) that `match` accepts. */
  until(match: (line: string) => boolean): Promise<string>;
}

export function logLines(level: "error" | "warn" | "info" | "debug" = "info"): LogLines {
  const lines: string[] = [];
  const waiting = new Set<{ match: (line: string) => boolean; resolve: (line: string) => void }>();
  const log = createLogger({
    level,
    write: (line) => {
      lines.push(line);
      for (const waiter of waiting) if (waiter.match(line)) (waiting.delete(waiter), waiter.resolve(line));
    },
  });
  const until = (match: (line: string) => boolean) =>
    new Promise<string>((resolve) => {
      const seen = lines.find(match);
      if (seen !== undefined) resolve(seen);
      else waiting.add({ match, resolve });
    });
  return { log, lines, until };
}
