/** The vault's shapes, declared once in TypeBox: tool inputs, HTTP bodies and stored service settings. */
import { type Static, Type } from "@sinclair/typebox";

const Name = Type.String({ pattern: "^[a-z][a-z0-9-]{0,63}$", description: "lowercase letters, digits and dashes, starting with a letter" });
export const Method = Type.Union(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"].map((m) => Type.Literal(m)));
export type Method = Static<typeof Method>;

export const Injection = Type.Union([
  Type.Object({ type: Type.Literal("bearer") }),
  Type.Object({ type: Type.Literal("basic") }),
  Type.Object({ type: Type.Literal("header"), name: Type.String({ pattern: "^[A-Za-z0-9-]{1,64}$" }), prefix: Type.Optional(Type.String({ maxLength: 32 })) }),
  Type.Object({ type: Type.Literal("query"), name: Type.String({ pattern: "^[A-Za-z0-9_.-]{1,64}$" }) }),
  Type.Object({ type: Type.Literal("aws_sigv4"), region: Type.String({ pattern: "^[a-z0-9-]{1,32}$" }), service: Type.String({ pattern: "^[a-z0-9-]{1,32}$" }) }),
  Type.Object({ type: Type.Literal("connection_string") }),
  Type.Object({ type: Type.Literal("ssh_key") }),
]);
export type Injection = Static<typeof Injection>;

/** Address classes a service may reach besides the public internet; each must be allowed explicitly. */
export const AddressClass = Type.Union([Type.Literal("loopback"), Type.Literal("private"), Type.Literal("link_local"), Type.Literal("metadata")]);
export type AddressClass = Static<typeof AddressClass>;

export const Probe = Type.Object({ method: Method, path: Type.String({ pattern: "^/" }) });

/** What is stored for a service (never the credential): a template's defaults with the operator's overrides. */
export const ServiceSettings = Type.Object({
  base_url: Type.String({ minLength: 1 }),
  injection: Injection,
  allow_methods: Type.Array(Method),
  allow_paths: Type.Array(Type.String({ pattern: "^/" })),
  allow_addresses: Type.Array(AddressClass),
  headers: Type.Record(Type.String(), Type.String()),
  timeout_ms: Type.Integer({ minimum: 100, maximum: 300_000 }),
  max_response_bytes: Type.Integer({ minimum: 1024, maximum: 1024 ** 3 }),
  commands: Type.Array(Type.String({ minLength: 1 })),
  env: Type.Record(Type.String({ pattern: "^[A-Z_][A-Z0-9_]*$" }), Type.String()),
  probe: Type.Union([Probe, Type.Null()]),
});
export type ServiceSettings = Static<typeof ServiceSettings>;

export const Credential = Type.Record(Type.String({ pattern: "^[a-z_]{1,32}$" }), Type.String({ maxLength: 16_384 }));
export type Credential = Static<typeof Credential>;

/**
 * What an operator may set on a service besides its template's defaults. Each input object refuses fields it does
 * not name (`additionalProperties: false` would be stripped by Elysia's normalizing before validation; a
 * never-matching schema keeps the refusal), so a misspelt allowlist is an error, not a silently wider service.
 */
const serviceOverrides = {
  base_url: Type.Optional(Type.String({ maxLength: 2048 })),
  injection: Type.Optional(Injection),
  allow_methods: Type.Optional(Type.Array(Method)),
  allow_paths: Type.Optional(Type.Array(Type.String({ pattern: "^/", maxLength: 256 }), { maxItems: 64 })),
  allow_addresses: Type.Optional(Type.Array(AddressClass)),
  commands: Type.Optional(Type.Array(Type.String({ pattern: "^[A-Za-z0-9_.+-]{1,64}$" }), { maxItems: 32 })),
  env: Type.Optional(Type.Record(Type.String({ pattern: "^[A-Z_][A-Z0-9_]*$" }), Type.String({ pattern: "^[a-z_]{1,32}$" }))),
  timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 300_000 })),
  max_response_bytes: Type.Optional(Type.Integer({ minimum: 1024, maximum: 1024 ** 3 })),
  probe: Type.Optional(Type.Union([Probe, Type.Null()], { description: "null: the service has no HTTP probe" })),
};
export const overrideKeys = Object.keys(serviceOverrides) as (keyof typeof serviceOverrides)[];
const strict = { additionalProperties: Type.Never() };

export const AddServiceInput = Type.Object(
  {
    name: Name,
    template: Type.String({ minLength: 1, maxLength: 32, description: "a template name, or `custom`" }),
    credential: Credential,
    ...serviceOverrides,
  },
  strict,
);
export type AddServiceInput = Static<typeof AddServiceInput>;

