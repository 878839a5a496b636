/**
 * The vault's errors. Each carries a stable code and the HTTP status it maps to; messages name what was wrong
 * and never include a credential. HTTP answers `{ error: { code, message } }`; MCP tools answer `[CODE] message`.
 */
import { Kind, type Static, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

export type VaultErrorCode =
  | "SEALED"
  | "UNAUTHENTICATED"
  | "PERMISSION_DENIED"
  | "UNKNOWN_SERVICE"
  | "SERVICE_EXISTS"
  | "UNKNOWN_TEMPLATE"
  | "INVALID_REQUEST"
  | "EGRESS_DENIED"
  | "NOT_ALLOWED"
  | "REQUEST_TOO_LARGE"
  | "RESPONSE_TOO_LARGE"
  | "UPSTREAM_TIMEOUT"
  | "UPSTREAM_UNREACHABLE"
  | "COMMAND_NOT_ALLOWED"
  | "NOT_FOUND";

const statusOf: Record<VaultErrorCode, number> = {
  SEALED: 503,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  UNKNOWN_SERVICE: 404,
  SERVICE_EXISTS: 409,
  UNKNOWN_TEMPLATE: 400,
  INVALID_REQUEST: 400,
  EGRESS_DENIED: 403,
  NOT_ALLOWED: 403,
  REQUEST_TOO_LARGE: 413,
  RESPONSE_TOO_LARGE: 502,
  UPSTREAM_TIMEOUT: 504,
  UPSTREAM_UNREACHABLE: 502,
  COMMAND_NOT_ALLOWED: 403,
  NOT_FOUND: 404,
};

export class VaultError extends Error {
  override name = "VaultError";
  readonly status: number;

  constructor(
    readonly code: VaultErrorCode,
    message: string,
  ) {
    super(message);
    this.status = statusOf[code];
  }

  static sealed(detail?: string): VaultError {
    return new VaultError("SEALED", `The vault is sealed${detail ? ` (${detail})` : ""}; run 'platform vault unseal'`);
  }

  static invalid(message: string): VaultError {
    return new VaultError("INVALID_REQUEST", message);
  }

  toJSON() {
    return { error: { code: this.code, message: this.message } };
  }

  toResponse(): Response {
    return Response.json(this.toJSON(), { status: this.status });
  }
}

/** The text an MCP tool answers with when a vault call fails. */
export const toolErrorText = (error: VaultError) => `[${error.code}] ${error.message}`;

/**
 * Throws the first way `value` fails `schema` as an INVALID_REQUEST naming the field, never the value, which may
 * be a credential. A failed pattern is worded by the field's description (a regular expression says little);
 * `whenEmpty` words an object that gives too little (a change that changes nothing).
 */
export function assertValid<T extends TSchema>(schema: T, value: unknown, whenEmpty = "the input is empty"): asserts value is Static<T> {
  const error = Value.Errors(schema, value).First();
  if (!error) return;
  const field = error.path.slice(1).replaceAll("/", ".");
  const object = typeof value === "object" && value !== null && !Array.isArray(value);
  if (!field) throw VaultError.invalid(object ? whenEmpty : "the input must be a JSON object");
  if (error.schema[Kind] === "Never") throw VaultError.invalid(`${field}: no such field`);
  const words = error.schema.pattern !== undefined && error.schema.description ? error.schema.description : error.message;
  throw VaultError.invalid(`${field}: ${words}`);
}
