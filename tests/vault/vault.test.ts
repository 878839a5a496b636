import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { keyDirOf } from "../../src/vault/service.ts";
import { githubToken, githubUpstream, startVault, type Harness } from "./harness.ts";
import { logLines } from "../support/log-lines.ts";
import { failOnStalls } from "../support/loop.ts";
import { stores, storesForFile } from "../support/stores.ts";

failOnStalls();

const fixture = storesForFile();
const github = githubUpstream();
afterAll(() => github.stop(true));
const setupCaller = { name: "setup", services: ["*"] };

describe.each(stores)("on %s", (kind) => {
let h: Harness;
let client: Client;
// The vault's log: a lease event's audit line is written once its row is.
const logs = logLines("info");

beforeAll(async () => {
  const store = await fixture.fresh(kind);
  h = await startVault({ PLATFORM_VAULT__TRUST_LOCAL_MCP: "true", PLATFORM_VAULT__TOKEN_TTL_SECONDS: "30", ...store.env }, logs.log);
  await h.capability.vault.addService(
    { name: "gh", template: "github", credential: { token: githubToken }, base_url: `http://127.0.0.1:${github.port}`, allow_addresses: ["loopback"] },
    setupCaller,
  );
  client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.base}/mcp/vault`)));
});
afterAll(async () => {
  await client.close();
  await h.close();
});

const post = (path: string, body: unknown, token?: string) =>
  fetch(`${h.base}/vault/v1${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token ? { "x-vault-token": token } : {}) },
    body: JSON.stringify(body),
  });

test("the MCP server lists the four tools and api_call answers sanitized", async () => {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name).sort()).toEqual(["api_call", "check", "exec", "services"]);
  const result = await client.callTool({ name: "api_call", arguments: { service: "gh", method: "GET", path: "/echo" } });
  expect(result.isError).toBeFalsy();
  const text = (result.content as { text: string }[])[0]!.text;
  expect(text).toContain("[REDACTED:gh]");
  expect(text).not.toContain(githubToken);
  const bad = await client.callTool({ name: "api_call", arguments: { service: "gh", method: "GET", path: "/../etc" } });
  expect(bad.isError).toBe(true);
  expect((bad.content as { text: string }[])[0]!.text).toStartWith("[INVALID_REQUEST]");
});

test("AppRole: both ids log in; the token works over HTTP; revoked or wrong secret_ids are refused", async () => {
  const roles = h.capability.vault.roles;
  const { role_id } = await roles.createRole({ name: "ci", services: ["gh"] });
  const once = await roles.createSecretId("ci", { uses: 1 });
  expect((await post("/auth/approle/login", { role_id, secret_id: "psi_wrong" })).status).toBe(401);
  const login = await post("/auth/approle/login", { role_id, secret_id: once.secret_id });
  expect(login.status).toBe(200);
  const { token, lease_id } = (await login.json()) as { token: string; lease_id: string };
  expect((await post("/auth/approle/login", { role_id, secret_id: once.secret_id })).status).toBe(401); // used up

  const call = await post("/api_call", { service: "gh", method: "GET", path: "/user" }, token);
  expect(call.status).toBe(200);
  expect(((await call.json()) as { status: number }).status).toBe(200);
  expect((await h.capability.vault.leases.view(lease_id))?.state).toBe("active");
  expect((await post("/api_call", { service: "gh", method: "GET", path: "/user" })).status).toBe(401);

  await roles.revokeSecretId(once.accessor);
  expect((await h.capability.vault.leases.view(lease_id))?.state).toBe("revoked");
  const refused = await post("/api_call", { service: "gh", method: "GET", path: "/user" }, token);
  expect(refused.status).toBe(401);
  expect(await refused.json()).toMatchObject({ error: { code: "UNAUTHENTICATED" } });
});

