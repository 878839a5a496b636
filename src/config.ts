/**
 * The one typed configuration. Sources, later ones winning: defaults < platform.yaml < environment < CLI flags.
 * Keys are snake_case everywhere; `PLATFORM_<SECTION>__<KEY>` reaches any key from the environment.
 */
import { FormatRegistry, type Static, type TSchema, Type, Kind } from "@sinclair/typebox";
import { Value, type ValueError, ValueErrorType } from "@sinclair/typebox/value";

/** String formats the configuration checks, with how an error message states each. */
const formats: Record<string, { check: (value: string) => boolean; allowed: string }> = {
  // Scheme, host and port, as a browser's Origin header carries them; the URL parse refuses what a pattern
  // cannot, such as a port above 65535.
  origin: {
    check: (value) => /^https?:\/\/[^/?#\s]+$/.test(value) && URL.canParse(value),
    allowed: "a web origin such as https://app.example:8080 (no path)",
  },
};
for (const [name, { check }] of Object.entries(formats)) FormatRegistry.Set(name, check);

const Section = <T extends Parameters<typeof Type.Object>[0]>(properties: T) =>
  Type.Object(properties, { additionalProperties: false, default: {} });

export const ConfigSchema = Type.Object(
  {
    environment: Type.Union([Type.Literal("production"), Type.Literal("development")], { default: "production" }),
    data_dir: Type.String({ minLength: 1, default: "./data" }),
    server: Section({
      host: Type.String({ minLength: 1, default: "0.0.0.0" }),
      port: Type.Integer({ minimum: 0, maximum: 65535, default: 8443 }),
      body_limit: Type.Integer({ minimum: 1024, maximum: 1024 ** 3, default: 1024 * 1024 }),
      /** Arrays and objects inside one another in a JSON body, at most; deeper bodies are refused before parsing. */
      max_json_depth: Type.Integer({ minimum: 1, maximum: 10_000, default: 64 }),
      shutdown_timeout_ms: Type.Integer({ minimum: 0, maximum: 600_000, default: 10_000 }),
    }),
    log: Section({
      level: Type.Union([Type.Literal("error"), Type.Literal("warn"), Type.Literal("info"), Type.Literal("debug")], {
        default: "info",
      }),
      /** `pretty` for a person, `json` lines for machines; `auto` is pretty at a terminal and JSON elsewhere. */
      format: Type.Union([Type.Literal("auto"), Type.Literal("pretty"), Type.Literal("json")], { default: "auto" }),
      /** One line per HTTP request (method, route, status, duration, request id, caller), at info. */
      access: Type.Boolean({ default: true }),
    }),
    actors: Section({
      retention_seconds: Type.Integer({ minimum: 0, default: 3600 }),
    }),
    /** The store: SQLite in data_dir by default; a PostgreSQL URL (or DATABASE_URL) lets several nodes share one. */
    database: Section({
      /** postgres://user:password@host:port/database; empty means the SQLite file <data_dir>/platform.db. */
      url: Type.String({ default: "" }),
      /** Connections each node keeps open to PostgreSQL at most (one more listens for notifications). */
      pool_size: Type.Integer({ minimum: 1, maximum: 1000, default: 10 }),
      /** How long a query waits for a connection to PostgreSQL before the request fails with 503. */
      connect_timeout_ms: Type.Integer({ minimum: 100, maximum: 600_000, default: 3000 }),
      /** How long PostgreSQL may take over one statement before it is cancelled and the request fails with 503. */
      statement_timeout_ms: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 30_000 }),
    }),
    /** Several nodes on one PostgreSQL store: docs/deploy.md. */
    cluster: Section({
      /** This node's name in the store; empty means one made at start. A stable name lets a restart reclaim its actors at once. */
      node_id: Type.String({ default: "", pattern: "^([A-Za-z0-9._-]{1,64})?$" }),
      /** How long a node that stopped renewing keeps its actors before another node takes them over. */
      lease_ms: Type.Integer({ minimum: 500, maximum: 600_000, default: 10_000 }),
    }),
    mcp: Section({
      default_server: Type.String({ minLength: 1, default: "platform" }),
      /** Web origins, besides this machine's own, whose pages may call MCP over HTTP (DNS-rebinding guard). */
      allowed_origins: Type.Array(Type.String({ format: "origin" }), { default: [] }),
    }),
    catalog: Section({
      /** Requests per window for a signed-in customer or an API key, and for an unauthenticated client address. */
      rate_limit_authenticated: Type.Integer({ minimum: 1, default: 1000 }),
      rate_limit_anonymous: Type.Integer({ minimum: 1, default: 100 }),
      rate_limit_window_seconds: Type.Integer({ minimum: 1, default: 3600 }),
      access_token_seconds: Type.Integer({ minimum: 10, maximum: 86_400, default: 900 }),
      refresh_token_seconds: Type.Integer({ minimum: 60, default: 30 * 86_400 }),
      /** HS256 signing key file; empty means catalog-jwt.key in data_dir, created (mode 0600) when missing. */
      jwt_key_file: Type.String({ default: "" }),
      /** Product reads (list, search, by id) without a credential, for a public storefront. */
      public_reads: Type.Boolean({ default: false }),
      /** Web origins whose pages may call /v2 from a browser (CORS), or "*" for any; none by default. */
      cors_origins: Type.Array(Type.Union([Type.String({ format: "origin" }), Type.Literal("*")]), { default: [] }),
    }),
    identity: Section({
      trust_domain: Type.String({ minLength: 1, maxLength: 255, default: "platform.local" }),
      /** This workload's id; empty means spiffe://<trust_domain>/platform. */
      spiffe_id: Type.String({ default: "" }),
      /** An X.509 SVID kept on disk by spiffe-helper or a SPIRE agent; empty means the development CA. */
      svid: Section({
        cert_file: Type.String({ default: "" }),
        key_file: Type.String({ default: "" }),
        bundle_file: Type.String({ default: "" }),
      }),
      /** Encrypts the development CA's keys in the data dir; empty in development means a generated one. */
      key_passphrase: Type.String({ default: "" }),
      mtls: Section({
        enabled: Type.Boolean({ default: false }),
        host: Type.String({ minLength: 1, default: "0.0.0.0" }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8444 }),
        /** A2A callers without a verified SPIFFE id are denied before policy runs. */
        required: Type.Boolean({ default: true }),
      }),
    }),
    authorization: Section({
      provider: Type.Union([Type.Literal("embedded"), Type.Literal("opa")], { default: "embedded" }),
      engine_endpoint: Type.String({ minLength: 1, default: "http://127.0.0.1:8181" }),
      policy_path: Type.String({ minLength: 1, pattern: "^[A-Za-z_][A-Za-z0-9_]*(/[A-Za-z_][A-Za-z0-9_]*)*$", default: "platform/authz" }),
      /** Folder whose *.rego files (tests excepted) and data.json the embedded engine loads; empty means the built-in policies. */
      policy_dir: Type.String({ default: "" }),
      default_action: Type.Literal("deny", { default: "deny" }),
      timeout_ms: Type.Integer({ minimum: 1, maximum: 60_000, default: 500 }),
      /** Decision cache lifetime (keyed on the whole input and the policy version); 0 turns the cache off. */
      cache_ttl_ms: Type.Integer({ minimum: 0, maximum: 600_000, default: 1000 }),
      audit: Section({
        enabled: Type.Boolean({ default: true }),
        /**
         * file://<path>, syslog://host:port[?transport=tcp], kafka://host:port/topic, or store:// (the authz_audit table
         * of the store this node uses). Empty means store:// on a store several nodes share (PostgreSQL), else
         * <data_dir>/audit.jsonl.
         */
        destination: Type.String({ default: "" }),
        buffer_size: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 10_000 }),
      }),
      opa_api: Section({
        enabled: Type.Boolean({ default: false }),
        host: Type.String({ minLength: 1, default: "127.0.0.1" }),
        port: Type.Integer({ minimum: 0, maximum: 65535, default: 8181 }),
        /** The document `POST /` answers with, as OPA's default_decision. */
        default_decision: Type.String({ default: "/system/main", pattern: "^(/[A-Za-z_][A-Za-z0-9_]*)+$" }),
        /** Each decision answer carries a `decision_id`, as OPA's do with decision logging on. */
        decision_ids: Type.Boolean({ default: false }),
      }),
      /** An OPA bundle (.tar.gz) the embedded engine is fed from: activated whole at start-up and on each new revision. */
      bundle: Section({
        /** A file path or an http(s) URL (polled with its ETag); empty: no bundle. */
        source: Type.String({ default: "" }),
        name: Type.String({ minLength: 1, default: "platform", pattern: "^[A-Za-z0-9_.-]+$" }),
        polling_seconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 60 }),
      }),
    }),
    a2a: Section({
      /** The base URL other agents reach this one at; empty: http://<host>:<port> of the listener. */
      public_url: Type.String({ default: "", pattern: "^(https?://.+)?$" }),
      spiffe_id: Type.String({ minLength: 1, default: "spiffe://platform.local/platform", pattern: "^spiffe://" }),
      /** The skill (task type) a message naming none runs; empty: such a message is refused, naming the skills. */
      default_skill: Type.String({ default: "" }),
      /** Skills the public card lists; empty lists all. Set, the full list is the extended card, for authenticated callers. */
      public_skills: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      /** Push notifications to clients' webhooks: docs/a2a.md. */
      push: Section({
        /** Address classes a webhook may resolve to besides public ones (as for vault services). */
        allow_addresses: Type.Array(Type.Union([Type.Literal("loopback"), Type.Literal("private"), Type.Literal("link_local"), Type.Literal("metadata")]), {
          default: [],
        }),
        max_attempts: Type.Integer({ minimum: 1, maximum: 50, default: 8 }),
        /** The wait after a first failed attempt; doubled after each further one, up to max_delay_ms. */
        retry_ms: Type.Integer({ minimum: 10, maximum: 3_600_000, default: 1000 }),
        max_delay_ms: Type.Integer({ minimum: 10, maximum: 86_400_000, default: 300_000 }),
        timeout_ms: Type.Integer({ minimum: 100, maximum: 300_000, default: 10_000 }),
      }),
    }),
    chat: Section({
      /** The bot token; set it with CHAT_TOKEN (or token_from_vault), never in a file others read. */
      token: Type.String({ default: "" }),
      /** A vault service whose stored `token` is the bot token, read in-process so it never sits in the environment. */
      token_from_vault: Type.String({ default: "", maxLength: 64 }),
      /** Base of a Discord-compatible REST API, without the version (v10 is appended). */
      api_base: Type.String({ default: "https://discord.com/api", pattern: "^https?://.+" }),
      /** The gateway to connect to; empty means the one GET /gateway/bot names. */
      gateway_url: Type.String({ default: "", pattern: "^(wss?://.+)?$" }),
      /** Gateway intents by name (Guilds, GuildMembers, ...); Guilds keeps the guild and channel cache. */
      intents: Type.Array(Type.String({ minLength: 1 }), { default: ["Guilds"] }),
      /** Guild ids the tools may touch; empty means every guild the bot is in. */
      allowed_guilds: Type.Array(Type.String({ pattern: "^\\d{17,19}$" }), { default: [] }),
      /** List only the tools that read. */
      read_only: Type.Boolean({ default: false }),
      /** Destructive tools refuse unless called with confirm: true. */
      confirm_destructive: Type.Boolean({ default: true }),
      /** A rate-limit wait longer than this is answered as RateLimitError with the wait, instead of waiting. */
      max_wait_ms: Type.Integer({ minimum: 0, maximum: 600_000, default: 5000 }),
      /** Requests per second across all routes (Discord's global limit for a bot). */
      global_requests_per_second: Type.Integer({ minimum: 1, maximum: 100_000, default: 50 }),
      request_timeout_ms: Type.Integer({ minimum: 100, maximum: 600_000, default: 15_000 }),
      /** Reconnect backoff: the first retry is immediate, then base, doubling up to max. */
      reconnect_base_ms: Type.Integer({ minimum: 1, maximum: 600_000, default: 1000 }),
      reconnect_max_ms: Type.Integer({ minimum: 1, maximum: 3_600_000, default: 60_000 }),
    }),
    vault: Section({
      /** Directory of the key files, apart from the database; empty means `<data_dir>/vault-keys`. */
      key_dir: Type.String({ default: "" }),
      /** Unseal at start-up from the unseal key file; otherwise the vault starts sealed until `vault unseal`. */
      auto_unseal: Type.Boolean({ default: true }),
      setup_enabled: Type.Boolean({ default: true }),
      setup_port: Type.Integer({ minimum: 0, maximum: 65535, default: 9470 }),
      setup_session_seconds: Type.Integer({ minimum: 60, maximum: 7 * 86_400, default: 8 * 3600 }),
      token_ttl_seconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 900 }),
      token_max_ttl_seconds: Type.Integer({ minimum: 1, maximum: 30 * 86_400, default: 86_400 }),
      max_request_bytes: Type.Integer({ minimum: 1024, maximum: 1024 ** 3, default: 1024 * 1024 }),
      exec_timeout_ms: Type.Integer({ minimum: 100, maximum: 3_600_000, default: 60_000 }),
      /** Where `exec` looks up allowlisted commands. */
      exec_path: Type.String({ minLength: 1, default: "/usr/local/bin:/usr/bin:/bin" }),
      /** Let MCP calls without a verified caller use every service: set only for a local stdio server. */
      trust_local_mcp: Type.Boolean({ default: false }),
    }),
    infra: Section({
      /** The folder every workspace path is resolved in; empty: /mnt/workspace when it exists, else <data_dir>/workspace. */
      workspace_root: Type.String({ default: "" }),
      /** The tofu or terraform executable; empty: tofu (PATH, then the tools cache), else terraform on PATH. */
      binary: Type.String({ default: "" }),
      /** The terraform-ls executable; empty: PATH, then the tools cache. */
      language_server: Type.String({ default: "" }),
      /** Offer apply and destroy, of a plan this server saved and only with its hash. */
      allow_apply: Type.Boolean({ default: false }),
      run_timeout_seconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 1800 }),
      /** After a cancellation's SIGINT, how long a run may finish before it is killed. */
      cancel_grace_ms: Type.Integer({ minimum: 0, maximum: 600_000, default: 10_000 }),
      /** A run's output in a result is cut to its last this many bytes; the full log stays on disk. */
      max_output_bytes: Type.Integer({ minimum: 1024, maximum: 16 * 1024 ** 2, default: 32 * 1024 }),
      lsp_timeout_ms: Type.Integer({ minimum: 100, maximum: 600_000, default: 30_000 }),
    }),
    vcs: Section({
      /** The repository host's REST API: GitHub, GitHub Enterprise (https://host/api/v3) or Gitea (https://host/api/v1). */
      api_base: Type.String({ pattern: "^https?://[^\\s]+$", default: "https://api.github.com" }),
      /** The vault service whose `token` authenticates; VCS_TOKEN is read when the vault has none. */
      vault_service: Type.String({ minLength: 1, default: "github" }),
      clone_timeout_seconds: Type.Integer({ minimum: 1, maximum: 86_400, default: 600 }),
    }),
    browser: Section({
      /** Chromium to drive; empty means `chromium` on PATH (Debian's /usr/bin/chromium) or the tools cache. */
      executable: Type.String({ default: "" }),
      /** Live sessions at most (each its own Chromium); a request beyond waits for one to free up. */
      max_sessions: Type.Integer({ minimum: 1, maximum: 64, default: 4 }),
      /** Launched sessions kept ready for the next caller, beyond max_sessions; the pool warms on first use. */
      warm_sessions: Type.Integer({ minimum: 0, maximum: 8, default: 1 }),
      idle_timeout_seconds: Type.Integer({ minimum: 1, maximum: 7 * 86_400, default: 900 }),
      launch_timeout_ms: Type.Integer({ minimum: 1000, maximum: 300_000, default: 30_000 }),
      /** How long one browser action (click, fill, wait) may take. */
      action_timeout_ms: Type.Integer({ minimum: 100, maximum: 300_000, default: 10_000 }),
      navigation_timeout_ms: Type.Integer({ minimum: 100, maximum: 300_000, default: 30_000 }),
      /** How long a whole test run or playbook may take. */
      run_timeout_ms: Type.Integer({ minimum: 1000, maximum: 3_600_000, default: 300_000 }),
      /** How long a session may wait for a free slot when every session is busy. */
      queue_timeout_ms: Type.Integer({ minimum: 0, maximum: 600_000, default: 30_000 }),
      /** Pages an exploratory test loads at once. */
      crawl_concurrency: Type.Integer({ minimum: 1, maximum: 16, default: 4 }),
      /** A page whose load takes longer is reported slow. */
      slow_page_ms: Type.Integer({ minimum: 100, maximum: 120_000, default: 3000 }),
      /** A screenshot larger than this is sent to an assistant as a smaller JPEG, or not at all. */
      max_image_bytes: Type.Integer({ minimum: 10_000, maximum: 20_000_000, default: 800_000 }),
      /** Where navigation may go: host globs such as `*.example.com`; empty allows every host not denied. */
      allowed_hosts: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      denied_hosts: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      /** When set, REST, WebSocket and MCP over HTTP need `Authorization: Bearer <one of these>`. */
      api_keys: Type.Array(Type.String({ minLength: 16 }), { default: [] }),
      /** An extra listener for clients of the original server, e.g. `0.0.0.0:8765`; empty means none. */
      listen: Type.String({ default: "", pattern: "^(\\[?[^\\s\\]]*\\]?:[0-9]{1,5})?$" }),
      /** Vault services whose password fill_login_form may type (`vault:<service>`); `*` for all. */
      login_services: Type.Array(Type.String({ minLength: 1 }), { default: [] }),
      /** Screenshots, traces and run artifacts; empty means `<data_dir>/browser`. */
      artifacts_dir: Type.String({ default: "" }),
      /** Relaunches of a session whose browser died, before it is closed for good. */
      max_restarts: Type.Integer({ minimum: 0, maximum: 100, default: 3 }),
    }),
  },
  { additionalProperties: false },
);
export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = "ConfigError";
}

