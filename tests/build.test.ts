import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startSite } from "./browser/site.ts";
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
