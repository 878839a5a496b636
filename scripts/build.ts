/**
 * `bun run build [--outfile path]`: compiles the platform into one executable, dist/platform by default. Migrations and package metadata
 * are imported as modules, so they travel inside it; nothing is read from beside the binary at run time.
 * Code splitting keeps what is imported lazily (the MCP SDK, Kafka, X.509 tooling, mTLS, jose) in chunks of
 * their own inside the executable: a start loads only the bytecode of what it reaches. playwright-core, axe-core
 * and the browser driver are bundled in too: the executable needs only Debian's Chromium beside it.
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { driverEntry } from "../src/browser/host.ts";

const root = join(import.meta.dir, "..");
const { values } = parseArgs({ options: { outfile: { type: "string" } } });
const outfile = resolve(values.outfile ?? join(root, "dist/platform"));
const result = await Bun.build({
  // The browser driver runs in a worker thread, whose entry must be built in beside the main one.
  entrypoints: [join(root, "src/main.ts"), join(root, "src", `${driverEntry}.ts`)],
  compile: { outfile },
  minify: true,
  bytecode: true,
  format: "esm",
  splitting: true,
});
if (!result.success) {
  for (const log of result.logs) console.error(log);
  process.exit(1);
}
console.log(`built ${outfile}`);