test("a token in use is renewed at its renewal point; one left unused is not, and expires at its deadline; each is audited", async () => {
  const { vault } = h.capability;
  const { role_id } = await vault.roles.createRole({ name: "short", services: ["gh"], token_ttl_seconds: 10 });
  const { secret_id } = await vault.roles.createSecretId("short");
  const issued = await vault.roles.login({ role_id, secret_id });
  const id = issued.lease_id;
  const states: string[] = [];
  const arrived = (state: string) => {
    const { promise, resolve } = Promise.withResolvers<void>();
    const off = vault.leases.onChange(id, (l) => l.state === state && (off(), resolve()));
    return promise;
  };
  vault.leases.onChange(id, (l) => void states.push(l.state));
  // Used, then at its renewal point (the persisted deadline fires) it is renewed, not expired.
  await vault.roles.authenticate(issued.token);
  const renewed = arrived("active");
  await h.runtime.actors.send(vault.leases.kind, id, { type: "DEADLINE" });
  await renewed;
  expect((await vault.leases.view(id))!.context!.renewals).toBe(1);
  // Unused since: at the next renewal point the decision is made once, on a later turn, and the lease only waits.
  const expiring = arrived("expiring");
  await h.runtime.actors.send(vault.leases.kind, id, { type: "DEADLINE" });
  await expiring;
  // Used again before it expires: renewed then.
  const late = arrived("active");
  await vault.roles.authenticate(issued.token);
  await late;
  expect((await vault.leases.view(id))!.context!.renewals).toBe(2);
  // Left unused through the next renewal point, it expires at its deadline.
  const unused = arrived("expiring");
  await h.runtime.actors.send(vault.leases.kind, id, { type: "DEADLINE" });
  await unused;
  await h.runtime.actors.send(vault.leases.kind, id, { type: "DEADLINE" });
  expect((await vault.leases.view(id))?.state).toBe("expired");
  expect(states).toEqual(["renewing", "active", "renewing", "expiring", "active", "renewing", "expiring", "expired"]);
  await expect(vault.roles.authenticate(issued.token)).rejects.toThrow("valid vault token");
  // The audit of the expiry is written as the lease's watchers hear of it.
  await logs.until((line) => line.includes('"operation":"lease_expired"') && line.includes(`lease/${id}`));
  const audited = await h.runtime.database.rows(sql`SELECT caller, operation FROM vault_audit WHERE path = ${`lease/${id}`} ORDER BY id`);
  expect(audited).toEqual([
    { caller: "short", operation: "lease_renewed" },
    { caller: "short", operation: "lease_not_renewed" },
    { caller: "short", operation: "lease_renewed" },
    { caller: "short", operation: "lease_not_renewed" },
    { caller: "short", operation: "lease_expired" },
  ]);
});

test("a sealed vault answers every request with the sealed error and changes nothing", async () => {
  const { vault } = h.capability;
  await vault.store.seal();
  const call = await client.callTool({ name: "api_call", arguments: { service: "gh", method: "GET", path: "/user" } });
  expect((call.content as { text: string }[])[0]!.text).toStartWith("[SEALED]");
  const listed = await client.callTool({ name: "services", arguments: {} });
  expect((listed.content as { text: string }[])[0]!.text).toStartWith("[SEALED]");
  const login = await post("/auth/approle/login", { role_id: "x", secret_id: "y" });
  expect(login.status).toBe(503);
  expect(await login.json()).toMatchObject({ error: { code: "SEALED" } });
  await expect(vault.addService({ name: "other", template: "github", credential: { token: "z".repeat(40) } }, setupCaller)).rejects.toThrow("sealed");
  await vault.store.unseal();
  expect((await vault.services(setupCaller)).map((s) => s.name)).toEqual(["gh"]);
});

test("key rotation re-wraps data keys while the vault keeps serving", async () => {
  const { vault } = h.capability;
  const before = (await vault.store.status()).masterVersion!;
  expect(await vault.store.rotate()).toEqual({ masterVersion: before + 1, dataKeys: 1 });
  expect((await vault.apiCall({ service: "gh", method: "GET", path: "/user" }, setupCaller)).status).toBe(200);
  const master = JSON.parse(readFileSync(join(keyDirOf(h.runtime.config), "master.key"), "utf8"));
  expect(Object.keys(master.versions)).toEqual([String(before + 1)]);
  expect(statSync(join(keyDirOf(h.runtime.config), "master.key")).mode & 0o777).toBe(0o600);
});

test("the store holds no secret value; the audit trail records each call without one", async () => {
  const rows = await h.runtime.database.rows(sql`SELECT caller, operation, service, method, path, status, outcome FROM vault_audit`);
  expect(rows).toContainEqual({ caller: "local", operation: "api_call", service: "gh", method: "GET", path: "/echo", status: 200, outcome: "ok" });
  expect(rows).toContainEqual(expect.objectContaining({ caller: "unauthenticated", operation: "authenticate", status: 401, outcome: "UNAUTHENTICATED" }));
  expect(rows).toContainEqual(expect.objectContaining({ caller: "approle", operation: "login", outcome: "ok" }));
  const needles = [githubToken, Buffer.from(githubToken).toString("base64"), Buffer.from(githubToken).toString("hex")];
  if (kind === "sqlite")
    // Every file of the database: its pages and the write-ahead log.
    for (const file of readdirSync(h.dataDir).filter((f) => f.startsWith("platform.db"))) {
      const bytes = readFileSync(join(h.dataDir, file)).toString("latin1");
      for (const needle of needles) expect(bytes.includes(needle)).toBe(false);
    }
  else {
    // Every row of every table, as text.
    const tables = await h.runtime.database.rows<{ name: string }>(sql`SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public'`);
    expect(tables.length).toBeGreaterThan(10);
    for (const { name } of tables) {
      const [dump] = await h.runtime.database.rows<{ text: string | null }>(sql.raw(`SELECT string_agg(t::text, '') AS text FROM "${name}" t`));
      for (const needle of needles) expect(dump?.text?.includes(needle) ?? false).toBe(false);
    }
  }
});
});
