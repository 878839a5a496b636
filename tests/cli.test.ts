import { afterAll, expect, test } from "bun:test";
import { existsSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { platform, repoRoot, serve, sourceCommand } from "./support/cli.ts";
import { tempDir } from "./support/temp.ts";

const dir = tempDir();
afterAll(() => dir.remove());

async function run(args: string[], env: Record<string, string> = {}) {
  const proc = platform(args, { env, cwd: dir.path });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

test("--help lists every verb; each verb has its own --help", async () => {
  const overview = await run(["--help"]);
  expect(overview.code).toBe(0);
  for (const verb of ["serve", "mcp", "version"]) expect(overview.stdout).toContain(`  ${verb}`);
  for (const verb of ["serve", "mcp", "version"]) {
    const help = await run([verb, "--help"]);
    expect(help.code).toBe(0);
    expect(help.stdout).toStartWith(`Usage: platform ${verb}`);
  }
});

test("version prints the package version", async () => {
  const { stdout, code } = await run(["version"]);
  expect(code).toBe(0);
  expect(stdout).toStartWith(`platform ${(await Bun.file(join(repoRoot, "package.json")).json()).version} `);
});

test.each([
  [["launch"], "platform: unknown command 'launch'. Try 'platform --help'."],
  [["serve", "--prot", "1"], "platform: Unknown option '--prot'. Try 'platform serve --help'."],
  [["version", "extra"], "platform: unexpected argument 'extra'. Try 'platform version --help'."],
  [["serve", "--port"], "platform: --port needs a value: port to listen on (PORT, default 8443; 0 picks a free one). Try 'platform serve --help'."],
  [["serve", "--port", "--data-dir", "x"], "platform: --port needs a value: port to listen on (PORT, default 8443; 0 picks a free one). Try 'platform serve --help'."],
])("a bad verb or flag exits 2 with a one-line hint: %j", async (args, hint) => {
  const { stderr, code } = await run(args);
  expect(code).toBe(2);
  expect(stderr).toBe(`${hint}\n`);
});

test("bad configuration stops start-up naming the key, the value and what is allowed", async () => {
  const config = join(dir.path, "bad.yaml");
  writeFileSync(config, "server:\n  port: 99999\n");
  const fromFile = await run(["serve", "--config", config, "--data-dir", join(dir.path, "never")]);
  expect(fromFile.code).toBe(1);
  expect(fromFile.stderr).toContain(`server.port is 99999 (from ${config}); allowed: an integer from 0 to 65535`);
  const fromEnv = await run(["serve", "--data-dir", join(dir.path, "never")], { PLATFORM_ENV: "qa" });
  expect(fromEnv.code).toBe(1);
  expect(fromEnv.stderr).toContain('environment is "qa" (from PLATFORM_ENV)');
  expect(existsSync(join(dir.path, "never"))).toBe(false);
});

test("serve whose stderr reader went away still serves and stops cleanly on SIGTERM", async () => {
  const proc = platform(["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", join(dir.path, "no-reader")]);
  const reader = proc.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes('"message":"listening"')) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`serve exited before listening:\n${text}`);
    text += value;
  }
  const url = (/"message":"listening".*?"url":"([^"]+)"/.exec(text) ?? [])[1];
  await reader.cancel(); // nobody reads the server's log from here on
  expect((await fetch(`${url}/health`)).status).toBe(200);
  proc.kill("SIGTERM");
  expect(await proc.exited).toBe(0);
});

