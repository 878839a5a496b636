#!/usr/bin/env bun
/**
 * `bun scripts/tools/install.ts [name...]`: installs every external tool the tests need (or the named ones) into
 * the cache (src/toolchain.ts says where), each pinned and cached by version, so a second run only checks.
 * The README's test command runs it first.
 */
import { toolsHome } from "../../src/toolchain.ts";
import { ensure } from "./recipe.ts";
import { tools } from "./tools.ts";

const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !tools.some((tool) => tool.name === name));
if (unknown.length) {
  console.error(`unknown tool ${unknown.join(", ")}; have: ${tools.map((t) => t.name).join(", ")}`);
  process.exit(2);
}
const home = toolsHome();
for (const recipe of tools.filter((tool) => !wanted.length || wanted.includes(tool.name))) {
  const started = performance.now();
  try {
    if (await ensure(recipe, home))
      console.error(`ready: ${recipe.name} ${recipe.version} (${recipe.purpose}), in ${Math.round((performance.now() - started) / 1000)} s`);
  } catch (error) {
    console.error(`could not install ${recipe.name} ${recipe.version}: ${(error as Error).message}`);
    process.exit(1);
  }
}
