/**
 * The built-in service templates: where each service lives, how its credential is injected, the probe `check`
 * runs, default allowlists, the commands `exec` may run with it, and the token shapes that identify its keys.
 */
import type { Injection, Method, ServiceSettings } from "./model.ts";

export type TemplateKind = "source-code" | "payments" | "ai" | "cloud" | "database" | "cache" | "ssh" | "custom";

export interface CredentialField {
  name: string;
  label: string;
  /** False for parts that identify rather than authenticate (a username, an access key id's region). */
  secret: boolean;
  optional?: boolean;
}

export interface Template {
  name: string;
  title: string;
  kind: TemplateKind;
  fields: CredentialField[];
  settings: ServiceSettings;
  /** Regular expressions (token characters only) for the shapes this service's keys take. */
  tokenShapes: string[];
}

const allMethods: Method[] = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"];
const token: CredentialField[] = [{ name: "token", label: "Token", secret: true }];
const connection: CredentialField[] = [{ name: "url", label: "Connection string", secret: true }];

const http = (base_url: string, injection: Injection, probe: ServiceSettings["probe"], extra: Partial<ServiceSettings> = {}): ServiceSettings => ({
  base_url,
  injection,
  allow_methods: allMethods,
  allow_paths: ["/**"],
  allow_addresses: [],
  headers: {},
  timeout_ms: 30_000,
  max_response_bytes: 10 * 1024 * 1024,
  commands: [],
  env: {},
  probe,
  ...extra,
});

const database = (scheme: string, port: number, commands: string[], env: Record<string, string>): ServiceSettings =>
  http(`${scheme}://localhost:${port}`, { type: "connection_string" }, null, { allow_methods: [], allow_paths: [], commands, env });

