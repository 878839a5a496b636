/**
 * The vault over HTTP, under /vault/v1: AppRole login and token renewal/revocation, then the same operations
 * as the MCP tools, each needing a token (`X-Vault-Token` or `Authorization: Bearer`). A VaultError answers
 * for itself (`toResponse()`: `{ error: { code, message } }` with its status); malformed bodies get the
 * runtime's VALIDATION_ERROR.
 */
import { Elysia, t } from "elysia";
import type { Caller } from "./approle.ts";
import { ApiCallInput, ExecInput, LoginInput } from "./model.ts";
import type { VaultService } from "./service.ts";

type Headers = Record<string, string | undefined>;
const tokenOf = (headers: Headers) => headers["x-vault-token"] ?? headers.authorization?.replace(/^Bearer\s+/i, "") ?? "";

export function vaultHttp(vault: VaultService) {
  const authed = async (headers: Headers, run: (caller: Caller) => unknown) => {
    await vault.store.assertUnsealed();
    return run(await authenticate(headers));
  };
  const authenticate = async (headers: Headers): Promise<Caller> => {
    try {
      return await vault.roles.authenticate(tokenOf(headers));
    } catch (error) {
      void vault.audit({ caller: "unauthenticated", operation: "authenticate" }, () => Promise.reject(error)).catch(() => {});
      throw error;
    }
  };
  const unsealed = async (run: () => unknown) => {
    await vault.store.assertUnsealed();
    return run();
  };

  return new Elysia({ name: "vault.http", prefix: "/vault/v1" })
    .get("/status", () => vault.store.status())
    .post("/auth/approle/login", ({ body }) => unsealed(() => vault.audit({ caller: "approle", operation: "login" }, async () => vault.roles.login(body))), { body: LoginInput })
    .post("/auth/token/renew", ({ headers }) => unsealed(() => vault.roles.renew(tokenOf(headers))))
    .post("/auth/token/revoke", ({ headers }) =>
      unsealed(async () => {
        await vault.roles.revoke(tokenOf(headers));
        return new Response(null, { status: 204 });
      }),
    )
    .get("/services", ({ headers }) => authed(headers, async (caller) => ({ services: await vault.services(caller) })))
    .post("/services/:name/check", ({ headers, params }) => authed(headers, (caller) => vault.check(params.name, caller)), {
      params: t.Object({ name: t.String({ maxLength: 64 }) }),
    })
    .post("/api_call", ({ headers, body, request }) => authed(headers, (caller) => vault.apiCall(body, caller, request.signal)), { body: ApiCallInput })
    .post("/exec", ({ headers, body }) => authed(headers, (caller) => vault.exec(body, caller)), { body: ExecInput });
}
