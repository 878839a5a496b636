/**
 * The external tools a test needs, as the project's install script leaves them. A missing one fails the test
 * with what is missing and how to install it; it never skips.
 */
import { findTool } from "../../src/toolchain.ts";

export function requireTool(name: string): string {
  const path = findTool(name);
  if (!path) throw new Error(`${name} is not installed: run \`bun run tools\` (or \`bun scripts/tools/install.ts ${name}\`); \`bun run test\` does this first`);
  return path;
}