test("serve answers /health, logs JSON lines on stderr, and stops cleanly on SIGTERM", async () => {
  const data = join(dir.path, "serve");
  const server = await serve(data, { env: { PLATFORM_SERVER__SHUTDOWN_TIMEOUT_MS: "2000" } });
  try {
    const res = await fetch(`${server.url}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "ok" });
    // A long-lived stream stays open across the signal; the bound still lets the process exit.
    const stream = await fetch(`${server.url}/mcp`, { method: "GET", headers: { accept: "text/event-stream" } });
    expect(stream.status).toBe(400); // no session: refused at once, not held open
  } finally {
    expect(await server.stop("SIGTERM")).toBe(0);
  }
  for (const line of server.lines) expect(JSON.parse(line)).toMatchObject({ level: expect.any(String), message: expect.any(String), timestamp: expect.any(String) });
  // The last word is "stopped" (the access line of a request answered just before may be written after it).
  expect(server.lines.filter((line) => !line.includes('"component":"access"')).at(-1)).toContain('"message":"stopped"');
  // Closing the database checkpoints the write-ahead log into the main file.
  const wal = join(data, "platform.db-wal");
  expect(!existsSync(wal) || statSync(wal).size === 0).toBe(true);
});

async function stdioClient(args: string[], env: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: sourceCommand[0]!,
    args: [...sourceCommand.slice(1), ...args],
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "pipe",
  });
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(transport);
  return client;
}

test("mcp <server> speaks MCP over stdio with logs kept off stdout", async () => {
  const client = await stdioClient(["mcp", "platform", "--data-dir", join(dir.path, "stdio")]);
  try {
    expect(client.getServerVersion()?.name).toBe("platform");
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain("health");
    const result = await client.callTool({ name: "health", arguments: {} });
    expect(result.structuredContent).toMatchObject({ status: "ok" });
  } finally {
    await client.close();
  }
});

test("mcp vault serves the vault's tools", async () => {
  const client = await stdioClient(["mcp", "vault", "--data-dir", join(dir.path, "stdio-vault")]);
  try {
    expect(client.getServerVersion()?.name).toBe("vault");
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["check", "services"]));
  } finally {
    await client.close();
  }
});

test("TRANSPORT_MODE=stdio with no verb serves the default MCP server", async () => {
  const client = await stdioClient(["--data-dir", join(dir.path, "stdio-env")], { TRANSPORT_MODE: "stdio" });
  try {
    expect(client.getServerVersion()?.name).toBe("platform");
  } finally {
    await client.close();
  }
});

test("mcp with an unknown server name exits 2 naming the servers there are", async () => {
  const { stderr, code } = await run(["mcp", "nothing", "--data-dir", join(dir.path, "stdio-unknown")]);
  expect(code).toBe(2);
  expect(stderr).toContain("no MCP server named 'nothing'; have: platform");
});

test("an MCP stdio server beside a running server is a guest: it restores no actors and opens no side listeners", async () => {
  const data = join(dir.path, "shared");
  const server = await serve(data, { env: { PLATFORM_VAULT__SETUP_PORT: "0" } });
  try {
    // Opening the setup page's one-time link starts a session, which is a lease actor of the owner.
    const { setupLink } = JSON.parse(await server.waitForLine((l) => l.includes('"message":"vault setup page"'))) as { setupLink: string };
    expect((await fetch(setupLink, { redirect: "manual" })).status).toBe(303);
    const owner = (await (await fetch(`${server.url}/health`)).json()) as { subsystems: { actors: { live: number } } };
    expect(owner.subsystems.actors.live).toBeGreaterThan(0);
    const transport = new StdioClientTransport({
      command: sourceCommand[0]!,
      args: [...sourceCommand.slice(1), "mcp", "platform", "--data-dir", data],
      env: { ...(process.env as Record<string, string>), PLATFORM_VAULT__SETUP_PORT: "0" },
      stderr: "pipe",
    });
    const guestLog: string[] = [];
    transport.stderr?.on("data", (chunk: Buffer) => guestLog.push(chunk.toString()));
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(transport);
    try {
      const health = await client.callTool({ name: "health", arguments: {} });
      expect(health.structuredContent).toMatchObject({ subsystems: { actors: { live: 0 } } });
    } finally {
      await client.close();
    }
    expect(guestLog.join("")).not.toContain("setup page");
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  } finally {
    expect(await server.stop()).toBe(0);
  }
});
