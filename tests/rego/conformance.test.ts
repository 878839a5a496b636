/**
 * Runs OPA's own conformance cases (the shared corpus) through the engine, once with rules evaluated by
 * their closures and once as generated code: each case is one test per way, and a closing line reports
 * `N passed, N failed` over both.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { parse } from "yaml";
import { RegoEngine, RegoError } from "../../src/rego/engine.ts";
import { compare, fromJS, keyOf, RObject, RSet, toJSON, type Value } from "../../src/rego/values.ts";

const CORPUS = join(import.meta.dir, "../../../shared/opa-conformance");

interface Case {
  note: string;
  query: string;
  modules?: string[];
  data?: unknown;
  input?: unknown;
  input_term?: string;
  want_result?: Record<string, unknown>[];
  want_error_code?: string;
  want_error?: string;
  strict_error?: boolean;
  sort_bindings?: boolean;
}

function caseFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? caseFiles(join(dir, e.name)) : e.name.endsWith(".yaml") ? [join(dir, e.name)] : [],
  );
}

/** The value as OPA's JSON output shows it: sets as sorted arrays, non-string keys as their JSON text. */
function asJSON(v: Value, sortArrays: boolean): Value {
  if (v instanceof RSet) return v.values().map((x) => asJSON(x, false));
  if (Array.isArray(v)) {
    const items = v.map((x) => asJSON(x, false));
    return sortArrays ? items.sort(compare) : items;
  }
  if (v instanceof RObject) return RObject.of(v.entries().map(([k, x]) => [typeof k === "string" ? k : toJSON(k), asJSON(x, false)]));
  return v;
}

const resultKey = (r: Record<string, Value>, sort: boolean) =>
  keyOf(RObject.of(Object.entries(r).map(([k, v]) => [k, asJSON(v, sort)])));

/** Integers come back as bigint so values beyond a double's exact range stay exact. */
const loadYaml = (text: string) => parse(text, { intAsBigInt: true }) as { cases: Case[] };

/** `compileAfter`: 0 runs every rule as generated code, the default runs each case's rules through closures. */
function run(c: Case, compileAfter?: number) {
  const engine = new RegoEngine({ strictBuiltinErrors: c.strict_error ?? false, compileAfter });
  engine.load(
    (c.modules ?? []).map((source, i) => ({ id: `module${i}.rego`, source })),
    c.data ?? {},
  );
  const input = c.input_term !== undefined ? new RegoEngine().queryValues(`value = ${c.input_term}`)[0]!.value : c.input;
  return engine.queryValues(c.query, { input });
}

const files = caseFiles(CORPUS).sort();
let passed = 0;
let failed = 0;

describe.each([
  ["closures", undefined],
  ["generated code", 0],
] as const)("OPA conformance through %s", (_mode, compileAfter) => {
  for (const file of files) {
    const { cases } = loadYaml(readFileSync(file, "utf8"));
    cases.forEach((c, i) => {
      test(`${relative(CORPUS, file)}#${i}: ${c.note}`, () => {
        try {
          if (c.want_error_code || c.want_error) {
            let error: unknown;
            try {
              run(c, compileAfter);
            } catch (e) {
              error = e;
            }
            expect(error).toBeInstanceOf(RegoError);
            if (c.want_error_code) expect((error as RegoError).code).toBe(c.want_error_code as RegoError["code"]);
            if (c.want_error) expect((error as RegoError).message).toContain(c.want_error);
          } else {
            const sort = c.sort_bindings ?? false;
            const actual = run(c, compileAfter).map((r) => resultKey(r, sort)).sort();
            const expected = (c.want_result ?? [])
              .map((r) => resultKey(Object.fromEntries(Object.entries(r).map(([k, v]) => [k, fromJS(v)])), sort))
              .sort();
            expect([...new Set(actual)]).toEqual([...new Set(expected)]);
          }
          passed++;
        } catch (e) {
          failed++;
          throw e;
        }
      });
    });
  }
});

afterAll(() => {
  console.log(`${passed} passed, ${failed} failed (each case through closures and through generated code)`);
});
