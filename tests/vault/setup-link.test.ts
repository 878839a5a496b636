/**
 * What the owner of the data dir holds across processes: the setup page's one-time link (in the running server's
 * memory only, so a crash makes it worthless, and `vault setup-link` renews it while the server runs) and admin
 * tokens (leases, which the CLI issues or revokes as the data dir's owner while no server runs).
 */
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { adminSocketPath } from "../../src/vault/admin-socket.ts";
import { vaultCapability } from "../../src/vault/capability.ts";
import { recentAudit } from "../../src/vault/repo.ts";
import { startApp } from "../support/app.ts";
import { runPlatform, serve, type Running } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";

const dir = tempDir();
afterAll(() => dir.remove());

const env = { PLATFORM_VAULT__SETUP_PORT: "0" };
const vault = (data: string, ...args: string[]) => runPlatform(["vault", ...args, "--data-dir", data, "--log-level", "error"]);
const setupLinkOf = async (server: Running) =>
  new URL((JSON.parse(await server.waitForLine((l) => l.includes('"message":"vault setup page"'))) as { setupLink: string }).setupLink);

test("after SIGKILL and a restart, the old link is refused and the new one opens a session; setup-link renews it without a restart", async () => {
  const data = join(dir.path, "data");
  const first = await serve(data, { env });
  const old = await setupLinkOf(first);
  expect(await first.stop("SIGKILL")).not.toBe(0);

  // The dead server left its socket and lock behind; there is no link to renew, and the CLI says so.
  const none = await vault(data, "setup-link");
  expect(none.code).toBe(1);
  expect(none.stderr).toContain(`no server is running on data dir ${data}, so there is no setup link to renew`);

  const second = await serve(data, { env });
  try {
    const fresh = await setupLinkOf(second);
    expect(fresh.searchParams.get("once")).not.toBe(old.searchParams.get("once"));
    // The old link's token, shown to the new listener: refused, and it opens no session.
    const replayed = new URL(fresh);
    replayed.searchParams.set("once", old.searchParams.get("once")!);
    const refused = await fetch(replayed, { redirect: "manual" });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("set-cookie")).toBeNull();

    // Renewed from the CLI: the start-up link is worthless from now on, the new one works once.
    const renewed = await vault(data, "setup-link");
    expect(renewed.code).toBe(0);
    const link = (JSON.parse(renewed.stdout) as { setup_link: string }).setup_link;
    expect((await fetch(fresh, { redirect: "manual" })).status).toBe(401);
    const opened = await fetch(link, { redirect: "manual" });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("set-cookie")).toContain("platform_vault_setup=");
    await second.waitForLine((l) => l.includes('"message":"vault setup link renewed"'));
    expect(second.lines.join("\n")).not.toContain(new URL(link).searchParams.get("once")!);
  } finally {
    expect(await second.stop()).toBe(0);
  }
});

test("with no server running, the CLI issues and revokes admin tokens as the data dir's owner, and the next server honours both", async () => {
  const data = join(dir.path, "offline");
  const start = () => startApp([vaultCapability], { dataDir: data, env });
  mkdirSync(data);
  const never = await vault(data, "admin-token");
  expect([never.code, never.stderr]).toEqual([1, expect.stringContaining("the vault there was never set up; start the server once first")]);
  await (await start()).close();

  const issued = await vault(data, "admin-token", "--ttl", "600");
  expect(issued.code).toBe(0);
  const { token, lease_id } = JSON.parse(issued.stdout) as { token: string; lease_id: string };
  const services = (app: { base: string }) => fetch(`${app.base}/vault/v1/admin/services`, { headers: { authorization: `Bearer ${token}` } });

  let app = await start();
  try {
    expect(await (await services(app)).json()).toEqual({ services: [] });
    // A server that does not answer on its socket is not bypassed: the CLI refuses to act beside it.
    rmSync(adminSocketPath(loadConfig({ env: { PLATFORM_DATA_DIR: data } })));
    const beside = await vault(data, "revoke-admin-token", lease_id);
    expect([beside.code, beside.stderr]).toEqual([1, expect.stringContaining(`a server runs on data dir ${data} but does not answer on its admin socket`)]);
  } finally {
    await app.close();
  }

  const revoked = await vault(data, "revoke-admin-token", lease_id);
  expect([revoked.code, JSON.parse(revoked.stdout)]).toEqual([0, { revoked: lease_id }]);
  app = await start();
  try {
    expect((await services(app)).status).toBe(401);
    const audit = (await recentAudit(app.runtime.database.db, 10)).map((row) => `${row.operation}:${row.outcome}`);
    expect(audit).toEqual(expect.arrayContaining(["issue_admin_token:ok", "services:ok", "revoke_admin_token:ok"]));
  } finally {
    await app.close();
  }
});
