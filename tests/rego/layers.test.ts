/**
 * src/rego is layered as OPA's packages are: values -> syntax -> plan -> eval -> builtins -> engine.ts. A file
 * imports only from its own layer or those below it (type-only imports count too), and no file reaches
 * itself through its imports.
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = join(import.meta.dir, "../../src/rego");
const LAYERS = ["values", "syntax", "plan", "eval", "builtins", "engine.ts"];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
}

/** The files of src/rego a file imports (static, dynamic, type-only and re-exports alike). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const specs = [...text.matchAll(/(?:from\s+|import\s*\(\s*|require\(\s*|^import\s+)"(\.{1,2}\/[^"]+)"/gm)].map((m) => m[1]!);
  return specs.map((s) => resolve(dirname(file), s)).filter((p) => p.startsWith(ROOT));
}

const layerOf = (file: string) => {
  const first = relative(ROOT, file).split("/")[0]!;
  const i = LAYERS.indexOf(first);
  if (i < 0) throw new Error(`${relative(ROOT, file)} is in no layer; the layers are ${LAYERS.join(", ")}`);
  return i;
};

const graph = new Map(sources(ROOT).map((f) => [f, importsOf(f)]));

describe("src/rego layers", () => {
  test("every file sits in a layer and imports only from its own or a lower one", () => {
    const upward: string[] = [];
    for (const [file, imports] of graph)
      for (const target of imports)
        if (layerOf(target) > layerOf(file)) upward.push(`${relative(ROOT, file)} -> ${relative(ROOT, target)}`);
    expect(upward).toEqual([]);
  });

  test("no import cycle", () => {
    const state = new Map<string, "open" | "done">();
    const cycles: string[] = [];
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === "done") return;
      if (state.get(file) === "open") {
        cycles.push([...path.slice(path.indexOf(file)), file].map((f) => relative(ROOT, f)).join(" -> "));
        return;
      }
      state.set(file, "open");
      for (const next of graph.get(file) ?? []) visit(next, [...path, file]);
      state.set(file, "done");
    };
    for (const file of graph.keys()) visit(file, []);
    expect(cycles).toEqual([]);
  });

  test("the walk sees the imports it checks", () => {
    // A guard for the check itself: the engine imports each layer.
    const engine = graph.get(join(ROOT, "engine.ts"))!.map((f) => relative(ROOT, f).split("/")[0]);
    for (const layer of ["values", "syntax", "plan", "eval", "builtins"]) expect(engine).toContain(layer);
  });
});
