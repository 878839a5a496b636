/**
 * Plays the assistant on what `platform mcp install` wrote into a project: starts the vault's MCP server from
 * .mcp.json as the assistant would (command, args and env, no shell), and runs each hook's command line through
 * sh and bash with the hook's JSON on stdin.
 */
import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

interface Installed {
  server: { command: string; args: string[]; env: Record<string, string> };
  hooks: { PreToolUse: string; PostToolUse: string };
}

export function installedIn(project: string): Installed {
  const mcp = JSON.parse(readFileSync(join(project, ".mcp.json"), "utf8"));
  const settings = JSON.parse(readFileSync(join(project, ".claude", "settings.json"), "utf8"));
  const ours = (event: string) => (settings.hooks[event] as { hooks: { command: string }[] }[]).flatMap((g) => g.hooks).map((h) => h.command).find((c) => c.includes(" hook "))!;
  return { server: mcp.mcpServers.vault, hooks: { PreToolUse: ours("PreToolUse"), PostToolUse: ours("PostToolUse") } };
}

/**
 * Proves the installed config works now: the MCP server lists `service` among its services, the pre-tool hook
 * blocks `printenv`, and the post-tool hook redacts `credential` as the value of `service`, through both shells.
 */
export async function expectWorkingInstall(project: string, { service, credential }: { service: string; credential: string }): Promise<void> {
  const { server, hooks } = installedIn(project);
  const client = new Client({ name: "assistant", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: server.command, args: server.args, env: { ...(process.env as Record<string, string>), ...server.env }, cwd: project, stderr: "pipe" }));
  try {
    const listed = await client.callTool({ name: "services", arguments: {} });
    expect(JSON.stringify(listed.structuredContent)).toContain(`"name":"${service}"`);
  } finally {
    await client.close();
  }
  for (const shell of ["sh", "bash"]) {
    const blocked = await runHook(shell, hooks.PreToolUse, { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "printenv" } }, project);
    expect({ shell, code: blocked.code, stderr: blocked.stderr }).toEqual({ shell, code: 2, stderr: expect.stringContaining("printenv is blocked") });
    const leaked = await runHook(shell, hooks.PostToolUse, { hook_event_name: "PostToolUse", tool_name: "Bash", tool_input: { command: "x" }, tool_response: { stdout: `key ${credential}` } }, project);
    expect({ shell, code: leaked.code }).toEqual({ shell, code: 0 });
    expect(JSON.parse(leaked.stdout)).toMatchObject({ decision: "block", reason: expect.stringContaining(`key [REDACTED:${service}]`) });
  }
}

async function runHook(shell: string, command: string, input: unknown, cwd: string) {
  const child = Bun.spawn([shell, "-c", command], { cwd, stdin: new TextEncoder().encode(JSON.stringify(input)), stdout: "pipe", stderr: "pipe", env: { ...process.env, LOG_LEVEL: "error" } });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { stdout, stderr, code };
}
