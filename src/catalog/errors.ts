/**
 * The catalog's errors and their wire form `{ code, message, details }`. A CatalogError knows its HTTP response;
 * every other failure on /v2 (no route, malformed JSON, validation, an oversized body, a fault) reaches the
 * catalog's error surface, which answers it the same way. Elysia's validation errors are translated here so that
 * `details.fields` names every offending field.
 */
import { ValidationError } from "elysia";
import type { ErrorSurface, Failure } from "../errors.ts";
import { JsonTooDeep } from "../strict-json.ts";

export type CatalogErrorCode =
  | "VALIDATION_ERROR"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "METHOD_NOT_ALLOWED"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "RATE_LIMITED"
  | "INTERNAL_ERROR"
  | "SERVICE_UNAVAILABLE";

const statusOf: Record<CatalogErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
  SERVICE_UNAVAILABLE: 503,
};

export interface FieldIssue {
  field: string;
  message: string;
}

export class CatalogError extends Error {
  override name = "CatalogError";
  readonly status: number;
  constructor(
    readonly code: CatalogErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
    /** Headers the answer needs besides the body, such as a 401's challenge or a 429's Retry-After. */
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.status = statusOf[code];
  }

  toJSON() {
    return { code: this.code, message: this.message, details: this.details ?? {} };
  }

  /** The runtime answers an error that has this with it as is: a refusal is not a fault and is not logged as one. */
  toResponse(): Response {
    return Response.json(this.toJSON(), { status: this.status, headers: this.headers });
  }
}

export const invalid = (fields: FieldIssue[]) =>
  new CatalogError("VALIDATION_ERROR", `Invalid ${fields.map((f) => f.field).join(", ")}`, { fields });
export const notFound = (what: string, id: string) => new CatalogError("NOT_FOUND", `${what} ${id} does not exist`, { id });
export const conflict = (message: string, details: Record<string, unknown>) => new CatalogError("CONFLICT", message, details);
/**
 * A 401 with its challenge (RFC 9110 11.6.1): Bearer, and for a bearer token that was sent but does not verify,
 * RFC 6750's `invalid_token`.
 */
export const unauthorized = (message = "Authentication required: send a bearer token or an X-API-Key", { invalidToken = false } = {}) =>
  new CatalogError("UNAUTHORIZED", message, undefined, {
    "www-authenticate": invalidToken ? `Bearer realm="catalog", error="invalid_token", error_description="${message}"` : 'Bearer realm="catalog"',
  });
export const rateLimited = (retryAfter: number) =>
  new CatalogError("RATE_LIMITED", `Too many requests; retry in ${retryAfter} s`, { retryAfter }, { "retry-after": String(retryAfter) });
export const forbidden = (message: string) => new CatalogError("FORBIDDEN", message);

/** Elysia's validation failure, as the fields people would name: `items[0].quantity`, `page`. */
export function fromValidation(error: ValidationError): CatalogError {
  const seen = new Set<string>();
  const fields: FieldIssue[] = [];
  for (const issue of error.all) {
    if (!("path" in issue)) continue;
    const field = fieldName(issue.path) || error.type;
    if (seen.has(field)) continue; // a union reports each branch; one line per field is enough
    seen.add(field);
    fields.push({ field, message: describe(issue.schema as Record<string, unknown> | undefined, issue.message) });
  }
  if (!fields.length) fields.push({ field: error.type, message: "is not valid" });
  return invalid(fields);
}

const fieldName = (pointer: string) =>
  pointer
    .split("/")
    .filter(Boolean)
    .map((part, i) => (/^\d+$/.test(part) ? `[${part}]` : i === 0 ? part : `.${part}`))
    .join("");

/** What a field's schema asks for, in words: "must be an integer >= 1 <= 100", "must be one of: ...". */
export function describe(schema: Record<string, any> | undefined, fallback = "is not valid"): string {
  if (!schema) return fallback;
  if (schema.not && typeof schema.not === "object" && !Object.keys(schema.not).length) return "is not a known field";
  const literals = (schema.anyOf as { const?: unknown }[] | undefined)?.map((s) => s.const);
  if (literals?.length && literals.every((v) => typeof v === "string")) return `must be one of: ${literals.join(", ")}`;
  if (schema.pattern) return `must match ${schema.pattern}`;
  if (schema.format) return `must be a valid ${schema.format}`;
  if (schema.minimum !== undefined || schema.maximum !== undefined) {
    const kind = schema.type === "integer" || schema.anyOf?.some((s: { type?: string }) => s.type === "integer") ? "an integer" : "a number";
    return `must be ${kind}${schema.minimum !== undefined ? ` >= ${schema.minimum}` : ""}${schema.maximum !== undefined ? ` <= ${schema.maximum}` : ""}`;
  }
  return fallback.replace(/^Expected/, "expected");
}

/** Every failure on /v2 that is not a CatalogError, in the catalog's form (see Capability.errors). */
export const catalogErrors: ErrorSurface = {
  prefix: "/v2",
  render: (failure) => fromFailure(failure).toResponse(),
};

function fromFailure({ kind, status, message, error, requestId }: Failure): CatalogError {
  if (error instanceof ValidationError) return fromValidation(error);
  if (kind === "MALFORMED_JSON")
    return invalid([{ field: "body", message: error instanceof JsonTooDeep ? `is JSON nested deeper than ${error.maxDepth} levels` : "is not valid JSON" }]);
  if (status === 413) return new CatalogError("PAYLOAD_TOO_LARGE", message);
  if (status === 404) return new CatalogError("NOT_FOUND", message);
  if (status === 400) return invalid([{ field: "body", message }]);
  if (kind === "UNAVAILABLE") return new CatalogError("SERVICE_UNAVAILABLE", message, {}, { "retry-after": "1" });
  return new CatalogError("INTERNAL_ERROR", `Internal error; quote request id ${requestId} when reporting it`, { requestId });
}
