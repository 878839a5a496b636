/**
 * How the stand-in's REST routes are declared and how they fail, in Discord's wire format (Reference > Error
 * Messages; Opcodes and Status Codes > JSON): `{ code, message }`, and for an invalid form body `errors` nested by
 * field with `_errors: [{ code, message }]` at each leaf.
 */
import type { BucketRule } from "./limits.ts";
import type { Json, World } from "./world.ts";

export interface ApiRequest {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The JSON body, or the `payload_json` part (and plain fields) of a multipart one. */
  body: Json;
  files: File[];
  /** The X-Audit-Log-Reason header, decoded. */
  reason?: string;
  world: World;
  /** The stand-in's gateway URL, for GET /gateway/bot. */
  gatewayUrl: string;
}

export type Handler = (request: ApiRequest) => unknown;

export interface Route {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  /** Discord's route template, with `:name` parameters, under /api/v10. */
  path: string;
  handler: Handler;
  /** Routes a webhook's token authenticates take no bot token. */
  auth?: false;
  /** Defaults to a bucket of its own with a generous limit (see StandInOptions.limit). */
  bucket?: Omit<BucketRule, "limit" | "windowMs"> & Partial<BucketRule>;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: Json,
  ) {
    super(message);
  }

  toResponse(): Response {
    return Response.json({ code: this.code, message: this.message, ...(this.errors ? { errors: this.errors } : {}) }, { status: this.status });
  }
}

/** Discord's JSON error codes the stand-in answers with. */
export const unknown = {
  account: () => new ApiError(404, 10001, "Unknown Account"),
  channel: () => new ApiError(404, 10003, "Unknown Channel"),
  guild: () => new ApiError(404, 10004, "Unknown Guild"),
  invite: () => new ApiError(404, 10006, "Unknown Invite"),
  member: () => new ApiError(404, 10007, "Unknown Member"),
  message: () => new ApiError(404, 10008, "Unknown Message"),
  overwrite: () => new ApiError(404, 10009, "Unknown Permission Overwrite"),
  role: () => new ApiError(404, 10011, "Unknown Role"),
  user: () => new ApiError(404, 10013, "Unknown User"),
  emoji: () => new ApiError(404, 10014, "Unknown Emoji"),
  webhook: () => new ApiError(404, 10015, "Unknown Webhook"),
  ban: () => new ApiError(404, 10026, "Unknown Ban"),
  sticker: () => new ApiError(404, 10060, "Unknown Sticker"),
  command: () => new ApiError(404, 10063, "Unknown application command"),
  automodRule: () => new ApiError(404, 10066, "Unknown auto moderation rule"),
  event: () => new ApiError(404, 10070, "Unknown Guild Scheduled Event"),
};
/** Throws `error` where an expression is expected: `find(id) ?? fail(unknown.channel())`. */
export const fail = (error: ApiError): never => {
  throw error;
};

export const missingAccess = () => new ApiError(403, 50001, "Missing Access");
export const missingPermissions = () => new ApiError(403, 50013, "Missing Permissions");

/** 50035 with one field's error, the field given as a path (`embeds.0.title`). */
export function invalidForm(field: string, code: string, message: string): ApiError {
  const errors: Json = {};
  let node = errors;
  const parts = field.split(".");
  for (const part of parts.slice(0, -1)) node = node[part] = {};
  node[parts.at(-1)!] = { _errors: [{ code, message }] };
  return new ApiError(400, 50035, "Invalid Form Body", errors);
}

/** Checks a string field's length the way Discord's form validation words it. */
export function checkLength(body: Json, field: string, min: number, max: number, required = false): void {
  const value = body[field];
  if (value === undefined || value === null) {
    if (required) throw invalidForm(field, "BASE_TYPE_REQUIRED", "This field is required");
    return;
  }
  if (typeof value !== "string") throw invalidForm(field, "BASE_TYPE_STRING", "Could not interpret the value as string.");
  if (value.length < min || value.length > max)
    throw invalidForm(field, "BASE_TYPE_BAD_LENGTH", `Must be between ${min} and ${max} in length.`);
}
