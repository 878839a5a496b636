/**
 * `platform mcp install`: writes the vault's MCP server entry into .mcp.json and both hooks into
 * .claude/settings.json, merging with what is there. Running it again changes nothing. The server entry is an
 * argument list (no shell); each hook is one command line, which the assistant runs through the shell, so every
 * word of it is quoted for a POSIX shell.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface InstallResult {
  /** Each file, whether it changes, and what it holds after the install. */
  files: { path: string; changed: boolean; content: Json }[];
}

type Json = Record<string, unknown>;
type HookGroup = { matcher?: string; hooks?: { type: string; command: string }[] };

/**
 * `command` is how the assistant should launch this program, e.g. [executable] or [bun, main.ts]; with `write`
 * false nothing is written (`--print`).
 */
export function installAssistantConfig(projectDir: string, command: string[], dataDir: string, { write = true } = {}): InstallResult {
  const [program, ...prefix] = command as [string, ...string[]];
  const quoted = command.map(shellQuote).join(" ");
  const mcpFile = join(projectDir, ".mcp.json");
  const mcp = readJson(mcpFile);
  const servers = (mcp.mcpServers ??= {}) as Json;
  servers.vault = {
    type: "stdio",
    command: program,
    args: [...prefix, "mcp", "vault", "--data-dir", dataDir],
    // The stdio server is started by the assistant on this machine, as this user: it may use every service.
    env: { PLATFORM_VAULT__TRUST_LOCAL_MCP: "true", PLATFORM_VAULT__SETUP_ENABLED: "false" },
  };

  const settingsFile = join(projectDir, ".claude", "settings.json");
  const settings = readJson(settingsFile);
  const hooks = (settings.hooks ??= {}) as Record<string, HookGroup[]>;
  addHook(hooks, "PreToolUse", `${quoted} hook pre-tool`);
  addHook(hooks, "PostToolUse", `${quoted} hook post-tool --data-dir ${shellQuote(dataDir)}`);

  return { files: [save(mcpFile, mcp, write), save(settingsFile, settings, write)] };
}

function addHook(hooks: Record<string, HookGroup[]>, event: string, command: string): void {
  const groups = (hooks[event] ??= []);
  const verb = command.includes("pre-tool") ? "hook pre-tool" : "hook post-tool";
  // Replace our own earlier entry (the path may have moved); leave everyone else's alone.
  for (const group of groups) group.hooks = (group.hooks ?? []).filter((h) => !h.command.includes(` ${verb}`));
  const kept = groups.filter((g) => (g.hooks ?? []).length > 0);
  kept.push({ matcher: "*", hooks: [{ type: "command", command }] });
  hooks[event] = kept;
}

function readJson(path: string): Json {
  if (!existsSync(path)) return {};
  try {
    const value = JSON.parse(readFileSync(path, "utf8"));
    if (value && typeof value === "object" && !Array.isArray(value)) return value as Json;
  } catch {
    // fall through
  }
  throw new Error(`${path} is not a JSON object; fix or remove it, then run install again`);
}

function save(path: string, value: Json, write: boolean): { path: string; changed: boolean; content: Json } {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  const changed = !existsSync(path) || readFileSync(path, "utf8") !== text;
  if (changed && write) {
    mkdirSync(join(path, ".."), { recursive: true });
    writeFileSync(path, text);
  }
  return { path, changed, content: value };
}

/** One word for a POSIX shell (sh, bash, zsh): as it is when it is plain, else in single quotes, each ' as '\''. */
const shellQuote = (word: string) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`);
