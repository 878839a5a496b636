/**
 * Reads a credential on stdin, never from the command line (where every user of the machine sees it in `ps`):
 * on a terminal, one prompt per field with echo off; otherwise a JSON object of the fields. Nothing read here is
 * ever written back: the errors name what is wrong, never what was given.
 */
import { UsageError } from "./verb.ts";

export interface SecretField {
  name: string;
  label: string;
  optional?: boolean;
}

export async function readCredential(fields: SecretField[]): Promise<Record<string, string>> {
  if (process.stdin.isTTY) return promptHidden(fields);
  const text = await Bun.stdin.text();
  const example = `{${fields.map((f) => `"${f.name}": "..."`).join(", ")}}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new UsageError(`give the credential on stdin as a JSON object such as ${example} (or run in a terminal to be asked for it)`);
  }
  if (!value || typeof value !== "object" || Array.isArray(value) || Object.values(value).some((v) => typeof v !== "string"))
    throw new UsageError(`the credential on stdin must be a JSON object of strings, such as ${example}`);
  return value as Record<string, string>;
}

/**
 * One prompt per field on stderr, the terminal in raw mode so that nothing typed is echoed; Enter ends a field,
 * Backspace takes a character back, Ctrl-C gives up. An optional field left empty is left out.
 */
async function promptHidden(fields: SecretField[]): Promise<Record<string, string>> {
  const stdin = process.stdin;
  // Echo goes off before the first prompt shows, so nothing typed after it reaches the screen.
  stdin.setRawMode(true);
  const typed: string[] = [];
  let wake: (() => void) | undefined;
  const onData = (chunk: Buffer) => {
    typed.push(...chunk.toString("utf8"));
    wake?.();
  };
  const next = async () => {
    while (!typed.length) await new Promise<void>((resolve) => (wake = resolve));
    return typed.shift()!;
  };
  stdin.on("data", onData);
  stdin.resume();
  const credential: Record<string, string> = {};
  try {
    for (const field of fields) {
      process.stderr.write(`${field.label}${field.optional ? " (optional, Enter to skip)" : ""}: `);
      let value = "";
      for (let char = await next(); char !== "\r" && char !== "\n"; char = await next()) {
        if (char === "\u0003" || char === "\u0004") {
          process.stderr.write("\n");
          throw new Error("cancelled; nothing was changed");
        }
        if (char === "\u007f" || char === "\b") value = value.slice(0, -1);
        else value += char;
      }
      process.stderr.write("\n");
      if (value) credential[field.name] = value;
    }
  } finally {
    stdin.off("data", onData);
    stdin.setRawMode(false);
    stdin.pause();
  }
  return credential;
}