/** A change to a service: any of its settings, and a new credential, which replaces the stored one whole. */
export const ChangeServiceInput = Type.Object({ credential: Type.Optional(Credential), ...serviceOverrides }, { ...strict, minProperties: 1 });
export type ChangeServiceInput = Static<typeof ChangeServiceInput>;

export const ApiCallInput = Type.Object({
  service: Type.String({ minLength: 1, maxLength: 64 }),
  method: Method,
  path: Type.String({ minLength: 1, maxLength: 4096, description: "path on the service, starting with /; never a host" }),
  query: Type.Optional(Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 4096 }))),
  headers: Type.Optional(Type.Record(Type.String({ maxLength: 256 }), Type.String({ maxLength: 8192 }))),
  body: Type.Optional(Type.String({ description: "request body as text (JSON bodies as their text)" })),
});
export type ApiCallInput = Static<typeof ApiCallInput>;

export const ApiCallResult = Type.Object({
  status: Type.Integer(),
  headers: Type.Record(Type.String(), Type.String()),
  body: Type.String({ description: "UTF-8 text, or base64 when bodyEncoding says so; credential values redacted" }),
  bodyEncoding: Type.Union([Type.Literal("utf8"), Type.Literal("base64")]),
});
export type ApiCallResult = Static<typeof ApiCallResult>;

export const ExecInput = Type.Object({
  service: Type.String({ minLength: 1, maxLength: 64 }),
  command: Type.String({ minLength: 1, maxLength: 64, description: "an allowlisted command name, e.g. git" }),
  args: Type.Array(Type.String({ maxLength: 8192 }), { maxItems: 256, default: [] }),
});
export type ExecInput = Static<typeof ExecInput>;

export const ExecResult = Type.Object({
  exitCode: Type.Union([Type.Integer(), Type.Null()]),
  stdout: Type.String(),
  stderr: Type.String(),
  timedOut: Type.Boolean(),
});
export type ExecResult = Static<typeof ExecResult>;

/** A service as callers see it: never its credential. */
export const ServiceView = Type.Object({
  name: Type.String(),
  template: Type.String(),
  base_url: Type.String(),
  injection: Type.Union(Injection.anyOf.map((kind) => kind.properties.type)),
  status: Type.Union([Type.Literal("unchecked"), Type.Literal("working"), Type.Literal("failing")]),
  status_reason: Type.Union([Type.String(), Type.Null()]),
  checked_at: Type.Union([Type.String(), Type.Null()]),
  allow_methods: Type.Array(Method),
  allow_paths: Type.Array(Type.String()),
  allow_addresses: Type.Array(AddressClass),
  commands: Type.Array(Type.String()),
});
export type ServiceView = Static<typeof ServiceView>;

export const CheckResult = Type.Object({
  service: Type.String(),
  ok: Type.Boolean(),
  status: Type.Optional(Type.Integer()),
  reason: Type.String(),
});
export type CheckResult = Static<typeof CheckResult>;

export const LoginInput = Type.Object({
  role_id: Type.String({ minLength: 1, maxLength: 128 }),
  secret_id: Type.String({ minLength: 1, maxLength: 256 }),
});
export type LoginInput = Static<typeof LoginInput>;

export const RoleInput = Type.Object({
  name: Name,
  services: Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { description: "services the role may use; `*` for all" }),
  token_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
  token_max_ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 30 * 86_400 })),
});
export type RoleInput = Static<typeof RoleInput>;

export const SecretIdInput = Type.Object({
  uses: Type.Optional(Type.Integer({ minimum: 1, description: "how many logins it allows; unlimited when absent" })),
  ttl_seconds: Type.Optional(Type.Integer({ minimum: 1 })),
});
export type SecretIdInput = Static<typeof SecretIdInput>;

/** Who asks over the admin socket: the CLI sends its user's name, which the audit trail records. */
const Operator = Type.String({ pattern: "^[A-Za-z0-9_.@-]{1,64}$" });
export const OperatorInput = Type.Object({ operator: Operator }, strict);

export const AdminTokenInput = Type.Object(
  {
    operator: Operator,
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 60, maximum: 30 * 86_400, description: "its lifetime; 3600 when left out" })),
  },
  strict,
);
export type AdminTokenInput = Static<typeof AdminTokenInput>;

export const IssuedAdminToken = Type.Object({ token: Type.String(), lease_id: Type.String(), expires_at: Type.String() });
export type IssuedAdminToken = Static<typeof IssuedAdminToken>;
