#!/usr/bin/env bun
/**
 * `bun scripts/conformance.ts <dir> [--list]`: runs every OPA conformance case (YAML, as in OPA's
 * `test/cases/testdata`) under `<dir>` through the embedded engine and through real OPA (installed by
 * `bun run tools`), and prints the pass counts of both and the share of real OPA's passes the engine also
 * passes. `--list` also prints each case real OPA passes and the engine does not, with both answers.
 */
import { findTool } from "../src/toolchain.ts";
import { judge, loadCases, pooled, runEngine, runOpa } from "../tests/rego/opa-cases.ts";

const [dir, ...flags] = process.argv.slice(2);
if (!dir) {
  console.error("usage: bun scripts/conformance.ts <directory of OPA conformance YAML> [--list]");
  process.exit(2);
}
const opa = findTool("opa");
if (!opa) {
  console.error("opa is not installed: run `bun run tools` (or `bun scripts/tools/install.ts opa`)");
  process.exit(2);
}

const cases = loadCases(dir);
const started = performance.now();
const engine = cases.map((c) => judge(c, runEngine(c)));
const engineSeconds = (performance.now() - started) / 1000;
const real = await pooled(cases, 4, async (c) => judge(c, await runOpa(opa, c)));

const topic = (id: string) => id.split("/")[0]!;
const opaPasses = cases.filter((_, i) => real[i] === undefined);
const both = cases.filter((_, i) => real[i] === undefined && engine[i] === undefined);
const missed = cases.map((c, i) => ({ c, i })).filter(({ i }) => real[i] === undefined && engine[i] !== undefined);
const extra = cases.filter((_, i) => real[i] !== undefined && engine[i] === undefined);

const byTopic = new Map<string, number>();
for (const { c } of missed) byTopic.set(topic(c.id), (byTopic.get(topic(c.id)) ?? 0) + 1);

console.log(`cases: ${cases.length} in ${dir}`);
console.log(`| engine | passes | of real OPA's passes |`);
console.log(`| --- | ---: | ---: |`);
console.log(`| real OPA | ${opaPasses.length} | 100% |`);
console.log(
  `| embedded engine | ${cases.length - engine.filter(Boolean).length} | ${both.length}/${opaPasses.length} = ${((100 * both.length) / Math.max(1, opaPasses.length)).toFixed(1)}% |`,
);
console.log(`engine alone took ${engineSeconds.toFixed(1)} s; it passes ${extra.length} case(s) real OPA fails`);
console.log(`cases real OPA passes and the engine fails, by topic:`);
for (const [t, n] of [...byTopic].sort((a, b) => b[1] - a[1])) console.log(`  ${t}: ${n}`);
if (flags.includes("--list"))
  for (const { c, i } of missed) console.log(`\n${c.id} (${c.note})\n  engine: ${engine[i]}`);
