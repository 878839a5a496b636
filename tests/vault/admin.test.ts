/**
 * Managing services without the browser: the CLI (credential on stdin, never on the command line) and the admin
 * API under /vault/v1/admin (an operator's admin token, never an agent's), both through the same service function
 * as the setup page; and the setup page's one-time link renewed from the CLI while the server runs.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { recentAudit } from "../../src/vault/repo.ts";
import { runPlatform, sourceCommand } from "../support/cli.ts";
import { githubToken, githubUpstream, startVault, type Harness } from "./harness.ts";

let h: Harness;
const github = githubUpstream();
const otherToken = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2";

beforeAll(async () => {
  h = await startVault();
});
afterAll(async () => {
  await h.close();
  github.stop(true);
});

const vault = (args: string[], stdin?: string) => runPlatform(["vault", ...args, "--data-dir", h.dataDir, "--log-level", "error"], { stdin });
const json = <T = Record<string, unknown>>(text: string) => JSON.parse(text) as T;
const names = async () => (await h.capability.vault.services({ name: "test", services: ["*"] })).map((s) => s.name);
const api = (method: string, path: string, token?: string, body?: unknown) =>
  fetch(`${h.base}/vault/v1${path}`, {
    method,
    headers: { "content-type": "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

test("the CLI adds, checks, changes, lists and removes a service; the credential comes on stdin and is never printed", async () => {
  const upstream = `http://127.0.0.1:${github.port}`;
  const add = ["service", "add", "octo", "--template", "custom", "--base-url", upstream, "--injection", "bearer", "--probe", "/user", "--allow-addresses", "loopback"];
  const added = await vault(add, JSON.stringify({ token: githubToken }));
  expect(added.code).toBe(0);
  expect(json(added.stdout)).toMatchObject({ name: "octo", template: "custom", base_url: upstream, injection: "bearer", status: "unchecked", allow_addresses: ["loopback"] });
  // The running server uses it at once: its agents' calls carry the credential, its answers are redacted.
  const through = await h.capability.vault.apiCall({ service: "octo", method: "GET", path: "/echo" }, { name: "agent", services: ["octo"] });
  expect(through.body).toContain("[REDACTED:octo]");
  expect(through.body).not.toContain(githubToken);

  const checked = await vault(["service", "check", "octo"]);
  expect([checked.code, json(checked.stdout)]).toEqual([0, { service: "octo", ok: true, status: 200, reason: "working" }]);

  const narrowed = await vault(["service", "change", "octo", "--allow-paths", "/user", "--allow-methods", "GET"]);
  expect(narrowed.code).toBe(0);
  // A changed service is unchecked again; only what was given changed.
  expect(json(narrowed.stdout)).toMatchObject({ allow_paths: ["/user"], allow_methods: ["GET"], status: "unchecked", base_url: upstream, allow_addresses: ["loopback"] });
  await expect(h.capability.vault.apiCall({ service: "octo", method: "GET", path: "/echo" }, { name: "agent", services: ["octo"] })).rejects.toThrow("/echo is not on this service's path allowlist");

  // A new credential replaces the old one: the upstream refuses it, so the check fails and says so (exit 1).
  expect((await vault(["service", "change", "octo", "--credential"], JSON.stringify({ token: otherToken }))).code).toBe(0);
  const failing = await vault(["service", "check", "octo"]);
  expect([failing.code, json(failing.stdout)]).toEqual([1, { service: "octo", ok: false, status: 401, reason: "the service answered 401" }]);

  const listed = await vault(["service", "list"]);
  expect(json<{ services: { name: string; status: string }[] }>(listed.stdout).services).toEqual([expect.objectContaining({ name: "octo", status: "failing" })]);
  expect(json((await vault(["service", "remove", "octo"])).stdout)).toEqual({ removed: "octo" });
  expect(await names()).toEqual([]);

  for (const run of [added, checked, narrowed, failing, listed]) expect(run.stdout + run.stderr).not.toMatch(/ghp_/);
  const audit = (await recentAudit(h.runtime.database.db, 20)).filter((row) => row.caller.startsWith("cli:") && row.service === "octo");
  expect(audit.map((row) => row.operation).reverse()).toEqual(["add_service", "check", "change_service", "change_service", "check", "remove_service"]);
});

test("bad input from the CLI changes nothing, exits non-zero, and never repeats the credential", async () => {
  const secret = `token=${githubToken}`;
  const cases: [string[], string | undefined, number, string][] = [
    [["service", "add", "gh", "--template", "github"], secret, 2, "give the credential on stdin as a JSON object such as {\"token\": \"...\"}"],
    [["service", "add", "gh", "--template", "github"], JSON.stringify([githubToken]), 2, "must be a JSON object of strings"],
    [["service", "add", "gh", "--template", "nope"], JSON.stringify({ token: githubToken }), 1, "No template named nope"],
    [["service", "add", "gh", "--template", "github", "--allow-addresses", "moon"], JSON.stringify({ token: githubToken }), 1, "allow_addresses.0"],
    [["service", "add", "gh", "--template", "github"], JSON.stringify({ token: githubToken, extra: "x" }), 1, "the credential has no field extra"],
    [["service", "add", "Bad_Name", "--template", "github"], JSON.stringify({ token: githubToken }), 1, "name: lowercase letters, digits and dashes"],
    [["service", "add", "gh", "--template", "github", "--injection", "header"], JSON.stringify({ token: githubToken }), 2, "--injection: one of"],
    [["service", "add", "gh"], JSON.stringify({ token: githubToken }), 2, "service add needs --template"],
    [["service", "change", "gh", "--template", "gitlab"], undefined, 2, "a service's template cannot change"],
    [["service", "change", "ghost", "--allow-paths", "/x"], undefined, 1, "No service named ghost"],
    [["service", "list", "--base-url", "https://x"], undefined, 2, "--base-url is for service add and change"],
  ];
  for (const [args, stdin, code, message] of cases) {
    const run = await vault(args, stdin);
    expect({ args, code: run.code }).toEqual({ args, code });
    expect(run.stderr).toContain(message);
    expect(run.stdout + run.stderr).not.toContain(githubToken);
  }
  expect(await names()).toEqual([]);
});

test("on a terminal the CLI asks for each credential field with echo off", async () => {
  let screen = "";
  const typed = Promise.withResolvers<void>();
  const child = Bun.spawn([...sourceCommand, "vault", "service", "add", "bb", "--template", "bitbucket", "--data-dir", h.dataDir, "--log-level", "error"], {
    terminal: {
      cols: 120,
      rows: 24,
      data(terminal, bytes) {
        screen += new TextDecoder().decode(bytes);
        // Each answer is typed once its prompt shows, as a person would.
        if (screen.endsWith("Username: ") && !screen.includes("App password")) terminal.write("octocat\r");
        if (screen.endsWith("App password: ")) terminal.write(`${githubToken}x\x7f\r`), typed.resolve();
      },
    },
  });
  await typed.promise;
  expect(await child.exited).toBe(0);
  expect(screen).toContain('"name": "bb"');
  expect(screen).not.toContain(githubToken);
  expect(screen).not.toContain("octocat");
  // Backspace took the stray character back.
  expect(await h.capability.vault.store.get("service:bb")).toEqual({ username: "octocat", password: githubToken });
  await h.capability.vault.removeService("bb", { name: "test", services: ["*"] });
});

test("the admin API: an admin token from the CLI manages services with the page's rules; an agent's token or none is refused; each change is audited", async () => {
  const issued = await vault(["admin-token", "--ttl", "600"]);
  expect(issued.code).toBe(0);
  const { token, lease_id, expires_at } = json<{ token: string; lease_id: string; expires_at: string }>(issued.stdout);
  expect(token).toStartWith("pva_");
  expect(Date.parse(expires_at) - Date.now()).toBeWithin(590_000, 601_000);
  expect(await h.capability.vault.leases.view(lease_id)).toMatchObject({ state: "active", context: { purpose: "admin" } });

  // An agent: a role's token is valid for its calls, and refused here.
  const roles = h.capability.vault.roles;
  const { role_id } = await roles.createRole({ name: "agent", services: ["*"] });
  const agentToken = (await roles.login({ role_id, secret_id: (await roles.createSecretId("agent")).secret_id })).token;
  expect((await api("GET", "/admin/services")).status).toBe(401);
  const agent = await api("GET", "/admin/services", agentToken);
  expect(agent.status).toBe(403);
  expect(await agent.json()).toMatchObject({ error: { code: "PERMISSION_DENIED" } });
  // ... and the admin token is no agent's token.
  expect((await api("POST", "/api_call", token, { service: "x", method: "GET", path: "/" })).status).toBe(401);

  const service = { name: "octo", template: "custom", base_url: `http://127.0.0.1:${github.port}`, injection: { type: "bearer" }, probe: { method: "GET", path: "/user" }, credential: { token: githubToken } };
  // The rules of the setup page: a misspelt field, a URL that is no HTTP one, a private address not allowed.
  const refusals: [unknown, string][] = [
    [{ ...service, allow_pathz: ["/x"] }, "allow_pathz: no such field"],
    [{ ...service, base_url: "ftp://127.0.0.1" }, "base_url must be http or https"],
    [{ ...service, credential: {} }, "the credential needs token (Token)"],
  ];
  for (const [body, message] of refusals) {
    const refused = await api("POST", "/admin/services", token, body);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ error: { code: "INVALID_REQUEST", message } });
  }
  expect(await names()).toEqual([]);

  const created = await api("POST", "/admin/services", token, { ...service, allow_addresses: ["loopback"] });
  expect(created.status).toBe(201);
  expect(JSON.stringify(await created.json())).not.toContain(githubToken);
  expect((await api("POST", "/admin/services", token, service)).status).toBe(409);
  expect(await (await api("POST", "/admin/services/octo/check", token)).json()).toMatchObject({ ok: true });
  const changed = await api("PATCH", "/admin/services/octo", token, { allow_paths: ["/user"] });
  expect(await changed.json()).toMatchObject({ allow_paths: ["/user"], status: "unchecked" });
  expect(await (await api("GET", "/admin/services", token)).json()).toMatchObject({ services: [{ name: "octo", allow_paths: ["/user"] }] });
  expect((await api("DELETE", "/admin/services/octo", token)).status).toBe(204);
  expect((await api("DELETE", "/admin/services/octo", token)).status).toBe(404);

  const operations = (await recentAudit(h.runtime.database.db, 30))
    .filter((row) => row.caller.startsWith("admin:"))
    .map((row) => `${row.operation}:${row.outcome}`)
    .reverse();
  expect(operations).toEqual([
    "issue_admin_token:ok",
    ...refusals.map(() => "add_service:INVALID_REQUEST"),
    "add_service:ok",
    "add_service:SERVICE_EXISTS",
    "check:ok",
    "change_service:ok",
    "services:ok",
    "remove_service:ok",
    "remove_service:UNKNOWN_SERVICE",
  ]);

  // Revoked from the CLI through the running server: refused from then on.
  expect(json((await vault(["revoke-admin-token", lease_id])).stdout)).toEqual({ revoked: lease_id });
  expect((await api("GET", "/admin/services", token)).status).toBe(401);
  const again = await vault(["revoke-admin-token", lease_id]);
  expect([again.code, again.stderr]).toEqual([1, expect.stringContaining(`No live admin token with lease id ${lease_id}`)]);
});

test("setup-link renews the one-time link in the running server: the link before it stops working, the new one opens a session", async () => {
  const first = h.capability.setupLink()!;
  const renewed = await vault(["setup-link"]);
  expect(renewed.code).toBe(0);
  const { setup_link, expires_at } = json<{ setup_link: string; expires_at: string }>(renewed.stdout);
  expect(setup_link).not.toBe(first);
  expect(new URL(setup_link).origin).toBe(new URL(first).origin);
  expect(Date.parse(expires_at) - Date.now()).toBeWithin(14 * 60_000, 15 * 60_000 + 1000);
  expect((await fetch(first, { redirect: "manual" })).status).toBe(401);
  const opened = await fetch(setup_link, { redirect: "manual" });
  expect(opened.status).toBe(303);
  expect(opened.headers.get("set-cookie")).toContain("platform_vault_setup=");
  expect((await fetch(setup_link, { redirect: "manual" })).status).toBe(401);
  expect((await recentAudit(h.runtime.database.db, 5)).map((row) => row.operation)).toContain("renew_setup_link");
});
