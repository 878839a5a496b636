/**
 * The vault's admin socket: HTTP on a Unix socket in the key dir, which only the key dir's owner can open (the
 * directory is 0700, the socket 0600; a browser cannot reach a Unix socket at all). The CLI asks the running
 * server here for what only that process can do: renew the setup page's one-time link, which lives in its memory
 * on purpose, and issue or revoke admin tokens, leases whose live copy is the owner's.
 *
 *   POST /setup-link               {operator}                 -> {setup_link, expires_at}
 *   POST /admin-tokens             {operator, ttl_seconds?}   -> {token, lease_id, expires_at}
 *   POST /admin-tokens/:id/revoke  {operator}                 -> 204
 *
 * Failures answer `{ error: { code, message } }` like /vault/v1.
 */
import { chmodSync, existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Elysia } from "elysia";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { assertValid, VaultError } from "./errors.ts";
import { AdminTokenInput, OperatorInput } from "./model.ts";
import { keyDirOf, type VaultService } from "./service.ts";
import type { SetupServer } from "./setup/server.ts";

export const adminSocketPath = (config: Config) => join(keyDirOf(config), "admin.sock");

export interface AdminSocket {
  stop(): Promise<void>;
}

/**
 * Listens on `path`; undefined (and a warning logged) when it cannot, which leaves the rest of the server
 * serving. A socket file left by a process that died is replaced; one another server still answers on is not.
 */
export async function startAdminSocket(path: string, vault: VaultService, setup: () => SetupServer | undefined, log: Logger): Promise<AdminSocket | undefined> {
  if (existsSync(path)) {
    if (await answers(path)) {
      log.warn("vault admin socket not started: another server answers on it", { path });
      return undefined;
    }
    rmSync(path, { force: true });
  }
  const operator = (body: unknown) => {
    assertValid(OperatorInput, body);
    return body.operator;
  };
  const app = new Elysia()
    .onError(({ error, code }) => {
      if (error instanceof VaultError) return error.toResponse();
      if (code === "PARSE") return VaultError.invalid("the request body is not JSON").toResponse();
      log.error("vault admin socket error", { error });
      return Response.json({ error: { code: "INTERNAL", message: "internal error; the server log has the details" } }, { status: 500 });
    })
    .post("/setup-link", async ({ body }) => {
      const by = operator(body);
      const page = setup();
      if (!page) throw new VaultError("NOT_FOUND", "This server runs no setup page (vault.setup_enabled is false, or its port was taken: see the server's log)");
      const renewed = page.renewLink();
      await vault.audit.record({ caller: `cli:${by}`, operation: "renew_setup_link" }, "ok");
      log.info("vault setup link renewed", { by, url: page.url });
      return { setup_link: renewed.link, expires_at: renewed.expiresAt.toISOString() };
    })
    .post("/admin-tokens", ({ body }) => vault.admin.issueToken(body as AdminTokenInput))
    .post("/admin-tokens/:id/revoke", async ({ body, params }) => {
      await vault.admin.revokeToken(params.id, `cli:${operator(body)}`);
      return new Response(null, { status: 204 });
    });
  // Made 0600 as it is bound (umask), not after: no moment in which others may connect.
  const umask = process.umask(0o177);
  try {
    app.listen({ unix: path });
  } catch (error) {
    log.warn("vault admin socket not started", { path, error });
    return undefined;
  } finally {
    process.umask(umask);
  }
  chmodSync(path, 0o600);
  return {
    async stop() {
      await app.stop(true);
      rmSync(path, { force: true });
    },
  };
}

/** Whether a server accepts connections on the socket at `path`. */
async function answers(path: string): Promise<boolean> {
  try {
    const socket = await Bun.connect({ unix: path, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}
