/**
 * The vault's logic, free of any wire format: services and their credentials, api_call, exec, check, the
 * sanitizer over every configured value, and access for callers. HTTP routes, MCP tools, the setup page and
 * the hooks all go through here.
 */
import { join } from "node:path";
import { Value } from "@sinclair/typebox/value";
import type { ActorSystem } from "../../actors/system.ts";
import type { Config } from "../config.ts";
import { isUniqueViolation, type Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { AdminAccess } from "./admin.ts";
import { AppRoles, type Caller } from "./approle.ts";
import { createAudit, type Audit } from "./audit.ts";
import { assertValid, VaultError } from "./errors.ts";
import { runCommand } from "./exec.ts";
import { secretValues } from "./inject.ts";
import { Keyring } from "./keys.ts";
import { Leases } from "./leases.ts";
import {
  AddServiceInput,
  ChangeServiceInput,
  overrideKeys,
  ServiceSettings,
  type ApiCallInput,
  type ApiCallResult,
  type CheckResult,
  type ExecInput,
  type ExecResult,
  type Injection,
  type ServiceView,
} from "./model.ts";
import { proxyCall } from "./proxy.ts";
import * as repo from "./repo.ts";
import { Sanitizer, type TokenShape } from "./sanitizer.ts";
import { SecretStore } from "./store.ts";
import { credentialFields, findTemplate, type CredentialField, type Template } from "./templates.ts";
import type { VaultServiceRow } from "../db/schema.ts";

export type VaultConfig = Config["vault"];

export const keyDirOf = (config: Config) => config.vault.key_dir || join(config.data_dir, "vault-keys");

export interface Resolved {
  row: VaultServiceRow;
  template: Template;
  settings: ServiceSettings;
}

export class VaultService {
  readonly store: SecretStore;
  readonly leases: Leases;
  readonly roles: AppRoles;
  readonly admin: AdminAccess;
  readonly audit: Audit;
  /** Audited calls and lease events so far, by `operation\0outcome`, for /metrics. */
  readonly calls = new Map<string, number>();
  readonly config: VaultConfig;
  #sanitizer?: { sanitizer: Sanitizer; fingerprint: string };
  readonly #log: Logger;

  constructor(
    private readonly db: Db,
    actors: ActorSystem,
    log: Logger,
    config: Config,
  ) {
    this.config = config.vault;
    this.store = new SecretStore(db, new Keyring(keyDirOf(config)), { autoUnseal: config.vault.auto_unseal });
    const vaultLog = log.child({ component: "vault" });
    this.#log = vaultLog;
    this.audit = createAudit(db, vaultLog, ({ operation }, outcome) => {
      const key = `${operation}\0${outcome}`;
      this.calls.set(key, (this.calls.get(key) ?? 0) + 1);
    });
    this.leases = new Leases(actors, db, {
      policy: async (lease) => lease.context?.purpose === "token" && this.leases.usedSinceRenewal(lease.id) && (await this.roles.mayRenew(lease)),
      // The lease id stands in the path column: a lease event concerns no service or request.
      happened: (event, lease) => void this.audit.record({ caller: lease.context?.holder ?? "unknown", operation: event, path: `lease/${lease.id}` }, "ok"),
      log: vaultLog,
    });
    this.roles = new AppRoles(db, this.leases, {
      tokenTtlSeconds: config.vault.token_ttl_seconds,
      tokenMaxTtlSeconds: config.vault.token_max_ttl_seconds,
    });
    this.admin = new AdminAccess(this.leases, this.audit, { sessionSeconds: config.vault.setup_session_seconds });
  }

  // --- services ---

  /**
   * Adds a service from a template (or a custom one) with its credential. The setup page, the CLI and the admin
   * API all come here, so each rule (the input's shape, templates, URLs, egress classes, the credential's fields)
   * holds for all three.
   */
  addService(input: AddServiceInput, caller: Caller): Promise<ServiceView> {
    return this.audit({ caller: caller.name, operation: "add_service", service: input?.name }, async () => {
      await this.store.assertUnsealed();
      assertValid(AddServiceInput, input);
      const template = this.#template(input.template);
      if (await repo.findService(this.db, input.name)) throw new VaultError("SERVICE_EXISTS", `A service named ${input.name} already exists`);
      if (template.kind === "custom" && (!input.base_url || !input.injection))
        throw VaultError.invalid("a custom service needs base_url and injection");
      const settings = settingsFor(template.settings, input);
      assertFits(input.credential, credentialFields(template, settings.injection));
      const now = new Date();
      try {
        await this.db.transaction(async (tx) => {
          await repo.insertService(tx, { name: input.name, template: template.name, settings, status: "unchecked", statusReason: null, checkedAt: null, createdAt: now, updatedAt: now });
          await this.store.put(tx, secretId(input.name), input.credential);
        });
      } catch (error) {
        // Added meanwhile by another request or node.
        if (isUniqueViolation(error)) throw new VaultError("SERVICE_EXISTS", `A service named ${input.name} already exists`);
        throw error;
      }
      return view((await repo.findService(this.db, input.name))!);
    });
  }

  /**
   * Changes a service's settings (over what it has now) and, when one is given, replaces its credential. The
   * same rules as adding apply; the template stays (remove and add the service to change it). A changed service
   * is `unchecked` again: its last check no longer says anything about it.
   */
  changeService(name: string, change: ChangeServiceInput, caller: Caller): Promise<ServiceView> {
    return this.audit({ caller: caller.name, operation: "change_service", service: name }, async () => {
      await this.store.assertUnsealed();
      const row = await repo.findService(this.db, name);
      if (!row) throw unknownService(name);
      assertValid(ChangeServiceInput, change, "nothing to change: give a setting or a new credential");
      const settings = settingsFor(row.settings as ServiceSettings, change);
      const fields = credentialFields(findTemplate(row.template)!, settings.injection);
      if (change.credential) assertFits(change.credential, fields);
      else assertFits((await this.store.get(secretId(name))) ?? {}, fields, "; give a new credential with this change");
      await this.db.transaction(async (tx) => {
        await repo.updateService(tx, name, { settings, status: "unchecked", statusReason: null, checkedAt: null, updatedAt: new Date() });
        if (change.credential) await this.store.put(tx, secretId(name), change.credential);
      });
      return view((await repo.findService(this.db, name))!);
    });
  }

  /** The credential fields a new service of `template` takes with `injection` (the CLI prompts for them). */
  fieldsForNew(template: string, injection?: Injection): CredentialField[] {
    const found = this.#template(template);
    return credentialFields(found, injection ?? found.settings.injection);
  }

  /** The credential fields the service `name` takes, with `injection` when a change gives one. */
  async fieldsOf(name: string, injection?: Injection): Promise<CredentialField[]> {
    const row = await repo.findService(this.db, name);
    if (!row) throw unknownService(name);
    return credentialFields(findTemplate(row.template)!, injection ?? (row.settings as ServiceSettings).injection);
  }

  removeService(name: string, caller: Caller): Promise<void> {
    return this.audit({ caller: caller.name, operation: "remove_service", service: name }, async () => {
      await this.store.assertUnsealed();
      if (!(await repo.findService(this.db, name))) throw unknownService(name);
      await this.db.transaction(async (tx) => {
        await repo.deleteService(tx, name);
        await this.store.remove(tx, secretId(name));
      });
    });
  }

  services(caller: Caller): Promise<ServiceView[]> {
    return this.audit({ caller: caller.name, operation: "services" }, async () => {
      await this.store.assertUnsealed();
      return (await repo.listServices(this.db)).filter((row) => mayUse(caller, row.name)).map(view);
    });
  }

  // --- calls ---

  apiCall(input: ApiCallInput, caller: Caller, signal?: AbortSignal): Promise<ApiCallResult> {
    const entry = { caller: caller.name, operation: "api_call", service: input.service, method: input.method, path: input.path };
    return this.audit(
      entry,
      async () => {
        const { resolved, credential } = await this.#use(input.service, caller);
        return proxyCall(input, { settings: resolved.settings, credential, sanitizer: await this.sanitizer(), maxRequestBytes: this.config.max_request_bytes, signal });
      },
      (result) => result.status,
    );
  }

  check(service: string, caller: Caller): Promise<CheckResult> {
    return this.audit({ caller: caller.name, operation: "check", service }, async () => {
      const { resolved, credential } = await this.#use(service, caller);
      const sanitizer = await this.sanitizer();
      const probe = resolved.settings.probe;
      if (!probe) return { service, ok: false, reason: "this service has no HTTP probe; verify it with exec" };
      let result: CheckResult;
      try {
        const answer = await proxyCall(
          { service, method: probe.method, path: probe.path },
          { settings: { ...resolved.settings, allow_methods: [probe.method], allow_paths: [probe.path.split("?")[0]!] }, credential, sanitizer, maxRequestBytes: 0 },
        );
        const ok = answer.status >= 200 && answer.status < 300;
        result = { service, ok, status: answer.status, reason: ok ? "working" : `the service answered ${answer.status}` };
      } catch (error) {
        if (!(error instanceof VaultError) || error.code === "SEALED") throw error;
        result = { service, ok: false, reason: error.message };
      }
      await repo.setServiceStatus(this.db, service, result.ok ? "working" : "failing", result.ok ? null : result.reason);
      return result;
    }, (r) => r.status);
  }

  exec(input: ExecInput, caller: Caller): Promise<ExecResult> {
    return this.audit(
      { caller: caller.name, operation: "exec", service: input.service, method: "EXEC", path: input.command },
      async () => {
        const { resolved, credential } = await this.#use(input.service, caller);
        const sanitizer = await this.sanitizer();
        // The credential handed to the child is a lease: it ends when the command does, or the command ends with it.
        const lease = await this.leases.issue({ purpose: "exec", holder: input.service, ttlMs: this.config.exec_timeout_ms, maxExpiresAt: Date.now() + this.config.exec_timeout_ms, autoRenew: false });
        let stop: () => void = () => {};
        const unsubscribe = this.leases.onChange(lease.id, ({ state }) => {
          if (state === "expired" || state === "revoked") stop();
        });
        try {
          return await runCommand(input.command, input.args, {
            settings: resolved.settings,
            credential,
            sanitizer,
            path: this.config.exec_path,
            onStart: (kill) => {
              stop = kill;
              this.leases.activate(lease.id).catch((error) => this.#log.error("exec lease could not be activated", { leaseId: lease.id, error }));
            },
          });
        } finally {
          unsubscribe();
          if ((await this.leases.view(lease.id))?.state !== "expired") await this.leases.revoke(lease.id);
        }
      },
      (result) => result.exitCode ?? undefined,
    );
  }

  /**
   * A sanitizer over every configured service's values and token shapes; rebuilt when the stored secrets change,
   * in this process or another one on the same data dir.
   */
  async sanitizer(): Promise<Sanitizer> {
    await this.store.assertUnsealed();
    const fingerprint = await repo.secretsFingerprint(this.db);
    if (this.#sanitizer?.fingerprint === fingerprint) return this.#sanitizer.sanitizer;
    const values: { service: string; value: string }[] = [];
    const shapes: TokenShape[] = [];
    for (const row of await repo.listServices(this.db)) {
      const template = findTemplate(row.template)!;
      const settings = row.settings as ServiceSettings;
      const credential = (await this.store.get(secretId(row.name))) ?? {};
      for (const value of secretValues(credentialFields(template, settings.injection), credential)) values.push({ service: row.name, value });
      for (const pattern of template.tokenShapes) shapes.push({ service: row.name, pattern });
    }
    const sanitizer = new Sanitizer(values, shapes);
    this.#sanitizer = { sanitizer, fingerprint };
    return sanitizer;
  }

  #template(name: string): Template {
    const template = findTemplate(name);
    if (!template) throw new VaultError("UNKNOWN_TEMPLATE", `No template named ${name.slice(0, 32)}`);
    return template;
  }

  async #use(name: string, caller: Caller) {
    await this.store.assertUnsealed();
    const row = await repo.findService(this.db, name);
    if (!row) throw unknownService(name);
    if (!mayUse(caller, name)) throw new VaultError("PERMISSION_DENIED", `${caller.name} may not use ${name}`);
    const credential = await this.store.get(secretId(name));
    if (!credential) throw new VaultError("NOT_FOUND", `${name} has no stored credential`);
    return { resolved: { row, template: findTemplate(row.template)!, settings: row.settings as ServiceSettings }, credential };
  }
}

/** Where a service's credential is kept in the secret store. */
export const secretId = (service: string) => `service:${service}`;

/**
 * The credential stored for `service`, read in-process by another capability that must hold it itself (the chat
 * bot's token, which its gateway session sends; the infra server's repository host token); undefined when the
 * vault was never set up or has no such service. It opens the store on its own, so it works in a process that does
 * not host the vault. Never reaches an agent or a route. Throws the sealed error while the vault is sealed.
 */
export async function storedCredential(db: Db, config: Config, service: string): Promise<Record<string, string> | undefined> {
  const store = new SecretStore(db, new Keyring(keyDirOf(config)), { autoUnseal: config.vault.auto_unseal });
  if (!(await store.status()).initialized) return undefined;
  return store.get(secretId(service));
}

const mayUse = (caller: Caller, service: string) => caller.services.includes("*") || caller.services.includes(service);
const unknownService = (name: string) => new VaultError("UNKNOWN_SERVICE", `No service named ${name.slice(0, 64)}; see the services tool`);

/** Every field the credential needs is there, and none it does not take; `hint` says what to do when not. */
function assertFits(credential: Record<string, string>, fields: CredentialField[], hint = ""): void {
  for (const field of fields)
    if (!field.optional && !credential[field.name]) throw VaultError.invalid(`the credential needs ${field.name} (${field.label})${hint}`);
  const unknown = Object.keys(credential).find((name) => !fields.some((f) => f.name === name));
  if (unknown) throw VaultError.invalid(`the credential has no field ${unknown} for this service${hint}`);
}

/** `base` (a template's settings, or a service's current ones) with the operator's overrides, checked. */
function settingsFor(base: ServiceSettings, input: AddServiceInput | ChangeServiceInput): ServiceSettings {
  const overrides = Object.fromEntries(overrideKeys.filter((key) => input[key] !== undefined).map((key) => [key, input[key]]));
  const settings = { ...base, ...overrides } as ServiceSettings;
  let url: URL;
  try {
    url = new URL(settings.base_url);
  } catch {
    throw VaultError.invalid("base_url is not a URL");
  }
  const http = !["connection_string", "ssh_key"].includes(settings.injection.type);
  if (http && url.protocol !== "https:" && url.protocol !== "http:") throw VaultError.invalid("base_url must be http or https");
  if (url.username || url.password || url.hash) throw VaultError.invalid("base_url may not carry credentials or a fragment");
  if (!Value.Check(ServiceSettings, settings)) throw VaultError.invalid(`invalid service settings at ${Value.Errors(ServiceSettings, settings).First()?.path}`);
  return settings;
}

export function view(row: VaultServiceRow): ServiceView {
  const settings = row.settings as ServiceSettings;
  return {
    name: row.name,
    template: row.template,
    base_url: settings.base_url,
    injection: settings.injection.type,
    status: row.status,
    status_reason: row.statusReason,
    checked_at: row.checkedAt?.toISOString() ?? null,
    allow_methods: settings.allow_methods,
    allow_paths: settings.allow_paths,
    allow_addresses: settings.allow_addresses,
    commands: settings.commands,
  };
}
