/**
 * Assistant hooks. `pre-tool` blocks tool calls that would expose the environment: reading .env files,
 * printing environment variables, reading /proc/<pid>/environ or shell history. `post-tool` finds vault
 * values in a tool's output and hands back the redacted text.
 */
import { parse } from "shell-quote";
import type { Sanitizer } from "./sanitizer.ts";

export interface PreToolInput {
  tool_name?: string;
  tool_input?: Record<string, unknown>;
}

const envFile = /(^|[\/\s"'=])\.env(\.[\w.-]*|rc)?$/;
const secretPath = /(^|\/)(\.env(\.[\w.-]*|rc)?|\.(bash|zsh|sh|fish)_history|\.history|fish_history|\.psql_history|\.mysql_history|\.python_history|\.node_repl_history)$|^\/proc\/[^/]+\/environ$/;
const printsEnvironment = new Set(["printenv", "history", "compgen"]);
const pathKeys = ["file_path", "path", "notebook_path", "pattern", "glob"];

/** Why a call is blocked, or undefined when it may run. */
export function preToolVerdict({ tool_name, tool_input = {} }: PreToolInput): string | undefined {
  for (const key of pathKeys) {
    const value = tool_input[key];
    if (typeof value === "string" && isSecretPath(value)) return `Reading ${value} is blocked: it may hold credentials. Use the vault tools instead.`;
  }
  if (tool_name === "Bash" && typeof tool_input.command === "string") return bashVerdict(tool_input.command);
  return undefined;
}

const isSecretPath = (path: string) => secretPath.test(path.trim()) || /\/proc\/[^/\s]+\/environ/.test(path) || /(^|\/)\.env(\.|$|rc)/.test(path.split(/[\\/]/).pop() ?? "");

function bashVerdict(command: string): string | undefined {
  const entries = parse(command, (name) => `$${name}`);
  // Split into simple commands at operators; look at each command's words.
  const commands: string[][] = [[]];
  for (const entry of entries) {
    if (typeof entry === "string") commands[commands.length - 1]!.push(entry);
    else if ("op" in entry && entry.op !== "glob") commands.push([]);
    else if ("pattern" in entry) commands[commands.length - 1]!.push(entry.pattern);
  }
  for (const words of commands) {
    // Leading NAME=value words are assignments; the program is the first word after them.
    const start = words.findIndex((w) => !/^\w+=/.test(w));
    const [program, ...args] = start < 0 ? [] : words.slice(start);
    if (!program) continue;
    const name = program.split("/").pop()!;
    if (printsEnvironment.has(name)) return `${name} is blocked: it prints environment variables or shell history.`;
    if (name === "env" && args.every((a) => a.startsWith("-") || /^\w+=/.test(a))) return "env without a command is blocked: it prints environment variables.";
    if ((name === "export" || name === "declare" || name === "typeset") && (args.length === 0 || args.some((a) => /^-\w*p/.test(a))))
      return `${name} listing is blocked: it prints environment variables.`;
    if (name === "set" && args.every((a) => a === "-o" || a === "--" || a === "-")) return "set without arguments is blocked: it prints every variable.";
    if (name === "fc" && args.some((a) => a.startsWith("-l"))) return "fc -l is blocked: it prints shell history.";
    for (const word of [program, ...args]) if (isSecretPath(word) || envFile.test(word)) return `Reading ${word} is blocked: it may hold credentials.`;
  }
  if (/\/proc\/[^\s/]+\/environ/.test(command)) return "Reading /proc/*/environ is blocked: it holds environment variables.";
  return undefined;
}

/** The tool's output as text, whichever shape the assistant reported it in. */
export function toolOutputText(response: unknown): string {
  if (typeof response === "string") return response;
  return JSON.stringify(response ?? "");
}

/** Claude Code's answer for a PostToolUse hook when vault values were found in the output. */
export function postToolAnswer(toolName: string, response: unknown, sanitizer: Sanitizer) {
  const { text, services } = sanitizer.text(toolOutputText(response));
  if (!services.length) return undefined;
  const reason = `The output of ${toolName} contained credential values (${services.join(", ")}); use this redacted output instead:\n${text}`;
  return {
    decision: "block" as const,
    reason,
    hookSpecificOutput: {
      hookEventName: "PostToolUse",
      additionalContext: reason,
      ...(toolName.startsWith("mcp__") ? { updatedMCPToolOutput: text } : {}),
    },
  };
}
