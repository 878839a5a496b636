/**
 * The browser-testing server joins the runtime: session actors and their pool, the `browser` MCP server, its
 * part of /health, its REST, SSE and WebSocket routes, and an optional extra listener for clients of the
 * original server.
 */
import { join } from "node:path";
import type { Elysia } from "elysia";
import type { Capability, CapabilityFactory, Runtime } from "../capability.ts";
import type { Failure } from "../errors.ts";
import { Keyring } from "../vault/keys.ts";
import { keyDirOf } from "../vault/service.ts";
import { SecretStore } from "../vault/store.ts";
import { findChromium, unavailable } from "./chromium.ts";
import { LoginCredentials } from "./credentials.ts";
import { BrowserServiceError, errorBody, installHint } from "./errors.ts";
import { browserHttp, browserPrefixes } from "./http.ts";
import { startListener } from "./listener.ts";
import { LanguageServers } from "./lsp/servers.ts";
import { BrowserPool } from "./pool.ts";
import { mcpPrompts, mcpResources } from "./resources/registry.ts";
import { Results } from "./results.ts";
import { BrowserService } from "./service.ts";
import { NamedSessions } from "./storage.ts";
import { browserFailure, interactionTools, lspTool, testTools } from "./tools.ts";
import { UrlPolicy } from "./url-policy.ts";

/** A failure the runtime classified on one of our paths (malformed JSON, validation, unknown route) in our terms. */
const asBrowserError = ({ kind, message }: Failure) =>
  new BrowserServiceError(kind === "NOT_FOUND" ? "NotFoundError" : kind === "UNAVAILABLE" ? "UnavailableError" : "ValidationError", message);

export type BrowserCapability = Capability & { browser: BrowserService; extraListener(): string | undefined };

export const browserCapability = (({ config, log, database, actors, mcp, health }) => {
  let extra: Elysia | undefined;
  const languageServers = new LanguageServers();
  // Compiled: the executable itself; from source: bun with the entry point.
  const command = Bun.main.startsWith("/$bunfs/") || !Bun.main.endsWith(".ts") ? [process.execPath] : [process.execPath, Bun.main];
  const settings = config.browser;
  const chromium = findChromium(settings.executable);
  const executable = () => {
    if (!chromium.available) throw unavailable(chromium.reason);
    return chromium.executable;
  };
  const artifactsDir = settings.artifacts_dir || join(config.data_dir, "browser");
  const policy = new UrlPolicy({ allowed: settings.allowed_hosts, denied: settings.denied_hosts });
  let secrets: SecretStore | undefined;
  // The vault's own encrypted store, opened when a named session or a vault password first needs it.
  const secretStore = () => (secrets ??= new SecretStore(database.db, new Keyring(keyDirOf(config)), { autoUnseal: config.vault.auto_unseal }));
  const named = new NamedSessions(database.db, secretStore);
  const pool = new BrowserPool({
    actors,
    log: log.child({ component: "browser" }),
    config: settings,
    executable,
    states: named,
    settings: {
      actionTimeoutMs: settings.action_timeout_ms,
      navigationTimeoutMs: settings.navigation_timeout_ms,
      hostRules: policy.rules,
      crawlConcurrency: settings.crawl_concurrency,
      slowPageMs: settings.slow_page_ms,
    },
  });
  const browser = new BrowserService({
    config: settings,
    artifactsDir,
    pool,
    policy,
    named,
    credentials: new LoginCredentials(database.db, secretStore, settings.login_services, log),
    results: new Results(database.db, join(artifactsDir, "results")),
    executable,
  });

  mcp
    .server("browser", {
      title: "Browser testing",
      instructions:
        "A real Chromium to test web pages with. Navigate, take a snapshot (its refs identify elements for click, type_text, select_option, hover), " +
        "and run exploratory, accessibility, responsive and security tests that report findings. Your MCP session has its own browser; pass `session` to share a named one.",
      failure: browserFailure(log),
    })
    .tool(lspTool((port) => languageServers.listen(port), [...command, "lsp", "browser"]), ...testTools(browser), ...interactionTools(browser))
    .resource(...mcpResources())
    .prompt(...mcpPrompts())
    .onSessionEnd((session) => void pool.close(`mcp:${session}`, undefined, "its MCP session ended"));

  health.register("browser", () =>
    chromium.available
      ? { status: "ok", browser: "available", executable: chromium.executable, max_sessions: settings.max_sessions, sessions: pool.counts() }
      : { status: "degraded", browser: "unavailable", reason: chromium.reason, install: installHint },
  );

  return {
    name: "browser",
    browser,
    http: browserHttp(browser, log, settings.api_keys),
    errors: { prefix: browserPrefixes, render: (failure) => errorBody(failure.kind === "INTERNAL" ? failure.error : asBrowserError(failure), log).body },
    extraListener: () => extra?.server && `http://${extra.server.hostname}:${extra.server.port}`,
    endpoints: (base) => ({
      "browser API": `${base}/`,
      ...(extra?.server ? { "browser API (extra listener)": `http://${extra.server.hostname}:${extra.server.port}/` } : {}),
    }),
    start() {
      if (settings.listen) extra = startListener(settings.listen, browserHttp(browser, log, settings.api_keys), health, log);
    },
    async stop() {
      await languageServers.close();
      await extra?.stop(true);
      await pool.shutdown();
    },
  };
}) satisfies CapabilityFactory as ((runtime: Runtime) => BrowserCapability) & Pick<CapabilityFactory, "mcpServers">;
browserCapability.mcpServers = ["browser"];
