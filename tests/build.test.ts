import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startSite } from "./browser/site.ts";
import { repoRoot, runPlatform, serve } from "./support/cli.ts";
import { startDiscord } from "./support/discord/server.ts";
import { tempDir } from "./support/temp.ts";
import { requireTool } from "./support/tools.ts";
import { expectWorkingInstall, installedIn } from "./vault/assistant.ts";
import { githubToken } from "./vault/harness.ts";

// The executable runs from an empty folder: no node_modules beside or above it, no source tree.
const dir = tempDir();
const executable = join(dir.path, "platform");

beforeAll(async () => {
  const build = Bun.spawn(["bun", join(repoRoot, "scripts/build.ts"), "--outfile", executable], { stdout: "pipe", stderr: "pipe" });
  const [code, stderr] = await Promise.all([build.exited, new Response(build.stderr).text()]);
  if (code !== 0) throw new Error(`build failed: ${stderr}`);
}, 120_000);
afterAll(() => dir.remove());

test("the compiled executable serves /health from an empty folder", async () => {
  const server = await serve(join(dir.path, "data"), { command: [executable] });
  try {
    const res = await fetch(`${server.url}/health`);
    expect(await res.json()).toMatchObject({ status: "ok", subsystems: { database: { status: "ok" } } });
    // The A2A card of each version, with both bindings and push notifications.
    const v1 = (await fetch(`${server.url}/.well-known/agent-card.json`, { headers: { "a2a-version": "1.0" } }).then((r) => r.json())) as any;
    expect(v1.supportedInterfaces.map((i: { protocolBinding: string }) => i.protocolBinding)).toEqual(["JSONRPC", "HTTP+JSON", "JSONRPC"]);
    expect(v1.capabilities.pushNotifications).toBe(true);
    expect(await fetch(`${server.url}/.well-known/agent-card.json`).then((r) => r.json())).toMatchObject({ protocolVersion: "0.3.0" });
    // The store's one node, as `platform cluster status` lists it beside the running server.
    const status = await runPlatform(["cluster", "status", "--data-dir", join(dir.path, "data")], { command: [executable], cwd: dir.path });
    expect(status.code).toBe(0);
    expect(status.stdout).toStartWith("SQLite store platform.db: one node");
    expect(status.stdout).toMatch(new RegExp(` ${server.url.replaceAll(".", "\\.")} .* alive `));
  } finally {
    expect(await server.stop()).toBe(0);
  }
});

