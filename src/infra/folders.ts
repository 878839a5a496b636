/** What a workspace folder holds on disk: its configuration files, whether it is initialised, its backend, its lock file. */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseHcl } from "./hcl.ts";
import type { LockedProvider } from "./views.ts";

export const isInitialised = (dir: string) => existsSync(join(dir, ".terraform")) || existsSync(join(dir, ".terraform.lock.hcl"));

export const configurationFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(tf|tofu)$/.test(entry.name))
    .map((entry) => join(dir, entry.name))
    .sort();

/** Folders holding .tf files, below `root` and `depth` levels deep at most; hidden folders and .terraform skipped. */
export function configurationDirs(root: string, depth = 6): string[] {
  const found: string[] = [];
  const walk = (dir: string, level: number) => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((e) => e.isFile() && /\.(tf|tofu)$/.test(e.name))) found.push(dir);
    if (level >= depth) return;
    for (const entry of entries) if (entry.isDirectory() && !entry.name.startsWith(".") && entry.name !== "node_modules") walk(join(dir, entry.name), level + 1);
  };
  walk(root, 0);
  return found;
}

export async function backendOf(dir: string): Promise<string> {
  for (const file of configurationFiles(dir)) {
    const parsed = await parseHcl(file, readFileSync(file, "utf8"));
    for (const block of parsed.body.blocks.filter((b) => b.type === "terraform")) {
      const backend = block.body.blocks.find((b) => b.type === "backend" || b.type === "cloud");
      if (backend) return backend.type === "cloud" ? "cloud" : (backend.labels[0] ?? "unknown");
    }
  }
  return "local";
}

export async function lockedProviders(file: string): Promise<LockedProvider[]> {
  if (!existsSync(file)) return [];
  const parsed = await parseHcl(file, readFileSync(file, "utf8"));
  const text = (name: string, block: (typeof parsed.body.blocks)[number]) => {
    const expr = block.body.attributes.get(name)?.expr;
    return expr?.kind === "literal" && typeof expr.value === "string" ? expr.value : null;
  };
  return parsed.body.blocks
    .filter((b) => b.type === "provider")
    .map((b) => ({ source: b.labels[0] ?? "", version: text("version", b), constraints: text("constraints", b) }));
}

