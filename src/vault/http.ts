/**
 * The vault over HTTP, under /vault/v1: AppRole login and token renewal/revocation, then the same operations
 * as the MCP tools, each needing a token (`X-Vault-Token` or `Authorization: Bearer`). Errors answer
 * `{ error: { code, message } }` with the status the error carries.
 */
import { Elysia, t } from "elysia";
import { VaultError } from "./errors.ts";
import { ApiCallInput, ExecInput, LoginInput } from "./model.ts";
import type { VaultService } from "./service.ts";

const tokenOf = (headers: Record<string, string | undefined>) =>
  headers["x-vault-token"] ?? headers.authorization?.replace(/^Bearer\s+/i, "") ?? undefined;

export const vaultHttp = (vault: VaultService) =>
  new Elysia({ name: "vault.http", prefix: "/vault/v1" })
    .onError(({ error, code, set }) => {
      if (error instanceof VaultError) {
        set.status = error.status;
        return error.toJSON();
      }
      if (code === "VALIDATION") {
        set.status = 400;
        const first = error.valueError;
        return { error: { code: "INVALID_REQUEST", message: `Invalid request at ${first?.path || "/"}: ${first?.message ?? "invalid"}` } };
      }
    })
    .get("/status", () => vault.store.status())
    .post("/auth/approle/login", ({ body }) => {
      vault.store.assertUnsealed();
      return vault.roles.login(body);
    }, { body: LoginInput })
    .post("/auth/token/renew", ({ headers }) => {
      vault.store.assertUnsealed();
      return vault.roles.renew(tokenOf(headers) ?? "");
    })
    .post("/auth/token/revoke", ({ headers, set }) => {
      vault.store.assertUnsealed();
      vault.roles.revoke(tokenOf(headers) ?? "");
      set.status = 204;
    })
    .resolve(({ headers }) => {
      vault.store.assertUnsealed();
      return { caller: vault.roles.authenticate(tokenOf(headers)) };
    })
    .get("/services", async ({ caller }) => ({ services: await vault.services(caller) }))
    .post("/services/:name/check", ({ params, caller }) => vault.check(params.name, caller), { params: t.Object({ name: t.String({ maxLength: 64 }) }) })
    .post("/api_call", ({ body, caller, request }) => vault.apiCall(body, caller, request.signal), { body: ApiCallInput })
    .post("/exec", ({ body, caller }) => vault.exec(body, caller), { body: ExecInput });
