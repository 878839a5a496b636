/**
 * How the runtime classifies a failed request, and how a failure becomes a response. A capability error that
 * knows its own wire form has `toResponse()`; every other failure is classified here and rendered by the
 * capability whose path it is on (its `errors` surface), else in the runtime's `{ error: { code, message } }`.
 */
import { NotFoundError, ParseError, ValidationError } from "elysia";
import { storeUnavailableMessage, storeUnreachable } from "./db/client.ts";
import { refusedText, UnstorableText } from "./db/storable.ts";
import { JsonTooDeep } from "./strict-json.ts";

/**
 * REFUSED: a capability refused the request on purpose, with a 4xx status and a message of its own. UNAVAILABLE:
 * the store could not be reached (503); the same request may succeed once it is back.
 */
export type FailureKind = "NOT_FOUND" | "MALFORMED_JSON" | "VALIDATION" | "PAYLOAD_TOO_LARGE" | "REFUSED" | "UNAVAILABLE" | "INTERNAL";

export interface Failure {
  kind: FailureKind;
  status: number;
  /** Safe to send: never a stack or an internal message. */
  message: string;
  /** The original error: an Elysia ValidationError for VALIDATION, whatever was thrown for INTERNAL. */
  error: unknown;
  requestId: string;
}

/** How a capability answers failures on the paths under `prefix` (or any of several), in its own wire format. */
export interface ErrorSurface {
  prefix: string | readonly string[];
  render(failure: Failure): unknown;
}

/** An error that carries its own HTTP response (the capability's wire format). */
export interface ErrorWithResponse {
  toResponse(): Response;
}

/** Elysia's validation error has a `toResponse()` of its own; its wire form is ours to choose, so it is excluded. */
export const hasResponse = (error: unknown): error is ErrorWithResponse =>
  !(error instanceof ValidationError) && typeof (error as Partial<ErrorWithResponse> | null)?.toResponse === "function";

export class PayloadTooLarge extends Error {
  override name = "PayloadTooLarge";
}

/** Classifies by class, not by `code`: a capability's own error may well carry a code named NOT_FOUND. */
export function classify(error: unknown, context: { method: string; path: string; requestId: string; bodyLimit: number }): Failure {
  const { requestId } = context;
  const failure = (kind: FailureKind, status: number, message: string): Failure => ({ kind, status, message, error, requestId });
  if (error instanceof PayloadTooLarge || (error as Error | undefined)?.cause instanceof PayloadTooLarge)
    return failure("PAYLOAD_TOO_LARGE", 413, `Request body exceeds the limit of ${context.bodyLimit} bytes`);
  if (error instanceof NotFoundError) return failure("NOT_FOUND", 404, `No route for ${context.method} ${context.path}`);
  if (error instanceof ParseError) return failure("MALFORMED_JSON", 400, "The request body is not valid JSON");
  if (error instanceof JsonTooDeep) return failure("MALFORMED_JSON", 400, `The request body ${error.message.replace(/^JSON /, "")}`);
  if (error instanceof ValidationError) return failure("VALIDATION", 400, error.messageValue?.message ?? "Invalid request");
  if (refusedText(error)) return classify(new UnstorableText(error), context);
  const status = (error as { status?: unknown } | null)?.status;
  if (typeof status === "number" && status >= 400 && status < 500) return failure("REFUSED", status, (error as Error).message);
  if (storeUnreachable(error)) return failure("UNAVAILABLE", 503, storeUnavailableMessage);
  return failure("INTERNAL", 500, `Internal error; quote request id ${requestId} when reporting it`);
}

/** The runtime's own wire form, for paths no capability claims. */
export function runtimeBody({ kind, message, requestId, error }: Failure) {
  const own = (error as { code?: unknown } | null)?.code;
  const code = kind === "VALIDATION" ? "VALIDATION_ERROR" : kind === "INTERNAL" ? "INTERNAL_ERROR" : kind === "REFUSED" && typeof own === "string" ? own : kind;
  const details = kind === "VALIDATION" ? { path: (error as ValidationError).valueError?.path } : undefined;
  return { error: { code, message, requestId, ...(details ? { details } : {}) } };
}
