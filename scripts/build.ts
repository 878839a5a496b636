/**
 * `bun run build [--outfile path]`: compiles the platform into one executable, dist/platform by default. Migrations and package metadata
 * are imported as modules, so they travel inside it; nothing is read from beside the binary at run time.
 * Code splitting keeps what is imported lazily (the MCP SDK, Kafka, X.509 tooling, mTLS, jose) in chunks of
 * their own inside the executable: a start loads only the bytecode of what it reaches.
 */
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const root = join(import.meta.dir, "..");
const { values } = parseArgs({ options: { outfile: { type: "string" } } });
const outfile = resolve(values.outfile ?? join(root, "dist/platform"));
const result = await Bun.build({
  entrypoints: [join(root, "src/main.ts")],
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