/** Where each value came from, so an error can say `(from PORT)` rather than leave the reader guessing. */
type Origins = Map<string, string>;

export interface ConfigSources {
  /** Contents of platform.yaml, already read; `file` names it in errors. */
  yaml?: { text: string; file: string };
  env?: Record<string, string | undefined>;
  /** Values from CLI flags, e.g. `{ key: "server.port", flag: "--port", value: "9000" }`. */
  flags?: { key: string; flag: string; value?: string }[];
}

const envAliases: Record<string, string> = {
  PORT: "server.port",
  HOST: "server.host",
  LOG_LEVEL: "log.level",
  LOG_FORMAT: "log.format",
  PLATFORM_ENV: "environment",
  CHAT_TOKEN: "chat.token",
  DATABASE_URL: "database.url",
};
const notConfigKeys = new Set(["PLATFORM_CONFIG"]);

export function loadConfig({ yaml, env = {}, flags = [] }: ConfigSources = {}): Config {
  const raw: Record<string, unknown> = {};
  const origins: Origins = new Map();
  if (yaml) {
    let parsed: unknown;
    try {
      parsed = Bun.YAML.parse(yaml.text);
    } catch (error) {
      throw new ConfigError(`Invalid configuration: ${yaml.file} is not valid YAML: ${(error as Error).message}`);
    }
    if (parsed !== null && parsed !== undefined) {
      if (typeof parsed !== "object" || Array.isArray(parsed))
        throw new ConfigError(`Invalid configuration: ${yaml.file} must hold a mapping of keys`);
      mergeFile(raw, parsed as Record<string, unknown>, "", yaml.file, origins);
    }
  }
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    const key = envAliases[name] ?? envKey(name);
    if (key) assign(raw, key, fromText(key, value), name, origins);
  }
  for (const { key, flag, value } of flags) if (value !== undefined) assign(raw, key, fromText(key, value), flag, origins);
  const config = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw)) as Config;
  const error = Value.Errors(ConfigSchema, config).First();
  if (error) throw new ConfigError(describe(error, origins));
  return config;
}