export const templates: Template[] = [
  {
    name: "github",
    title: "GitHub",
    kind: "source-code",
    fields: token,
    settings: http("https://api.github.com", { type: "bearer" }, { method: "GET", path: "/user" }, {
      headers: { accept: "application/vnd.github+json", "x-github-api-version": "2022-11-28" },
      commands: ["git", "gh"],
      env: { GH_TOKEN: "token", GITHUB_TOKEN: "token" },
    }),
    tokenShapes: ["gh[pousr]_[A-Za-z0-9]{36,251}", "github_pat_[A-Za-z0-9_]{22,255}"],
  },
  {
    name: "gitlab",
    title: "GitLab",
    kind: "source-code",
    fields: token,
    settings: http("https://gitlab.com/api/v4", { type: "header", name: "PRIVATE-TOKEN" }, { method: "GET", path: "/user" }, {
      commands: ["git", "glab"],
      env: { GITLAB_TOKEN: "token" },
    }),
    tokenShapes: ["glpat-[A-Za-z0-9_-]{20,}"],
  },
  {
    name: "bitbucket",
    title: "Bitbucket",
    kind: "source-code",
    fields: [
      { name: "username", label: "Username", secret: false },
      { name: "password", label: "App password", secret: true },
    ],
    settings: http("https://api.bitbucket.org/2.0", { type: "basic" }, { method: "GET", path: "/user" }, { commands: ["git"] }),
    tokenShapes: ["ATBB[A-Za-z0-9_=.-]{20,}"],
  },
  {
    name: "stripe",
    title: "Stripe",
    kind: "payments",
    fields: [{ name: "token", label: "Secret key", secret: true }],
    settings: http("https://api.stripe.com", { type: "bearer" }, { method: "GET", path: "/v1/balance" }, {
      commands: ["stripe"],
      env: { STRIPE_API_KEY: "token" },
    }),
    tokenShapes: ["[sr]k_(live|test)_[A-Za-z0-9]{10,247}"],
  },
  {
    name: "openai",
    title: "OpenAI",
    kind: "ai",
    fields: [{ name: "token", label: "API key", secret: true }],
    settings: http("https://api.openai.com", { type: "bearer" }, { method: "GET", path: "/v1/models" }, { env: { OPENAI_API_KEY: "token" } }),
    tokenShapes: ["sk-(proj-|svcacct-)?[A-Za-z0-9_-]{20,}"],
  },
  {
    name: "anthropic",
    title: "Anthropic",
    kind: "ai",
    fields: [{ name: "token", label: "API key", secret: true }],
    settings: http("https://api.anthropic.com", { type: "header", name: "x-api-key" }, { method: "GET", path: "/v1/models" }, {
      headers: { "anthropic-version": "2023-06-01" },
      env: { ANTHROPIC_API_KEY: "token" },
    }),
    tokenShapes: ["sk-ant-[A-Za-z0-9_-]{20,}"],
  },
  {
    name: "mistral",
    title: "Mistral AI",
    kind: "ai",
    fields: [{ name: "token", label: "API key", secret: true }],
    settings: http("https://api.mistral.ai", { type: "bearer" }, { method: "GET", path: "/v1/models" }, { env: { MISTRAL_API_KEY: "token" } }),
    tokenShapes: [],
  },
  {
    name: "aws",
    title: "Amazon Web Services",
    kind: "cloud",
    fields: [
      { name: "access_key_id", label: "Access key id", secret: false },
      { name: "secret_access_key", label: "Secret access key", secret: true },
      { name: "session_token", label: "Session token", secret: true, optional: true },
    ],
    settings: http("https://sts.amazonaws.com", { type: "aws_sigv4", region: "us-east-1", service: "sts" }, {
      method: "GET",
      path: "/?Action=GetCallerIdentity&Version=2011-06-15",
    }, {
      commands: ["aws"],
      env: { AWS_ACCESS_KEY_ID: "access_key_id", AWS_SECRET_ACCESS_KEY: "secret_access_key", AWS_SESSION_TOKEN: "session_token" },
    }),
    tokenShapes: ["(AKIA|ASIA)[A-Z0-9]{16}"],
  },
  {
    name: "gcp",
    title: "Google Cloud",
    kind: "cloud",
    fields: [{ name: "token", label: "OAuth access token", secret: true }],
    settings: http("https://cloudresourcemanager.googleapis.com", { type: "bearer" }, { method: "GET", path: "/v1/projects" }, {
      commands: ["gcloud"],
      env: { CLOUDSDK_AUTH_ACCESS_TOKEN: "token" },
    }),
    tokenShapes: ["ya29\\.[A-Za-z0-9_-]{20,}", "eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{10,}"],
  },
  {
    name: "azure",
    title: "Microsoft Azure",
    kind: "cloud",
    fields: [{ name: "token", label: "Access token", secret: true }],
    settings: http("https://management.azure.com", { type: "bearer" }, { method: "GET", path: "/subscriptions?api-version=2022-12-01" }, {
      commands: ["az"],
    }),
    tokenShapes: ["eyJ[A-Za-z0-9_-]{5,}\\.eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{10,}"],
  },
  {
    name: "cloudflare",
    title: "Cloudflare",
    kind: "cloud",
    fields: [{ name: "token", label: "API token", secret: true }],
    settings: http("https://api.cloudflare.com/client/v4", { type: "bearer" }, { method: "GET", path: "/user/tokens/verify" }, {
      commands: ["wrangler"],
      env: { CLOUDFLARE_API_TOKEN: "token" },
    }),
    tokenShapes: [],
  },
  {
    name: "postgresql",
    title: "PostgreSQL",
    kind: "database",
    fields: connection,
    settings: database("postgresql", 5432, ["psql", "pg_dump"], { DATABASE_URL: "url" }),
    tokenShapes: [],
  },
  {
    name: "mysql",
    title: "MySQL",
    kind: "database",
    fields: connection,
    settings: database("mysql", 3306, ["mysql", "mysqldump"], { DATABASE_URL: "url" }),
    tokenShapes: [],
  },
  {
    name: "mongodb",
    title: "MongoDB",
    kind: "database",
    fields: connection,
    settings: database("mongodb", 27017, ["mongosh"], { MONGODB_URI: "url" }),
    tokenShapes: [],
  },
  {
    name: "redis",
    title: "Redis",
    kind: "cache",
    fields: connection,
    settings: database("redis", 6379, ["redis-cli"], { REDIS_URL: "url" }),
    tokenShapes: [],
  },
  {
    name: "ssh",
    title: "SSH",
    kind: "ssh",
    fields: [{ name: "private_key", label: "Private key (OpenSSH)", secret: true }],
    settings: http("ssh://localhost:22", { type: "ssh_key" }, null, { allow_methods: [], allow_paths: [], commands: ["ssh", "scp", "git"] }),
    tokenShapes: [],
  },
];

/** For services that follow no template: any base URL and injection, given when the service is added. */
export const customTemplate: Template = {
  name: "custom",
  title: "Custom service",
  kind: "custom",
  fields: token,
  settings: http("https://example.invalid", { type: "bearer" }, null),
  tokenShapes: [],
};

const byName = new Map([...templates, customTemplate].map((t) => [t.name, t]));
export const findTemplate = (name: string): Template | undefined => byName.get(name);

/** The credential fields an injection method needs (for custom services). */
export function fieldsFor(injection: Injection): CredentialField[] {
  switch (injection.type) {
    case "basic":
      return [
        { name: "username", label: "Username", secret: false },
        { name: "password", label: "Password", secret: true },
      ];
    case "aws_sigv4":
      return findTemplate("aws")!.fields;
    case "connection_string":
      return connection;
    case "ssh_key":
      return findTemplate("ssh")!.fields;
    default:
      return token;
  }
}

/**
 * The credential fields a service takes: its template's (with their labels), unless it is custom or injects its
 * credential another way than its template does; then those its injection needs.
 */
export const credentialFields = (template: Template, injection: Injection): CredentialField[] =>
  template.kind === "custom" || injection.type !== template.settings.injection.type ? fieldsFor(injection) : template.fields;
