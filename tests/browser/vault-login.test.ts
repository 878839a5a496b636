/** fill_login_form with a vault password: typed from the vault in the server, never seen by the caller, audited. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { vaultCapability, type VaultCapability } from "../../src/vault/capability.ts";
import { stores, storesForFile } from "../support/stores.ts";
import { password, startSite, type Site } from "./site.ts";
import { call, failure, startBrowserApp, type BrowserApp } from "./support.ts";

const fixture = storesForFile();

describe.each(stores)("on %s", (kind) => {
  let app: BrowserApp;
  let site: Site;
  beforeAll(async () => {
    site = startSite();
    app = await startBrowserApp({ PLATFORM_BROWSER__LOGIN_SERVICES: "staging,ghost", ...(await fixture.fresh(kind)).env }, { capabilities: [vaultCapability] });
    const vault = (app.runtime.capabilities.find((c) => c.name === "vault") as VaultCapability).vault;
    await vault.addService(
      { name: "staging", template: "custom", base_url: site.origin, injection: { type: "basic" }, credential: { username: "qa@example.com", password } },
      { name: "operator", services: ["*"] },
    );
    await vault.addService(
      { name: "other", template: "custom", base_url: site.origin, injection: { type: "basic" }, credential: { username: "x", password } },
      { name: "operator", services: ["*"] },
    );
  });
  afterAll(async () => {
    await app?.close();
    site?.stop();
  });

  test("a vault password signs in without reaching the caller, and the use is audited", async () => {
    const client = await app.mcp();
    const result = await client.callTool({ name: "fill_login_form", arguments: { url: site.url("/login"), username: "qa@example.com", password: "vault:staging" } });
    expect(result.structuredContent).toMatchObject({ status: "success", title: "Your account", password_source: "vault" });
    expect(JSON.stringify(result)).not.toContain(password);
    const snapshot = await call<{ snapshot: string }>(client, "snapshot_page");
    expect(snapshot.snapshot).not.toContain(password);
    const audit = await app.runtime.database.rows(sql`SELECT caller, operation, service, outcome FROM vault_audit WHERE operation = 'browser_login'`);
    expect(audit).toEqual([{ caller: expect.stringMatching(/^mcp:/), operation: "browser_login", service: "staging", outcome: "ok" }]);
  });

  test("only listed services may be used; an unknown one is not found; a trace refuses a vault password", async () => {
    const client = await app.mcp();
    expect(await failure(client, "fill_login_form", { url: site.url("/login"), username: "x", password: "vault:other" })).toMatch(
      /^\[ValidationError\] The browser may not use the vault service other; an operator can list it in browser.login_services/,
    );
    expect(await failure(client, "fill_login_form", { url: site.url("/login"), username: "x", password: "vault:ghost" })).toMatch(/^\[NotFoundError\] The vault has no service named ghost/);
    await call(client, "navigate_to_url", { url: site.url("/login") });
    await call(client, "start_trace");
    expect(await failure(client, "fill_login_form", { username: "qa@example.com", password: "vault:staging" })).toMatch(/^\[ValidationError\] A trace is recording/);
  });
});
