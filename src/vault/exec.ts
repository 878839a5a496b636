/**
 * Runs an allowlisted command for a service with its credential in the child's environment: no shell (the
 * arguments reach the program as they are), a minimal environment, a time limit, and output sanitized before
 * anyone sees it. An SSH key is written to a private temporary file for the run and removed afterwards.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VaultError } from "./errors.ts";
import type { Credential, ExecResult, ServiceSettings } from "./model.ts";
import type { Sanitizer } from "./sanitizer.ts";

const maxOutputBytes = 1024 * 1024;
const commandName = /^[A-Za-z0-9_.+-]{1,64}$/;

export interface ExecOptions {
  settings: ServiceSettings;
  credential: Credential;
  sanitizer: Sanitizer;
  /** Where allowlisted commands are looked up; never the agent's own PATH. */
  path: string;
  /** Called with a function that ends the run early (the credential lease expiring or being revoked). */
  onStart?(kill: () => void): void;
}

export async function runCommand(command: string, args: string[], options: ExecOptions): Promise<ExecResult> {
  const { settings, credential, sanitizer } = options;
  if (!commandName.test(command) || !settings.commands.includes(command))
    throw new VaultError("COMMAND_NOT_ALLOWED", `${command.slice(0, 64)} is not allowed for this service (allowed: ${settings.commands.join(", ") || "none"})`);
  const executable = Bun.which(command, { PATH: options.path });
  if (!executable) throw new VaultError("NOT_FOUND", `${command} is allowed but not installed on this machine`);

  const env: Record<string, string> = { PATH: options.path, HOME: process.env.HOME ?? tmpdir(), LANG: "C.UTF-8", TERM: "dumb" };
  for (const [name, field] of Object.entries(settings.env)) if (credential[field]) env[name] = credential[field]!;
  let keyDir: string | undefined;
  if (settings.injection.type === "ssh_key" && credential.private_key) {
    keyDir = mkdtempSync(join(tmpdir(), "platform-ssh-"));
    const keyFile = join(keyDir, "id");
    writeFileSync(keyFile, credential.private_key.endsWith("\n") ? credential.private_key : `${credential.private_key}\n`, { mode: 0o600 });
    env.GIT_SSH_COMMAND = `ssh -i ${keyFile} -o IdentitiesOnly=yes -o BatchMode=yes`;
    env.SSH_KEY_FILE = keyFile;
  }

  let timedOut = false;
  const child = Bun.spawn([executable, ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const kill = () => {
    timedOut = true;
    child.kill("SIGKILL");
  };
  options.onStart?.(kill);
  try {
    const [stdout, stderr] = await Promise.all([collect(child.stdout, sanitizer), collect(child.stderr, sanitizer)]);
    await child.exited;
    return { exitCode: timedOut ? null : child.exitCode, stdout, stderr, timedOut };
  } finally {
    if (keyDir) rmSync(keyDir, { recursive: true, force: true });
  }
}

async function collect(stream: ReadableStream<Uint8Array>, sanitizer: Sanitizer): Promise<string> {
  const redactor = sanitizer.redactor();
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of stream) {
    if (size >= maxOutputBytes) continue; // keep draining so the child is never blocked on a full pipe
    size += chunk.byteLength;
    parts.push(redactor.push(chunk));
  }
  parts.push(redactor.end());
  const text = Buffer.concat(parts).toString("utf8");
  return size > maxOutputBytes ? `${text}\n[output truncated at ${maxOutputBytes} bytes]` : text;
}