test("the compiled executable audits to its store and platform audit reads it back", async () => {
  const dataDir = join(dir.path, "audited");
  const env = { PLATFORM_AUTHORIZATION__AUDIT__DESTINATION: "store://" };
  const server = await serve(dataDir, { command: [executable], env });
  // No verified caller identity: denied before policy, and audited.
  const answer = await fetch(`${server.url}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "task.send", params: { type: "health" } }) });
  const { error } = (await answer.json()) as { error: { data: { auditId: string } } };
  expect(await server.stop()).toBe(0);
  const read = await runPlatform(["audit", "--json", "--data-dir", dataDir], { command: [executable], cwd: dir.path, env });
  expect(read.code).toBe(0);
  const records = read.stdout.trim().split("\n").map((line) => JSON.parse(line));
  expect(records.find((r) => r.audit_id === error.data.auditId)).toMatchObject({ action: "task.send", decision: "denied", caller_spiffe_id: null });
});

test("the compiled executable runs an MCP server over stdio", async () => {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: executable, args: ["mcp", "platform", "--data-dir", join(dir.path, "mcp")], cwd: dir.path, stderr: "pipe" }),
  );
  try {
    expect(client.getServerVersion()).toMatchObject({ name: "platform" });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("health");
    // The health resources and the diagnose prompt work from the executable too.
    const part = (await client.readResource({ uri: "platform://health/database" })).contents[0] as { text: string };
    expect(JSON.parse(part.text)).toMatchObject({ status: "ok", dialect: "sqlite", reachable: true });
    const { messages } = await client.getPrompt({ name: "diagnose", arguments: { subsystem: "database" } });
    expect(messages[1]!.content).toMatchObject({ type: "resource", resource: { uri: "platform://health/database" } });
  } finally {
    await client.close();
  }
});

test("the compiled executable serves the chat MCP server over stdio from an empty folder", async () => {
  const discord = await startDiscord();
  const client = new Client({ name: "test", version: "1.0.0" });
  const env = { ...(process.env as Record<string, string>), CHAT_TOKEN: discord.token, PLATFORM_CHAT__API_BASE: discord.api };
  await client.connect(
    new StdioClientTransport({ command: executable, args: ["mcp", "chat", "--data-dir", join(dir.path, "chat")], cwd: dir.path, env, stderr: "pipe" }),
  );
  try {
    expect(client.getServerVersion()).toMatchObject({ name: "chat" });
    const sent = await client.callTool({ name: "send_message", arguments: { channelId: discord.ids.general, content: "from the executable" } });
    expect(sent.structuredContent).toMatchObject({ channelId: discord.ids.general });
    // The bot session came up too: the gateway took an IDENTIFY from the executable.
    await discord.gateway.until(() => discord.gateway.log.identifies === 1);
  } finally {
    await client.close();
    await discord.stop();
  }
});

test("the compiled executable runs the infra MCP server over stdio: its parser, tofu and terraform-ls", async () => {
  const root = join(dir.path, "infra-workspace");
  mkdirSync(join(root, "app"), { recursive: true });
  writeFileSync(join(root, "app/main.tf"), 'resource "aws_db_instance" "db" {\n  publicly_accessible = true\n}\n');
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: executable,
      args: ["mcp", "infra", "--data-dir", join(dir.path, "infra-data")],
      cwd: dir.path,
      stderr: "pipe",
      env: {
        ...(process.env as Record<string, string>),
        PLATFORM_INFRA__WORKSPACE_ROOT: root,
        PLATFORM_INFRA__BINARY: requireTool("tofu"),
        PLATFORM_INFRA__LANGUAGE_SERVER: requireTool("terraform-ls"),
      },
    }),
  );
  try {
    expect((await client.listTools()).tools).toHaveLength(21);
    const scan = await client.callTool({ name: "infra_security_scan", arguments: { path: "app", severity: "critical" } });
    expect(scan.structuredContent).toMatchObject({ findings: [{ rule_id: "CKV_AWS_17", resource: "aws_db_instance.db", line: 2 }] });
    const version = await client.callTool({ name: "infra", arguments: { path: "app", action: "version" } });
    expect(version.structuredContent).toMatchObject({ binary: { name: "tofu" }, result: { terraform_version: expect.stringMatching(/^1\.12\./) } });
    const hover = await client.callTool({ name: "iac_hover", arguments: { path: "app/main.tf", line: 0, character: 12 } });
    expect(hover.structuredContent).toMatchObject({ hover: { contents: expect.stringContaining("aws_db_instance") } });
  } finally {
    await client.close();
  }
});

test("the compiled executable serves the browser MCP server over stdio with only Debian's Chromium beside it", async () => {
  const site = startSite();
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: executable,
      args: ["mcp", "browser", "--data-dir", join(dir.path, "browser")],
      cwd: dir.path,
      env: { PATH: "/usr/bin:/bin", PLATFORM_BROWSER__WARM_SESSIONS: "0" },
      stderr: "pipe",
    }),
  );
  try {
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await client.callTool({ name, arguments: args });
      if (result.isError) throw new Error(JSON.stringify(result.content));
      return result.structuredContent as Record<string, unknown>;
    };
    expect(await call("navigate_to_url", { url: site.url("/") })).toMatchObject({ title: "Fixture shop" });
    expect(String((await call("snapshot_page", {})).snapshot)).toContain('button "Press me"');
    const audit = await call("run_accessibility_test", { url: site.url("/a11y") });
    expect((audit.findings as { rule: string }[]).map((f) => f.rule).sort()).toEqual(["button-name", "color-contrast", "html-has-lang", "image-alt", "label"]);
  } finally {
    await client.close();
    site.stop();
  }
}, 120_000);

test("the compiled executable serves the catalog: its migrations, seeding, the product index, the docs page", async () => {
  const data = join(dir.path, "catalog");
  const run = async (args: string[], stdin?: string) => {
    const proc = Bun.spawn([executable, ...args, "--data-dir", data], { cwd: dir.path, stdin: stdin === undefined ? "ignore" : new Blob([stdin]), stdout: "pipe", stderr: "pipe" });
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    if (code !== 0) throw new Error(`platform ${args.join(" ")} failed: ${stderr}`);
  };
  await run(["catalog", "seed", "--products", "30"]);
  await run(["catalog", "admin", "--email", "owner@shop.test", "--password-stdin"], "owner-password\n");
  const server = await serve(data, { command: [executable] });
  try {
    const login = await fetch(`${server.url}/v2/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "owner@shop.test", password: "owner-password" }),
    });
    const { accessToken } = (await login.json()) as { accessToken: string };
    const list = await fetch(`${server.url}/v2/products?search=warranty&sort=price&limit=5`, { headers: { authorization: `Bearer ${accessToken}` } });
    const page = (await list.json()) as { data: { price: number }[]; pagination: { total: number } };
    expect(page.pagination.total).toBe(30);
    expect(page.data.map((p) => p.price)).toEqual(page.data.map((p) => p.price).sort((a, b) => a - b));
    expect((await fetch(`${server.url}/v2/docs/swagger-ui-bundle.js`)).status).toBe(200);
  } finally {
    expect(await server.stop()).toBe(0);
  }
});

test("the compiled executable, at a path with spaces and quotes, takes a service on stdin and installs itself for an assistant", async () => {
  const home = join(dir.path, `it's "installed" here`);
  mkdirSync(home);
  const exe = join(home, "platform");
  copyFileSync(executable, exe);
  chmodSync(exe, 0o755);
  const data = join(dir.path, "assistant data");
  const project = join(dir.path, "assistant project");
  mkdirSync(project);
  const run = (args: string[], stdin?: string) => runPlatform([...args, "--data-dir", data, "--log-level", "error"], { command: [exe], cwd: project, stdin });

  expect((await run(["vault", "service", "add", "gh", "--template", "github"], JSON.stringify({ token: githubToken }))).code).toBe(0);
  const printed = await run(["mcp", "install", "--print"]);
  expect(JSON.parse(printed.stdout).command).toEqual([exe]);
  expect(readdirSync(project)).toEqual([]);
  expect((await run(["mcp", "install"])).code).toBe(0);
  expect(installedIn(project).server).toMatchObject({ command: exe, args: ["mcp", "vault", "--data-dir", data] });
  expect(installedIn(project).hooks.PreToolUse).toBe(`'${home.replaceAll("'", "'\\''")}/platform' hook pre-tool`);
  await expectWorkingInstall(project, { service: "gh", credential: githubToken });
}, 60_000);
