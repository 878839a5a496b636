/**
 * External programs the platform drives (Chromium, OpenTofu, terraform-ls, ...): where the project's install
 * script keeps the ones it builds, and how a capability finds one. A user's own binary (configured, or on PATH)
 * is found the same way as one the script installed.
 */
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { delimiter, join } from "node:path";

/** The install script's cache: `<home>/<name>/<version>/` per tool, and `<home>/bin/<name>` for the current one. */
export const toolsHome = (env: Record<string, string | undefined> = process.env): string =>
  env.PLATFORM_TOOLS_DIR || join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "platform", "tools");

/**
 * The executable `name`: the configured path when one is given (it must exist), else the first on PATH, else the
 * one the install script put in the cache. Undefined when there is none.
 */
export function findTool(name: string, configured = "", env: Record<string, string | undefined> = process.env): string | undefined {
  if (configured) return existsSync(configured) ? configured : undefined;
  const dirs = [...(env.PATH ?? "").split(delimiter).filter(Boolean), join(toolsHome(env), "bin")];
  return dirs.map((dir) => join(dir, name)).find((path) => existsSync(path));
}
