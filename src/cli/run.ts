/** Parses argv into a verb and its options; prints help and usage hints; maps failures to exit codes. */
import { parseArgs } from "node:util";
import { ConfigError } from "../config.ts";
import { helpOption, UsageError, type Verb } from "./verb.ts";

export async function runCli(verbs: Verb[], argv: string[], env = process.env): Promise<number> {
  const byName = new Map(verbs.map((v) => [v.name, v]));
  let [first, ...rest] = argv;
  if (first === "--help" || first === "-h" || first === "help") return print(overview(verbs));
  if (first === "--version") first = "version";
  // With no verb, `serve` is meant (`platform --port 9000`), or `mcp` when TRANSPORT_MODE=stdio.
  const implicit = first === undefined || first.startsWith("-");
  const verb = implicit ? byName.get(env.TRANSPORT_MODE === "stdio" ? "mcp" : "serve")! : byName.get(first!);
  const args = implicit ? argv : rest;
  if (!verb) return usage(`unknown command '${first}'`, "platform --help");

  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...verb.options, ...helpOption }, strict: true, allowPositionals: true });
  } catch (error) {
    return usage(parseProblem(verb, (error as Error).message), `platform ${verb.name} --help`);
  }
  if (parsed.values.help) return print(verbHelp(verb));
  if (!verb.args && parsed.positionals.length) return usage(`unexpected argument '${parsed.positionals[0]}'`, `platform ${verb.name} --help`);
  try {
    return await verb.run(parsed.values, parsed.positionals);
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message, `platform ${verb.name} --help`);
    const message = error instanceof ConfigError ? error.message : `platform ${verb.name}: ${(error as Error).message}`;
    process.stderr.write(`${message}\n`);
    return 1;
  }
}

/**
 * Node's words for a command line it could not read, in ours: an option given without its value (at the end, or
 * followed by another option, which Node calls "ambiguous") says which value it needs.
 */
function parseProblem(verb: Verb, message: string): string {
  const valueless = /^Option '--([\w-]+)(?: <value>)?' argument (?:missing|is ambiguous)/.exec(message);
  if (!valueless) return message.split("\n")[0]!.replace(/\. To specify.*$/, "");
  const name = valueless[1]!;
  const meaning = verb.help[name]?.trim().replace(/^--\S+(\s+<[^>]+>)?\s+/, "");
  return `--${name} needs a value${meaning ? `: ${meaning}` : ""}`;
}

function usage(problem: string, hint: string): number {
  process.stderr.write(`platform: ${problem}. Try '${hint}'.\n`);
  return 2;
}

function print(text: string): number {
  process.stdout.write(text);
  return 0;
}

function overview(verbs: Verb[]): string {
  const width = Math.max(...verbs.map((v) => v.name.length)) + 2;
  return [
    "Usage: platform [command] [options]",
    "",
    "Commands:",
    ...verbs.map((v) => `  ${v.name.padEnd(width)}${v.summary}`),
    "",
    "Run 'platform <command> --help' for a command's options.",
    "",
  ].join("\n");
}

function verbHelp(verb: Verb): string {
  return [
    `Usage: platform ${verb.name}${verb.args ? ` ${verb.args}` : ""}${Object.keys(verb.options).length ? " [options]" : ""}`,
    "",
    verb.summary[0]!.toUpperCase() + verb.summary.slice(1) + ".",
    "",
    "Options:",
    ...Object.values(verb.help).map((line) => `  ${line}`),
    "  -h, --help           show this help",
    "",
  ].join("\n");
}
