import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { repoRoot, serve } from "./support/cli.ts";
import { tempDir } from "./support/temp.ts";

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
  } finally {
    expect(await server.stop()).toBe(0);
  }
});

test("the compiled executable runs an MCP server over stdio", async () => {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(
    new StdioClientTransport({ command: executable, args: ["mcp", "platform", "--data-dir", join(dir.path, "mcp")], cwd: dir.path, stderr: "pipe" }),
  );
  try {
    expect(client.getServerVersion()).toMatchObject({ name: "platform" });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain("health");
  } finally {
    await client.close();
  }
});

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
