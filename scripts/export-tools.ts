#!/usr/bin/env bun
/**
 * `bun scripts/export-tools.ts [--out tools.json]`: writes the infra server's catalog file from its registered
 * tools (src/infra/catalog.ts), with the default configuration, in a throwaway data dir. A test fails when the
 * committed file differs from what this writes.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { loadConfig } from "../src/config.ts";
import { infraCapability } from "../src/infra/capability.ts";
import { toolCatalog } from "../src/infra/catalog.ts";
import { createLogger } from "../src/log.ts";
import { startRuntime } from "../src/runtime.ts";

const { values } = parseArgs({ options: { out: { type: "string" } } });
export const catalogFile = join(import.meta.dir, "..", "tools.json");

/** The catalog as the server registers it, rendered as the committed file is. */
export async function exportCatalog(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "platform-export-"));
  const config = loadConfig({ env: { PLATFORM_DATA_DIR: join(dir, "data"), PLATFORM_INFRA__WORKSPACE_ROOT: join(dir, "workspace") } });
  const runtime = await startRuntime(config, createLogger({ level: "error" }), [infraCapability], { role: "guest", mcpServer: "infra" });
  try {
    return `${JSON.stringify(toolCatalog(runtime.mcp.get("infra")!), null, 2)}\n`;
  } finally {
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const out = resolve(values.out ?? catalogFile);
  writeFileSync(out, await exportCatalog());
  console.log(`wrote ${out}`);
}
