/**
 * `vault:<service>` passwords for fill_login_form: the password is read from the vault's encrypted store in this
 * process and handed to the driver, so the assistant that asked never sees it. Only services listed in
 * `browser.login_services` may be used this way, and each use is written to the vault's audit trail.
 */
import type { Db } from "../db/client.ts";
import type { Logger } from "../log.ts";
import { createAudit } from "../vault/audit.ts";
import { VaultError } from "../vault/errors.ts";
import { findService } from "../vault/repo.ts";
import { secretId } from "../vault/service.ts";
import type { SecretStore } from "../vault/store.ts";
import { BrowserServiceError } from "./errors.ts";

const reference = /^vault:([a-z][a-z0-9-]{0,63})$/;

export interface Password {
  value: string;
  source: "text" | "vault";
}

export class LoginCredentials {
  readonly #audit;

  constructor(
    private readonly db: Db,
    private readonly secrets: () => SecretStore,
    private readonly allowed: string[],
    log: Logger,
  ) {
    this.#audit = createAudit(db, log.child({ component: "browser" }));
  }

  /** The password to type: the text itself, or the service's password (or token) when it names the vault. */
  async resolve(password: string, caller: string): Promise<Password> {
    if (!password.startsWith("vault:")) return { value: password, source: "text" };
    const service = reference.exec(password)?.[1];
    if (!service) throw BrowserServiceError.validation("A vault reference is vault:<service>, with the service's name in lowercase letters, digits and dashes");
    if (!this.allowed.includes("*") && !this.allowed.includes(service))
      throw BrowserServiceError.validation(`The browser may not use the vault service ${service}; an operator can list it in browser.login_services`, { service });
    try {
      const value = await this.#audit({ caller, operation: "browser_login", service }, async () => {
        const store = this.secrets();
        await store.assertUnsealed();
        if (!(await findService(this.db, service))) throw new VaultError("UNKNOWN_SERVICE", `The vault has no service named ${service}`);
        const credential = (await store.get(secretId(service))) ?? {};
        const secret = credential.password ?? credential.token;
        if (!secret) throw VaultError.invalid(`The vault service ${service} holds no password or token`);
        return secret;
      });
      return { value, source: "vault" };
    } catch (error) {
      if (!(error instanceof VaultError)) throw error;
      const type = error.code === "UNKNOWN_SERVICE" ? "NotFoundError" : error.code === "SEALED" ? "BrowserError" : "ValidationError";
      throw new BrowserServiceError(type, error.message, { service, vault: error.code });
    }
  }
}