/** The schema at a key's path (`["mcp", "allowed_origins"]`; `[]` is the whole configuration), if it exists. */
const schemaAt = (path: string[]): TSchema | undefined =>
  path.reduce<TSchema | undefined>((node, part) => node?.properties?.[part], ConfigSchema);

/** A value from the environment or a flag is text; a list is written comma-separated (`a, b`). */
const fromText = (key: string, value: string): unknown =>
  schemaAt(key.split("."))?.type === "array" ? value.split(",").map((item) => item.trim()).filter(Boolean) : value;

function envKey(name: string): string | undefined {
  if (!name.startsWith("PLATFORM_") || notConfigKeys.has(name)) return undefined;
  return name.slice("PLATFORM_".length).toLowerCase().split("__").join(".");
}

function mergeFile(target: Record<string, unknown>, source: Record<string, unknown>, prefix: string, file: string, origins: Origins) {
  for (const [key, value] of Object.entries(source)) {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      const child = (target[key] ??= {}) as Record<string, unknown>;
      mergeFile(child, value as Record<string, unknown>, path, file, origins);
    } else {
      target[key] = value;
      origins.set(path, file);
    }
  }
}

function assign(target: Record<string, unknown>, dotted: string, value: unknown, origin: string, origins: Origins) {
  const parts = dotted.split(".");
  let node = target;
  for (const part of parts.slice(0, -1)) {
    const next = node[part];
    node = (next !== null && typeof next === "object" ? next : (node[part] = {})) as Record<string, unknown>;
  }
  node[parts.at(-1)!] = value;
  origins.set(dotted, origin);
}

