/**
 * The browser server's errors, one shape on every surface: `{ error: { type, message, details } }` over REST and
 * WebSocket, `[type] message` in an MCP tool result. Each type has its HTTP status. The driver (a worker thread)
 * sends errors as plain `ErrorBody` values, which become a BrowserServiceError again on this side.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../log.ts";
import { InvalidArguments } from "../mcp/call.ts";

export type ErrorType = "ValidationError" | "AuthenticationError" | "NotFoundError" | "TimeoutError" | "BrowserError" | "UnavailableError" | "InternalError";

export const statusOf: Record<ErrorType, number> = {
  ValidationError: 400,
  AuthenticationError: 401,
  NotFoundError: 404,
  TimeoutError: 504,
  BrowserError: 502,
  /** The store cannot be reached; the same request may succeed once it is back. */
  UnavailableError: 503,
  InternalError: 500,
};

export interface ErrorBody {
  type: ErrorType;
  message: string;
  details?: Record<string, unknown>;
}

export class BrowserServiceError extends Error {
  override name = "BrowserServiceError";

  constructor(
    readonly type: ErrorType,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  get status(): number {
    return statusOf[this.type];
  }

  static validation(message: string, details?: Record<string, unknown>) {
    return new BrowserServiceError("ValidationError", message, details);
  }

  static notFound(message: string, details?: Record<string, unknown>) {
    return new BrowserServiceError("NotFoundError", message, details);
  }

  static timeout(message: string, details?: Record<string, unknown>) {
    return new BrowserServiceError("TimeoutError", message, details);
  }

  static browser(message: string, details?: Record<string, unknown>) {
    return new BrowserServiceError("BrowserError", message, details);
  }

  static from(body: ErrorBody): BrowserServiceError {
    return new BrowserServiceError(body.type, body.message, body.details);
  }

  toJSON(): { error: ErrorBody } {
    return { error: { type: this.type, message: this.message, details: this.details } };
  }

  toResponse(): Response {
    return Response.json(this.toJSON(), { status: this.status });
  }
}

/** An internal fault as callers see it: an id to quote, never a stack or an internal message. */
export const internalBody = (id: string): ErrorBody => ({
  type: "InternalError",
  message: `Internal error; quote ${id} when reporting it`,
  details: { errorId: id },
});

/** Any failure as the browser's error body, with its status; a fault of ours is logged with an id. */
export function errorBody(error: unknown, log: Logger): { status: number; body: { error: ErrorBody } } {
  if (error instanceof BrowserServiceError) return { status: error.status, body: error.toJSON() };
  if (error instanceof InvalidArguments) return { status: 400, body: { error: { type: "ValidationError", message: error.message, details: { field: error.field } } } };
  const id = randomUUID();
  log.error("browser request fault", { errorId: id, error });
  return { status: 500, body: { error: internalBody(id) } };
}

/** How to get Chromium, for the error every tool answers while it is missing. */
export const installHint = {
  debian: "apt-get install -y chromium",
  project: "bun run tools",
  configure: "set browser.executable (PLATFORM_BROWSER__EXECUTABLE) to a Chromium binary",
};
