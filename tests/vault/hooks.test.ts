import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { preToolVerdict } from "../../src/vault/hooks.ts";
import { platform, repoRoot } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { githubToken, startVault, type Harness } from "./harness.ts";

let h: Harness;
const project = tempDir();
beforeAll(async () => {
  h = await startVault();
  await h.capability.vault.addService({ name: "gh", template: "github", credential: { token: githubToken } }, { name: "t", services: ["*"] });
});
afterAll(async () => {
  await h.close();
  project.remove();
});

const bash = (command: string) => preToolVerdict({ tool_name: "Bash", tool_input: { command } });

test("pre-tool blocks reading env files, printing the environment and shell history", () => {
  for (const command of ["cat .env", "less config/.env.production", "env", "env | grep KEY", "printenv AWS_SECRET", "export -p", "export", "set",
    "cat /proc/self/environ", "tail ~/.bash_history", "history", "FOO=1 printenv", "echo ok && cat .envrc", "declare -p"])
    expect(bash(command)).toBeString();
  expect(preToolVerdict({ tool_name: "Read", tool_input: { file_path: "/srv/app/.env.local" } })).toBeString();
  expect(preToolVerdict({ tool_name: "Read", tool_input: { file_path: "/home/me/.zsh_history" } })).toBeString();
});

test("pre-tool lets everything else pass", () => {
  for (const command of ["ls -la", "git status", "env FOO=1 bun test", "echo environment", "cat README.md", "set -e", "grep -r envelope src"])
    expect(bash(command)).toBeUndefined();
  expect(preToolVerdict({ tool_name: "Read", tool_input: { file_path: "/srv/app/src/env.ts" } })).toBeUndefined();
  expect(preToolVerdict({ tool_name: "Read", tool_input: { file_path: "/srv/app/.env.example.md/notes" } })).toBeUndefined();
});

async function hook(which: string, input: unknown) {
  const proc = Bun.spawn(["bun", join(repoRoot, "src/main.ts"), "hook", which, "--data-dir", h.dataDir], {
    stdin: new TextEncoder().encode(JSON.stringify(input)),
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, LOG_LEVEL: "error" },
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { stdout, stderr, code };
}

test("the CLI hooks: exit 2 with the reason to block; post-tool redacts with the vault's values", async () => {
  const blocked = await hook("pre-tool", { hook_event_name: "PreToolUse", tool_name: "Bash", tool_input: { command: "printenv" } });
  expect(blocked.code).toBe(2);
  expect(blocked.stderr).toContain("printenv is blocked");
  expect((await hook("pre-tool", { tool_name: "Bash", tool_input: { command: "ls" } })).code).toBe(0);

  const clean = await hook("post-tool", { tool_name: "Bash", tool_input: { command: "ls" }, tool_response: { stdout: "a b c", stderr: "" } });
  expect(clean).toMatchObject({ code: 0, stdout: "" });
  const leaked = await hook("post-tool", { tool_name: "Bash", tool_input: { command: "x" }, tool_response: { stdout: `token=${githubToken}` } });
  expect(leaked.code).toBe(0);
  const answer = JSON.parse(leaked.stdout);
  expect(answer.decision).toBe("block");
  expect(answer.reason).toContain("token=[REDACTED:gh]");
  expect(leaked.stdout).not.toContain(githubToken);
});

test("mcp install merges the server and both hooks into the project config, idempotently", async () => {
  mkdirSync(join(project.path, ".claude"), { recursive: true });
  writeFileSync(join(project.path, ".mcp.json"), JSON.stringify({ mcpServers: { other: { command: "other-server" } } }));
  writeFileSync(join(project.path, ".claude", "settings.json"), JSON.stringify({ model: "x", hooks: { PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "mine" }] }] } }));
  const run = async () => {
    const proc = platform(["mcp", "install", "--data-dir", h.dataDir], { cwd: project.path });
    expect(await proc.exited).toBe(0);
    return new Response(proc.stdout).text();
  };
  expect(await run()).toContain("updated");
  const mcp = JSON.parse(readFileSync(join(project.path, ".mcp.json"), "utf8"));
  expect(Object.keys(mcp.mcpServers)).toEqual(["other", "vault"]);
  expect(mcp.mcpServers.vault.args).toContain("vault");
  const settings = JSON.parse(readFileSync(join(project.path, ".claude", "settings.json"), "utf8"));
  expect(settings.model).toBe("x");
  expect(settings.hooks.PreToolUse).toHaveLength(2);
  expect(settings.hooks.PreToolUse[1].hooks[0].command).toEndWith("hook pre-tool");
  expect(settings.hooks.PostToolUse[0].hooks[0].command).toContain("hook post-tool");
  const again = await run();
  expect(again).not.toContain("updated");
  expect(again.match(/unchanged/g)).toHaveLength(2);
});
