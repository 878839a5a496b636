/**
 * Runs OPA's own conformance cases (the shared corpus) through the engine, once with rules evaluated by
 * their closures and once as generated code, and through real OPA beside it. A case real OPA fails is
 * reported, not held against the engine; every case real OPA passes, the engine must pass both ways.
 * `scripts/conformance.ts <dir>` runs the same over any directory of OPA's cases (its full suite).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { requireTool } from "../support/tools.ts";
import { type Case, judge, loadCases, pooled, runEngine, runOpa } from "./opa-cases.ts";

const CORPUS = join(import.meta.dir, "../../../shared/opa-conformance");
const cases = loadCases(CORPUS);

/** Real OPA's verdict per case: undefined where it passes, else why it fails. */
const opaVerdicts = new Map<Case, string | undefined>();
let passed = 0;
let failed = 0;

beforeAll(async () => {
  const opa = requireTool("opa");
  const verdicts = await pooled(cases, 4, async (c) => judge(c, await runOpa(opa, c)));
  cases.forEach((c, i) => opaVerdicts.set(c, verdicts[i]));
}, 120_000);

describe.each([
  ["closures", undefined],
  ["generated code", 0],
] as const)("OPA conformance through %s", (_mode, compileAfter) => {
  for (const c of cases) {
    test(`${c.id}: ${c.note}`, () => {
      const verdict = judge(c, runEngine(c, compileAfter));
      if (verdict === undefined) passed++;
      else if (opaVerdicts.get(c) === undefined) failed++;
      // A case real OPA fails too is only reported.
      if (opaVerdicts.get(c) === undefined) expect(verdict).toBeUndefined();
    });
  }
});

describe("real OPA on the same cases", () => {
  test("answers every case (a result or an error, never a runner fault)", () => {
    expect(opaVerdicts.size).toBe(cases.length);
    const faults = cases.filter((c) => opaVerdicts.get(c)?.includes("runner_error"));
    expect(faults.map((c) => c.id)).toEqual([]);
  });
});

afterAll(() => {
  const opaFails = cases.filter((c) => opaVerdicts.get(c) !== undefined);
  for (const c of opaFails) console.log(`real OPA fails ${c.id} (${c.note}): ${opaVerdicts.get(c)}`);
  console.log(
    `real OPA passes ${cases.length - opaFails.length} of ${cases.length} cases; the engine: ${passed} passed, ${failed} failed (each case through closures and through generated code)`,
  );
});
