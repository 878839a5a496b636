import { afterAll, beforeAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { VaultError } from "../../src/vault/errors.ts";
import type { VaultService } from "../../src/vault/service.ts";
import { githubToken, startVault, type Harness } from "./harness.ts";
import { failOnStalls } from "../support/loop.ts";

failOnStalls();

const operator = { name: "test", services: ["*"] };
let h: Harness;
let vault: VaultService;

beforeAll(async () => {
  h = await startVault({ PLATFORM_VAULT__EXEC_TIMEOUT_MS: "300" });
  vault = h.capability.vault;
  // printenv and sleep stand in for git/gh: present everywhere, and they show what the child received.
  await vault.addService({ name: "gh", template: "github", credential: { token: githubToken }, commands: ["printenv", "sleep", "echo"] }, operator);
});
afterAll(() => h.close());

test("the credential reaches the child's environment and its output comes back redacted", async () => {
  const result = await vault.exec({ service: "gh", command: "printenv", args: ["GH_TOKEN"] }, operator);
  expect(result).toEqual({ exitCode: 0, stdout: "[REDACTED:gh]\n", stderr: "", timedOut: false });
});

test("arguments reach the program as they are: no shell", async () => {
  const result = await vault.exec({ service: "gh", command: "echo", args: ["$GH_TOKEN", "; printenv", "`id`"] }, operator);
  expect(result.stdout).toBe("$GH_TOKEN ; printenv `id`\n");
});

test("commands off the allowlist, and paths, are refused", async () => {
  for (const command of ["sh", "/usr/bin/printenv", "../printenv"]) {
    const error = await vault.exec({ service: "gh", command, args: [] }, operator).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VaultError);
    expect((error as VaultError).code).toBe("COMMAND_NOT_ALLOWED");
  }
});

test("a command outliving its credential lease is killed", async () => {
  const result = await vault.exec({ service: "gh", command: "sleep", args: ["30"] }, operator);
  expect(result).toMatchObject({ exitCode: null, timedOut: true });
  const leases = await h.runtime.database.rows<{ state: string }>(sql`SELECT state FROM vault_leases WHERE purpose = 'exec'`);
  expect(leases.map((l) => l.state)).toContain("expired");
  expect(leases.every((l) => l.state === "expired" || l.state === "revoked")).toBe(true);
});
