/**
 * The vault over HTTP, under /vault/v1: AppRole login and token renewal/revocation, then the same operations
 * as the MCP tools, each needing an agent's token (`X-Vault-Token` or `Authorization: Bearer`); and under
 * /vault/v1/admin the management of services, which needs an operator's admin token in the same headers (never a
 * cookie, so no page a browser visits can use it). A VaultError answers for itself (`toResponse()`:
 * `{ error: { code, message } }` with its status); malformed bodies get the runtime's VALIDATION_ERROR.
 */
import { Elysia, t } from "elysia";
import type { Caller } from "./approle.ts";
import { ApiCallInput, ExecInput, LoginInput, type AddServiceInput, type ChangeServiceInput } from "./model.ts";
import type { VaultService } from "./service.ts";

type Headers = Record<string, string | undefined>;
const tokenOf = (headers: Headers) => headers["x-vault-token"] ?? headers.authorization?.replace(/^Bearer\s+/i, "") ?? "";

export function vaultHttp(vault: VaultService) {
  /** Runs `run` for the caller `authenticate` finds behind the request's token; a refusal is audited. */
  const actingAs = (authenticate: (token: string) => Promise<Caller>) => async (headers: Headers, run: (caller: Caller) => unknown) => {
    await vault.store.assertUnsealed();
    let caller: Caller;
    try {
      caller = await authenticate(tokenOf(headers));
    } catch (error) {
      void vault.audit({ caller: "unauthenticated", operation: "authenticate" }, () => Promise.reject(error)).catch(() => {});
      throw error;
    }
    return run(caller);
  };
  const authed = actingAs((token) => vault.roles.authenticate(token));
  const admin = actingAs((token) => vault.admin.authenticate(token));
  const name = { params: t.Object({ name: t.String({ maxLength: 64 }) }) };
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
    .post("/services/:name/check", ({ headers, params }) => authed(headers, (caller) => vault.check(params.name, caller)), name)
    .post("/api_call", ({ headers, body, request }) => authed(headers, (caller) => vault.apiCall(body, caller, request.signal)), { body: ApiCallInput })
    .post("/exec", ({ headers, body }) => authed(headers, (caller) => vault.exec(body, caller)), { body: ExecInput })
    // No body schema on the admin routes: the caller is authenticated first, then the service function checks the
    // input itself (the same check the CLI and the setup page get), answering INVALID_REQUEST with the field.
    .get("/admin/services", ({ headers }) => admin(headers, async (caller) => ({ services: await vault.services(caller) })))
    .post("/admin/services", ({ headers, body, set }) =>
      admin(headers, async (caller) => {
        const added = await vault.addService(body as AddServiceInput, caller);
        set.status = 201;
        return added;
      }),
    )
    .patch("/admin/services/:name", ({ headers, params, body }) => admin(headers, (caller) => vault.changeService(params.name, body as ChangeServiceInput, caller)), name)
    .delete(
      "/admin/services/:name",
      ({ headers, params }) =>
        admin(headers, async (caller) => {
          await vault.removeService(params.name, caller);
          return new Response(null, { status: 204 });
        }),
      name,
    )
    .post("/admin/services/:name/check", ({ headers, params }) => admin(headers, (caller) => vault.check(params.name, caller)), name);
}
