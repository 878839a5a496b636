/**
 * Which tofu or terraform runs: the configured `infra.binary`, else tofu (PATH, then the tools cache), else a
 * terraform on PATH. Both speak the same command line; results name the one that ran.
 */
import { existsSync } from "node:fs";
import { basename } from "node:path";
import type { Config } from "../config.ts";
import { findTool } from "../toolchain.ts";
import { InfraError } from "./errors.ts";
import type { Binary } from "./views.ts";

export function findBinary(config: Config["infra"]): Binary | undefined {
  if (config.binary) {
    const path = findTool(basename(config.binary), config.binary);
    return path ? { path, name: basename(path).includes("terraform") ? "terraform" : "tofu" } : undefined;
  }
  const tofu = findTool("tofu");
  if (tofu) return { path: tofu, name: "tofu" };
  const terraform = findTool("terraform");
  return terraform ? { path: terraform, name: "terraform" } : undefined;
}

export function requireBinary(config: Config["infra"]): Binary {
  const binary = findBinary(config);
  if (binary) return binary;
  if (config.binary) throw InfraError.missingTool("tofu", `infra.binary is ${config.binary}, which does not exist`);
  throw InfraError.missingTool("tofu", "neither tofu nor terraform is on PATH; run `bun run tools` (or set infra.binary)");
}

/**
 * The environment every run gets: this process's, with no prompts, no update checks, output meant for a program.
 * A TF_CLI_CONFIG_FILE naming a missing file is dropped: tofu would print a warning into machine-readable output
 * (`fmt -`, `version -json`) and otherwise behave as without it.
 */
export function automationEnv(env: Record<string, string | undefined> = process.env): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) result[key] = value;
  if (result.TF_CLI_CONFIG_FILE && !existsSync(result.TF_CLI_CONFIG_FILE)) delete result.TF_CLI_CONFIG_FILE;
  return { ...result, TF_IN_AUTOMATION: "1", TF_INPUT: "0", CHECKPOINT_DISABLE: "1" };
}
