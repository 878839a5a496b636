/**
 * The logger, on stderr: stdout is reserved for MCP stdio, so nothing here ever writes to it. Each line is JSON
 * (for machines: level, message, timestamp and the context fields) or, for a person at a terminal, `pretty`: the
 * time, the level, the message and the fields as key=value. Values under secret-looking keys are replaced before
 * either is written.
 */
import { writeSync } from "node:fs";

export type LogLevel = "error" | "warn" | "info" | "debug";
export type LogFormat = "json" | "pretty";
export type LogFields = Record<string, unknown>;

const rank: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };
const secretKey = /pass(word)?|secret|token|authorization|cookie|api[-_]?key|credential|private[-_]?key/i;

export interface Logger {
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  enabled(level: LogLevel): boolean;
  /** A logger whose lines all carry `fields`. */
  child(fields: LogFields): Logger;
}

export interface LoggerOptions {
  level?: LogLevel;
  format?: LogFormat;
  /** `urgent` for an error line: it should not wait for others. */
  write?: (line: string, urgent: boolean) => void;
}

/**
 * Written straight to fd 2: setting up node's process.stderr stream costs milliseconds at start-up. Like that
 * stream on Linux, the write is synchronous. A reader that went away (EPIPE) loses the line, as it would have;
 * a full non-blocking pipe (EAGAIN) hands it to the buffered stream instead.
 */
const writeFd2 = (text: string) => {
  try {
    writeSync(2, text);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EAGAIN") process.stderr.write(text);
  }
};

/**
 * Lines are gathered and written together, at most `flushMs` after the first of them: a busy server logs a line
 * per request, and one write for many lines costs a fraction of a write each, for this process and for whatever
 * reads its stderr. (Once a turn was still a write every few requests: about 5% of a cached catalog read's
 * throughput.) An error line is written at once, with what came before it, and the rest when the process exits.
 */
const flushMs = 20;
let pending = "";
const flush = () => {
  if (!pending) return;
  const text = pending;
  pending = "";
  writeFd2(text);
};
process.once("exit", flush);
/** Text for a person on stderr (the start-up banner), in order with the log lines written before it. */
export const writeToPerson = (text: string) => {
  pending += text;
  flush();
};
const writeStderr = (line: string, urgent: boolean) => {
  if (!pending && !urgent) setTimeout(flush, flushMs).unref();
  pending += line;
  if (urgent) flush();
};

export function createLogger({ level = "info", format = "json", write = writeStderr }: LoggerOptions = {}, base: LogFields = {}): Logger {
  const threshold = rank[level];
  const emit = (lineLevel: LogLevel, message: string, fields?: LogFields) => {
    if (rank[lineLevel] > threshold) return;
    const line = { level: lineLevel, message, timestamp: timestamp(), ...base, ...fields };
    write(format === "json" ? json(line) : pretty(line), lineLevel === "error");
  };
  return {
    error: (m, f) => emit("error", m, f),
    warn: (m, f) => emit("warn", m, f),
    info: (m, f) => emit("info", m, f),
    debug: (m, f) => emit("debug", m, f),
    enabled: (l) => rank[l] <= threshold,
    child: (fields) => createLogger({ level, format, write }, { ...base, ...fields }),
  };
}

let lastMs = NaN;
let lastIso = "";
/** The time in ISO 8601, made once per millisecond: a busy server writes many lines within one. */
function timestamp(): string {
  const now = Date.now();
  if (now !== lastMs) {
    lastMs = now;
    lastIso = new Date(now).toISOString();
  }
  return lastIso;
}

/**
 * The line as JSON, redacted. Most lines are flat and name no secret (an access line, say): they skip the
 * replacer, which is called for every key and keeps JSON.stringify off its fast path.
 */
function json(line: LogFields): string {
  for (const key in line) {
    const value = line[key];
    if ((typeof value === "object" && value !== null) || (value !== undefined && value !== null && value !== "" && secretKey.test(key)))
      return JSON.stringify(line, redact) + "\n";
  }
  return JSON.stringify(line) + "\n";
}

/** `auto` reads as pretty at a terminal and JSON lines anywhere else (a file, a pipe, a log collector). */
export const formatFor = (setting: LogFormat | "auto", terminal = process.stderr.isTTY === true): LogFormat =>
  setting === "auto" ? (terminal ? "pretty" : "json") : setting;

const levelMark: Record<LogLevel, string> = { error: "ERROR", warn: "WARN ", info: "INFO ", debug: "DEBUG" };

/** `12:04:05.123 INFO  message key=value ...`, with the same redaction as JSON; nested values as JSON. */
function pretty({ level, message, timestamp, ...fields }: LogFields & { level: LogLevel; message: string; timestamp: string }): string {
  const redacted = JSON.parse(JSON.stringify(fields, redact)) as LogFields;
  const pairs = Object.entries(redacted).map(([key, value]) => `${key}=${typeof value === "string" && !/[\s"=]/.test(value) ? value : JSON.stringify(value)}`);
  return `${timestamp.slice(11, 23)} ${levelMark[level]} ${message}${pairs.length ? `  ${pairs.join(" ")}` : ""}\n`;
}

function redact(this: unknown, key: string, value: unknown): unknown {
  if (key && secretKey.test(key) && value !== null && value !== undefined && value !== "") return "[REDACTED]";
  if (value instanceof Error) return { name: value.name, message: value.message };
  return value;
}