function describe({ type, path, value, schema }: ValueError, origins: Origins): string {
  const key = path.split("/").filter(Boolean).join(".");
  // The key itself, a key under it (a section), or one above it (a list the bad item is in).
  const from = origins.get(key) ?? [...origins].find(([k]) => k.startsWith(`${key}.`) || key.startsWith(`${k}.`))?.[1];
  const source = from ? ` (from ${from})` : "";
  if (type === ValueErrorType.ObjectAdditionalProperties) {
    const parent = schemaAt(key.split(".").slice(0, -1));
    return `Invalid configuration: unknown key ${key}${source}; allowed keys here: ${Object.keys(parent?.properties ?? {}).join(", ")}`;
  }
  return `Invalid configuration: ${key} is ${JSON.stringify(value)}${source}; allowed: ${allowed(schema)}`;
}

/** A person's description of what a schema accepts. */
export function allowed(schema: TSchema): string {
  if (schema.format in formats) return formats[schema.format]!.allowed;
  if (schema.anyOf?.every((s: TSchema) => s.const !== undefined)) return `one of ${schema.anyOf.map((s: TSchema) => JSON.stringify(s.const)).join(", ")}`;
  if (schema.anyOf) return schema.anyOf.map((s: TSchema) => (s.const !== undefined ? JSON.stringify(s.const) : allowed(s))).join(", or ");
  const kind = schema[Kind] === "Integer" ? "an integer" : schema[Kind] === "Number" ? "a number" : `a ${schema.type}`;
  const range =
    schema.minimum !== undefined && schema.maximum !== undefined
      ? ` from ${schema.minimum} to ${schema.maximum}`
      : schema.minimum !== undefined
        ? ` of at least ${schema.minimum}`
        : "";
  const length = schema.minLength ? " (not empty)" : "";
  const pattern = schema.pattern ? ` matching ${schema.pattern}` : "";
  return `${kind}${range}${length}${pattern}`;
}
