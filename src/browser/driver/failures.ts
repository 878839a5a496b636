/**
 * Turns what Playwright (or our own driver code) threw into the error a caller reads. Playwright's messages
 * are written for people and say what went wrong with the page, so they pass through (first line as message,
 * the call log as details); a fault in our own code becomes an InternalError the host logs with an id.
 */
import { errors } from "playwright-core";
import { BrowserServiceError, type ErrorBody } from "../errors.ts";

const faults = new Set(["TypeError", "ReferenceError", "RangeError", "SyntaxError"]);

export function failureOf(error: unknown, signal?: AbortSignal): ErrorBody {
  if (error instanceof BrowserServiceError) return { type: error.type, message: error.message, details: error.details };
  if (signal?.aborted) return { type: "BrowserError", message: "The operation was cancelled", details: { cancelled: true } };
  const { name, message = String(error) } = (error ?? {}) as Error;
  const [first = "", ...rest] = message.split("\n");
  // The call log is coloured for a terminal; the colours are dropped.
  const log = rest.map((line) => line.replace(/\u001b\[\d+m/g, "").trim()).filter((line) => line && line !== "Call log:").slice(0, 12);
  const details = log.length ? { log } : {};
  if (error instanceof errors.TimeoutError) return { type: "TimeoutError", message: first, details };
  const network = /net::(ERR_[A-Z_]+)/.exec(first);
  if (network) return { type: "BrowserError", message: first, details: { ...details, reason: network[1] } };
  if (faults.has(name)) return { type: "InternalError", message: `${name}: ${message}`, details: { stack: (error as Error).stack } };
  return { type: "BrowserError", message: first, details };
}
