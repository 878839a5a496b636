/**
 * `platform vault service add|change|list|remove|check`. A service's settings come from options named after the
 * admin API's fields (`--base-url` sets `base_url`, ...); its credential only from stdin (./secret-input.ts), never
 * from the command line. Each action is the same service function the setup page and the admin API call, so every
 * rule (templates, URLs, egress classes, allowlists, the credential's fields) is theirs, and each is audited.
 */
import type { Caller } from "../vault/approle.ts";
import type { ChangeServiceInput, Injection } from "../vault/model.ts";
import type { VaultService } from "../vault/service.ts";
import { readCredential } from "./secret-input.ts";
import { UsageError, type Options, type Values } from "./verb.ts";

type Parse = (text: string) => unknown;

const list: Parse = (text) =>
  text
    .split(",")
    .map((item) => item.trim())
    .filter(Boolean);
/** Plain digits become a number; anything else stays text, which the service refuses in its own words. */
const integer: Parse = (text) => (/^\d{1,15}$/.test(text) ? Number(text) : text);
const pairs: Parse = (text) => Object.fromEntries((list(text) as string[]).map((pair) => [pair.split("=")[0], pair.slice(pair.indexOf("=") + 1)]));
const probe: Parse = (text) => {
  if (text === "none") return null;
  const [method, path] = text.includes(" ") ? text.split(/\s+/, 2) : ["GET", text];
  return { method, path };
};
const injectionForms = "bearer, basic, header:<name>[:<prefix>], query:<name>, aws_sigv4:<region>:<service>, connection_string or ssh_key";
const injection: Parse = (text): Injection => {
  const [type, first, second] = text.split(":");
  const needs = (...parts: (string | undefined)[]) => {
    if (parts.some((part) => !part)) throw new UsageError(`--injection: one of ${injectionForms}`);
  };
  switch (type) {
    case "bearer":
    case "basic":
    case "connection_string":
    case "ssh_key":
      return { type };
    case "header":
      needs(first);
      return second === undefined ? { type, name: first! } : { type, name: first!, prefix: second };
    case "query":
      needs(first);
      return { type, name: first! };
    case "aws_sigv4":
      needs(first, second);
      return { type, region: first!, service: second! };
  }
  throw new UsageError(`--injection: one of ${injectionForms}`);
};

/** Each setting's option: the field it sets, how its text is read, and its help line. */
const settings: Record<string, { field: Exclude<keyof ChangeServiceInput, "credential">; parse: Parse; help: string }> = {
  "base-url": { field: "base_url", parse: String, help: "--base-url <url>     where the service lives (custom services need it)" },
  injection: { field: "injection", parse: injection, help: `--injection <how>    how the credential is sent: ${injectionForms}` },
  "allow-methods": { field: "allow_methods", parse: list, help: "--allow-methods <a,b>  HTTP methods agents may use" },
  "allow-paths": { field: "allow_paths", parse: list, help: "--allow-paths <a,b>  paths agents may call (globs such as /repos/**)" },
  "allow-addresses": { field: "allow_addresses", parse: list, help: "--allow-addresses <a,b>  address classes besides public ones: loopback, private, link_local, metadata" },
  commands: { field: "commands", parse: list, help: "--commands <a,b>     commands `exec` may run with the credential" },
  "exec-env": { field: "env", parse: pairs, help: "--exec-env <VAR=field,...>  environment variables `exec` sets from credential fields" },
  "timeout-ms": { field: "timeout_ms", parse: integer, help: "--timeout-ms <n>     upstream time limit" },
  "max-response-bytes": { field: "max_response_bytes", parse: integer, help: "--max-response-bytes <n>  largest answer passed on" },
  probe: { field: "probe", parse: probe, help: "--probe <[METHOD ]path|none>  the request `check` makes" },
};

export const serviceOptions = {
  template: { type: "string" },
  ...Object.fromEntries(Object.keys(settings).map((flag) => [flag, { type: "string" }])),
  credential: { type: "boolean" },
} as const satisfies Options;

export const serviceHelp: Record<string, string> = {
  template: "--template <name>    service add: the template (github, aws, ..., or custom)",
  ...Object.fromEntries(Object.entries(settings).map(([flag, { help }]) => [flag, help])),
  credential: "--credential         service change: replace the credential too (read from stdin as for add)",
};

const actions = "add <name> --template <t>, change <name>, list, remove <name>, check <name>";

/** Runs one service action for `caller`; returns what to print and the exit code. */
export async function serviceAction(vault: VaultService, caller: Caller, values: Values, [action, name, ...extra]: (string | undefined)[]): Promise<{ output: unknown; code: number }> {
  if (!isAction(action)) throw new UsageError(action ? `unknown service action '${action}'; one of: ${actions}` : `say what to do: ${actions}`);
  if (extra.length) throw new UsageError(`unexpected argument '${extra[0]}'`);
  const given = Object.keys(settings).filter((flag) => values[flag] !== undefined);
  const changes = Object.fromEntries(given.map((flag) => [settings[flag]!.field, settings[flag]!.parse(values[flag] as string)]));
  if (action !== "add" && values.template !== undefined)
    throw new UsageError(action === "change" ? "a service's template cannot change; remove the service and add it again" : "--template is for service add");
  if (action !== "add" && action !== "change" && (given.length || values.credential)) throw new UsageError(`--${given[0] ?? "credential"} is for service add and change`);
  if (action === "list") {
    if (name) throw new UsageError(`unexpected argument '${name}'`);
    return { output: { services: await vault.services(caller) }, code: 0 };
  }
  if (!name) throw new UsageError(`usage: platform vault service ${action} <name>`);
  switch (action) {
    case "add": {
      const template = values.template as string | undefined;
      if (!template) throw new UsageError("service add needs --template <name> (a template, or custom)");
      const credential = await readCredential(vault.fieldsForNew(template, changes.injection as Injection | undefined));
      return { output: await vault.addService({ name, template, credential, ...changes }, caller), code: 0 };
    }
    case "change": {
      const credential = values.credential ? await readCredential(await vault.fieldsOf(name, changes.injection as Injection | undefined)) : undefined;
      return { output: await vault.changeService(name, { ...changes, ...(credential ? { credential } : {}) }, caller), code: 0 };
    }
    case "remove":
      await vault.removeService(name, caller);
      return { output: { removed: name }, code: 0 };
    case "check": {
      const result = await vault.check(name, caller);
      return { output: result, code: result.ok ? 0 : 1 };
    }
  }
}

const isAction = (action: string | undefined): action is "add" | "change" | "list" | "remove" | "check" =>
  action === "add" || action === "change" || action === "list" || action === "remove" || action === "check";
