/**
 * Every path of a vault token's lease on a real server process, with short lifetimes: unused, used, revoked,
 * expired, and a restart in each live state. Each path must end as it should while /health stays quick (the
 * server's own event-loop figure) and SIGTERM still stops the server. An unused token once sent its lease into a
 * loop that never yielded, and every restart on that data dir did it again.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { platform, serve, type Running } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";

const dir = tempDir();
afterAll(() => dir.remove());
// A token lives 2 s and is renewed at 1.33 s while in use, up to 30 s.
const env = { PLATFORM_VAULT__TOKEN_TTL_SECONDS: "2", PLATFORM_VAULT__TOKEN_MAX_TTL_SECONDS: "30", PLATFORM_VAULT__SETUP_PORT: "0" };

async function cli(dataDir: string, ...args: string[]) {
  const child = platform(["vault", ...args, "--data-dir", dataDir], { env });
  const [code, out] = await Promise.all([child.exited, new Response(child.stdout).text()]);
  if (code !== 0) throw new Error(`vault ${args.join(" ")} exited ${code}: ${await new Response(child.stderr).text()}`);
  return JSON.parse(out);
}

/** A role and a secret id that allows any number of logins, on a fresh data dir. */
async function prepared(name: string) {
  const dataDir = join(dir.path, name);
  const { role_id } = await cli(dataDir, "role", "ci", "--services", "*");
  const { secret_id } = await cli(dataDir, "secret-id", "ci");
  return { dataDir, role_id, secret_id };
}

const vault = (server: Running, path: string, token?: string, init: RequestInit = {}) =>
  fetch(`${server.url}/vault/v1${path}`, { ...init, headers: { "content-type": "application/json", ...(token ? { "x-vault-token": token } : {}) } });

async function login(server: Running, credentials: { role_id: string; secret_id: string }) {
  const res = await vault(server, "/auth/approle/login", undefined, { method: "POST", body: JSON.stringify(credentials) });
  expect(res.status).toBe(200);
  return (await res.json()) as { token: string; lease_id: string };
}

/** Resolves with the audit log line of `operation` on lease `id` (the audit trail logs each record). */
const audited = (server: Running, id: string, operation: string) =>
  server.waitForLine((line) => line.includes(`"operation":"${operation}"`) && line.includes(`lease/${id}`));

/**
 * /health answers, and the server's event loop has not stood still for long in the last minute: the loop this
 * guards against never ended; the bound leaves room for a machine busy with the test's other processes.
 */
async function healthy(server: Running) {
  const res = await fetch(`${server.url}/health`);
  expect(res.status).toBe(200);
  const { subsystems } = (await res.json()) as { subsystems: { eventLoop: { maxLagMs: number } } };
  expect(subsystems.eventLoop.maxLagMs).toBeLessThan(500);
}

async function stops(server: Running) {
  expect(await server.stop("SIGTERM")).toBe(0);
  expect(server.lines.some((line) => line.includes('"message":"stopped"'))).toBe(true);
}

test("unused, used and revoked tokens each end as they should while the server stays responsive", async () => {
  const { dataDir, ...credentials } = await prepared("paths");
  const server = await serve(dataDir, { env });
  try {
    const [unused, used, revoked] = [await login(server, credentials), await login(server, credentials), await login(server, credentials)];
    // Used before its renewal point, the second token is renewed there; left unused after that, it is not.
    expect((await vault(server, "/services", used.token)).status).toBe(200);
    expect((await vault(server, "/auth/token/revoke", revoked.token, { method: "POST" })).status).toBe(204);
    expect((await vault(server, "/services", revoked.token)).status).toBe(401);

    await audited(server, unused.lease_id, "lease_not_renewed");
    await healthy(server);
    // Not renewed, an unused token still works until it expires...
    expect((await vault(server, "/services", unused.token)).status).toBe(200);
    await audited(server, used.lease_id, "lease_renewed");
    await audited(server, unused.lease_id, "lease_expired");
    // ... and is refused after.
    expect((await vault(server, "/services", unused.token)).status).toBe(401);
    await audited(server, used.lease_id, "lease_not_renewed");
    await audited(server, used.lease_id, "lease_expired");
    expect((await vault(server, "/services", used.token)).status).toBe(401);
    await healthy(server);
    // The revoked token's lease was never decided on or expired: it had ended.
    expect(server.lines.some((line) => line.includes(`lease/${revoked.lease_id}`))).toBe(false);
  } finally {
    await stops(server);
  }
}, 30_000);

test("a restart in each live state carries every lease on to its end, and never into a loop", async () => {
  const { dataDir, ...credentials } = await prepared("restart");
  const first = await serve(dataDir, { env });
  const leases: Record<"issued" | "active" | "renewing" | "expiring", string> = { issued: "", active: "", renewing: "", expiring: "" };
  for (const state of Object.keys(leases) as (keyof typeof leases)[]) leases[state] = (await login(first, credentials)).lease_id;
  await stops(first);

  // What a process killed at each instant leaves behind: the lease's stored snapshot in that state. (`renewing`
  // is the state the loop started from, and every restart on that data dir found it there again.)
  const db = new Database(join(dataDir, "platform.db"));
  const put = db.query("UPDATE actors SET snapshot = json_set(snapshot, '$.value', ?1, '$.context.deadline', json_extract(snapshot, '$.context.expiresAt')), state = json_quote(?1) WHERE id = ?2");
  for (const state of ["issued", "renewing", "expiring"] as const) put.run(state, leases[state]);
  db.close();

  const second = await serve(dataDir, { env });
  try {
    await audited(second, leases.renewing, "lease_not_renewed");
    await healthy(second);
    for (const id of Object.values(leases)) await audited(second, id, "lease_expired");
    await healthy(second);
    // The active one reached its renewal point unused, and was declined once, like the restored `renewing` one.
    const decided = (id: string) => second.lines.filter((line) => line.includes(`lease/${id}`) && line.includes('"operation":"lease_not_renewed"'));
    expect(decided(leases.active)).toHaveLength(1);
    expect(decided(leases.renewing)).toHaveLength(1);
    expect(decided(leases.expiring)).toHaveLength(0);
    expect(decided(leases.issued)).toHaveLength(0);
  } finally {
    await stops(second);
  }
}, 30_000);
