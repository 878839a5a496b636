/**
 * The catalog's errors and their wire form `{ code, message, details }`. A CatalogError knows its HTTP status;
 * Elysia's validation errors are translated here so that `details.fields` names every offending field.
 */
import { ValidationError } from "elysia";
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export type CatalogErrorCode =
  | "VALIDATION_ERROR"
  | "UNAUTHORIZED"
  | "FORBIDDEN"
  | "NOT_FOUND"
  | "CONFLICT"
  | "PAYLOAD_TOO_LARGE"
  | "RATE_LIMITED"
  | "INTERNAL_ERROR";

const statusOf: Record<CatalogErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  PAYLOAD_TOO_LARGE: 413,
  RATE_LIMITED: 429,
  INTERNAL_ERROR: 500,
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
  ) {
    super(message);
    this.status = statusOf[code];
  }

  toJSON() {
    return { code: this.code, message: this.message, details: this.details ?? {} };
  }
}

export const invalid = (fields: FieldIssue[]) =>
  new CatalogError("VALIDATION_ERROR", `Invalid ${fields.map((f) => f.field).join(", ")}`, { fields });
export const notFound = (what: string, id: string) => new CatalogError("NOT_FOUND", `${what} ${id} does not exist`, { id });
export const conflict = (message: string, details: Record<string, unknown>) => new CatalogError("CONFLICT", message, details);
export const unauthorized = (message = "Authentication required: send a bearer token or an X-API-Key") =>
  new CatalogError("UNAUTHORIZED", message);
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

function describe(schema: Record<string, any> | undefined, fallback: string): string {
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

/**
 * Any failure of a /v2 request in the catalog's terms. `status` is what the app-wide handler already chose,
 * which tells an oversized body apart from other faults.
 */
export function toCatalogError(code: string | number, error: unknown, status: number, requestId: string): CatalogError {
  if (error instanceof CatalogError) return error;
  if (error instanceof ValidationError) return fromValidation(error);
  if (status === 413) return new CatalogError("PAYLOAD_TOO_LARGE", "The request body is too large");
  if (code === "PARSE") return invalid([{ field: "body", message: "is not valid JSON" }]);
  if (code === "NOT_FOUND") return new CatalogError("NOT_FOUND", "No such route");
  return new CatalogError("INTERNAL_ERROR", `Internal error; quote request id ${requestId} when reporting it`, { requestId });
}

/**
 * A query string's failures, field by field. Elysia converts query numbers one property at a time and, when a
 * converted number breaks its range, reports the failure without the property's name; checking the whole
 * query again, with numeric text read as numbers, names every offending parameter.
 */
export function queryErrors(schema: TSchema, query: Record<string, unknown>): CatalogError | undefined {
  const numeric = (s: TSchema | undefined) => !!s && (s.type === "number" || s.type === "integer" || !!s.anyOf?.some(numeric));
  const read = Object.fromEntries(
    Object.entries(query).map(([key, value]) => [
      key,
      typeof value === "string" && value.trim() !== "" && numeric(schema.properties?.[key]) && !Number.isNaN(Number(value)) ? Number(value) : value,
    ]),
  );
  const fields: FieldIssue[] = [];
  for (const issue of Value.Errors(schema, read)) {
    const field = fieldName(issue.path);
    if (field && !fields.some((f) => f.field === field)) fields.push({ field, message: describe(issue.schema, issue.message) });
  }
  return fields.length ? invalid(fields) : undefined;
}
