/**
 * Rules run as generated JavaScript in an evaluation's own context once warm, and as closures before that
 * and under `with`. Both give the same answers and the same errors, and no policy text ever becomes code.
 */
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { builtins } from "../../src/rego/builtins/registry.ts";
import { Compiler } from "../../src/rego/plan/compiler.ts";
import type { DocNode } from "../../src/rego/plan/tree.ts";
import { RegoEngine, RegoError } from "../../src/rego/engine.ts";
import { Run } from "../../src/rego/eval/evaluator.ts";
import { parseModule } from "../../src/rego/syntax/parser.ts";
import { answer } from "../../src/rego/eval/rules.ts";
import { errorOf, where } from "./support.ts";
import { fromJS } from "../../src/rego/values/values.ts";

type Outcome = { value: unknown } | { error: string };

/** The package's document as generated code computes it (an evaluation's own context, every rule compiled at once). */
function generated(engine: RegoEngine, pkg: string, input: unknown): Outcome {
  try {
    return { value: engine.evaluate(pkg.replaceAll(".", "/"), input).result };
  } catch (e) {
    if (e instanceof RegoError) return { error: `${e.code}: ${e.message}` };
    throw e;
  }
}

/** The same document through the closures: under a `with`, every rule takes the closure path. */
function closures(engine: RegoEngine, pkg: string, input: unknown): Outcome {
  try {
    return { value: engine.query(`x := data.${pkg} with input as input`, { input })[0]?.x };
  } catch (e) {
    if (e instanceof RegoError) return { error: `${e.code}: ${e.message}` };
    throw e;
  }
}

function agree(source: string, inputs: unknown[], data: unknown = {}, options = {}): Outcome[] {
  const engine = new RegoEngine({ ...options, compileAfter: 0 });
  engine.load([{ id: "p.rego", source }], data);
  const pkg = source.match(/^package ([\w.]+)/m)![1]!;
  return inputs.map((input) => {
    const g = generated(engine, pkg, input);
    expect(closures(engine, pkg, input)).toEqual(g);
    return g;
  });
}

describe("generated code and closures agree", () => {
  test("on the default authorization policy", async () => {
    const policies = join(import.meta.dir, "../../policies");
    const source = await Bun.file(join(policies, "authz.rego")).text();
    const data = await Bun.file(join(policies, "data.json")).json();
    const td = "spiffe://platform.local";
    const callers = [`${td}/agent/planner`, `${td}/agent/order-bot`, `${td}/agent/reporter`, "spiffe://partner.example/agent/x", "not-a-spiffe-id"];
    const actions = ["catalog:read", "catalog:orders.create", "task.send", "vault:check", "health:read"];
    const classes = [undefined, "public", "internal", "confidential", "restricted"];
    const inputs = callers.flatMap((caller, i) =>
      actions.flatMap((action, j) =>
        classes.map((cls, k) => ({
          caller_spiffe_id: caller,
          callee_spiffe_id: `${td}/service/catalog`,
          action,
          context: { ...(cls ? { data_classification: cls } : {}), ...((i + j + k) % 3 === 0 ? { delegated_by: `${td}/agent/planner` } : {}) },
        })),
      ),
    );
    const outcomes = agree(source, inputs, data);
    expect(outcomes.filter((o) => "value" in o && (o.value as { allow: boolean }).allow).length).toBeGreaterThan(10);
  });

  test("on loops, refs that iterate, negation, every and comprehensions", () => {
    const source = `package loops

pairs := [[k, v] | some k, v in input.obj]

tags contains t if input.items[_].tags[_] = t

indexed := {i: x | some i, x in input.items; x.id > 1}

none_three if not input.nums[_] == 3

all_small if every n in input.nums { n < 10 }

all_keys if every k, v in input.obj { k != v }

every_odd if every x in input.odd { x > 0 }

nested := [[a, b] | some a in input.nums; some b in input.nums; a < b]

set_of := {x | some x in input.nums} | {100}

counted := count([1 | input.items[i].id > 1; input.items[i].tags[_] == "b"])

first := y if {
	some y in input.nums
	y > 1
}
`;
    const inputs = [
      { obj: { b: 1, a: 2 }, items: [{ id: 1, tags: ["a", "b"] }, { id: 2, tags: ["b", "c"] }], nums: [1, 2, 3], odd: "no" },
      { obj: { a: "a" }, items: [], nums: [1, 5], odd: [1, 2] },
      { obj: {}, items: [{ id: 3, tags: "x" }], nums: [12], odd: {} },
      { nums: [4] },
    ];
    const outcomes = agree(source, inputs);
    expect(outcomes[0]).toEqual({ error: expect.stringContaining("eval_conflict_error") });
    expect(outcomes[1]).toEqual({
      value: { pairs: [["a", "a"]], tags: [], indexed: {}, none_three: true, all_small: true, every_odd: true, nested: [[1, 5]], set_of: [1, 5, 100], counted: 0, first: 5 },
    });
  });

  test("on partial rules, functions, else chains and data refs", () => {
    const source = `package shapes

deny contains msg if {
	some r in input.requests
	not r.user in data.users
	msg := sprintf("unknown user %v", [r.user])
}

by_user[r.user] := r.amount if some r in input.requests

grid[a][b] := a * b if {
	some a in [1, 2]
	some b in [3, 4]
}

level(x) := "high" if x > 100
else := "mid" if x > 10
else := "low"

same(x, x) := true

fixed(1, y) := y

levels := [level(r.amount) | some r in input.requests]

twins := [same(1, 1), fixed(1, 7)]

limits := data.limits[input.tier]

others := data.other.p

whole := data.shapes.grid[2]

not_same if not same(1, 2)
`;
    const other = "package other\n\np := {k | some k in [3, 1]}\n";
    const engine = new RegoEngine({ compileAfter: 0 });
    engine.load(
      [
        { id: "p.rego", source },
        { id: "o.rego", source: other },
      ],
      { users: ["ann"], limits: { gold: 10 } },
    );
    const input = { requests: [{ user: "ann", amount: 500 }, { user: "bob", amount: 20 }], tier: "gold" };
    const g = generated(engine, "shapes", input);
    expect(closures(engine, "shapes", input)).toEqual(g);
    expect(g).toEqual({
      value: {
        deny: ["unknown user bob"],
        by_user: { ann: 500, bob: 20 },
        grid: { "1": { "3": 3, "4": 4 }, "2": { "3": 6, "4": 8 } },
        levels: ["high", "mid"],
        twins: [true, 7],
        limits: 10,
        others: [1, 3],
        whole: { "3": 6, "4": 8 },
        not_same: true,
      },
    });
    const clash = { requests: [{ user: "ann", amount: 1 }, { user: "ann", amount: 2 }], tier: "none" };
    expect(generated(engine, "shapes", clash)).toEqual({ error: expect.stringContaining("eval_conflict_error") });
    expect(closures(engine, "shapes", clash)).toEqual(generated(engine, "shapes", clash));
  });

  test("on comparisons across types, literals and built-in errors, strict and not", () => {
    const source = `package values

less := [1 < 2, "a" < "b", 1 < "a", null < false, [1] < [2], 1.5 >= 1.5, 9223372036854775807 > 9223372036854775806]

same := [1 == 1.0, {"a": [1]} == {"a": [1]}, {1, 2} == {2, 1}, input.n != 2]

obj := {"b": input.n, "a": 1, 2: "two", "b": 3}

quotient := input.n / input.d

next := input.n + 1

unify if [input.n, 1] = [2, 1]
`;
    for (const strict of [false, true]) {
      const outcomes = agree(source, [{ n: 2, d: 0 }, { n: 2, d: 4 }, { n: "x", d: 1 }], {}, { strictBuiltinErrors: strict });
      expect(outcomes[1]).toEqual({
        value: {
          less: [true, true, true, true, true, true, true],
          same: [true, true, true, false],
          obj: { "2": "two", a: 1, b: 3 },
          quotient: 0.5,
          next: 3,
          unify: true,
        },
      });
      if (strict) expect(outcomes[0]).toEqual({ error: expect.stringContaining("eval_builtin_error") });
    }
  });
});

describe("limits and errors in generated code", () => {
  const compiled = (source: string, options = {}) => {
    const engine = new RegoEngine({ ...options, compileAfter: 0 });
    engine.load([{ id: "p.rego", source }]);
    return engine;
  };

  test("the step limit cancels a combinatorial rule", () => {
    const engine = compiled("package x\n\np := count([1 | some a in numbers.range(1, 1000); some b in numbers.range(1, 1000); a != b])\n", { maxSteps: 10_000 });
    const e = errorOf(() => engine.evaluate("x/p"));
    expect(e.code).toBe("eval_cancel_error");
    expect(where(e)).toBe("p.rego:3:85: evaluation exceeded 10000 steps");
  });

  test("the depth limit stops a long chain of rules", () => {
    const rules = Array.from({ length: 300 }, (_, i) => `r${i} if r${i + 1}`).join("\n\n");
    const e = errorOf(() => compiled(`package x\n\n${rules}\n\nr300 := true\n`, { maxDepth: 100 }).evaluate("x/r0"));
    expect(e.code).toBe("eval_cancel_error");
    expect(e.message).toContain("maximum depth of 100");
  });

  test("conflicts and strict built-in errors name where they happened, as the closures do", () => {
    const source = "package x\n\nv := n if some n in input.ns\n\nf(a) := b if b := a[_]\n\ng := f(input.ns)\n\nh := 1 / input.d\n";
    const strict = compiled(source, { strictBuiltinErrors: true });
    const closures = new RegoEngine({ strictBuiltinErrors: true }); // one evaluation each: never warm
    closures.load([{ id: "p.rego", source }]);
    const cases = [
      ["x/v", { ns: [1, 2] }, "p.rego:3:1: rule data.x.v produced conflicting values"],
      ["x/g", { ns: [1, 2] }, "p.rego:7:6: function data.x.f produced conflicting values for the same inputs"],
      ["x/h", { d: 0 }, "p.rego:9:8: div: divide by zero"],
    ] as const;
    for (const [path, input, message] of cases) {
      expect(where(errorOf(() => strict.evaluate(path, input)))).toBe(message);
      expect(where(errorOf(() => closures.evaluate(path, input)))).toBe(message);
    }
    expect(compiled(source).evaluate("x/h", { d: 0 })).toEqual({});
  });
});

describe("compiled once warm", () => {
  test("a rule runs through its closures for its first reads, then as generated code, with the same answers", () => {
    const { root } = new Compiler(builtins).compile([parseModule("package w\n\nallow if input.n > 1\n\nf(x) := x * 2\n\ndouble := f(input.n)\n", "w.rego")]);
    const allow = root.children.get("w")!.children.get("allow")!;
    const f = root.children.get("w")!.children.get("f")!;
    const answers: unknown[] = [];
    for (let n = 0; n < 4; n++) {
      const run = new Run(root, fromJS({}), fromJS({ n }), { maxSteps: 1_000_000, maxDepth: 200, strictBuiltinErrors: false, compileAfter: 2 });
      answers.push(answer(run, ["w"]));
      expect(allow.code === undefined).toBe(n < 2);
      expect(f.functionCode === undefined).toBe(n < 2);
    }
    expect(answers).toEqual([{ double: 0 }, { double: 2 }, { allow: true, double: 4 }, { allow: true, double: 6 }]);
    expect(allow.code?.toString()).toStartWith("function node(");
  });

  test("a package's answer keeps key order with base data merged in, before and after it is warm", () => {
    const source = "package p\n\nb := 2\n\nd := input.d\n\nf(x) := x\n";
    const data = { p: { a: 1, c: 3, d: "base", e: 5, f: "data" } };
    const cold = new RegoEngine();
    const warm = new RegoEngine({ compileAfter: 0 });
    for (const engine of [cold, warm]) engine.load([{ id: "p.rego", source }], data);
    for (const input of [{ d: "rule" }, {}]) {
      const expected = JSON.stringify(cold.evaluate("p", input).result);
      expect(JSON.stringify(warm.evaluate("p", input).result)).toBe(expected);
    }
    expect(JSON.stringify(warm.evaluate("p", { d: "rule" }).result)).toBe('{"a":1,"b":2,"c":3,"d":"rule","e":5,"f":"data"}');
  });
});

describe("policy text never becomes code", () => {
  // Each of these, placed in source, would break out of a string, a template, a comment or a line.
  const hostile = ['"', "'", "`", "${globalThis.x = 1}", "\n", "*/", "/*", "\u2028", "\u2029", "\\", "\"); throw 1; (\"", "k0", "v0", "run"];
  const lit = (s: string) => JSON.stringify(s).replaceAll("\u2028", "\\u2028").replaceAll("\u2029", "\\u2029");
  const source = `package evil

values := [${hostile.map(lit).join(", ")}]

keyed := {${hostile.map((s, i) => `${lit(s)}: ${i}`).join(", ")}}

picked := [${hostile.map((s) => `input.m[${lit(s)}]`).join(", ")}]

from_data := [${hostile.map((s) => `data.cfg[${lit(s)}]`).join(", ")}]

${hostile.map((s, i) => `named[${lit(s)}] := ${i}`).join("\n\n")}

wrap(x) := concat(${lit(hostile[0]!)}, [${lit(hostile[3]!)}, x])

wrapped := wrap(${lit(hostile[5]!)})

found contains k if {
	some k, v in input.m
	v == ${lit(hostile[2]!)}
}
`;
  const m = Object.fromEntries(hostile.map((s) => [s, s]));
  const cfg = Object.fromEntries(hostile.map((s, i) => [s, i]));

  test("hostile strings in keys, literals and rule names evaluate as themselves", () => {
    const engine = new RegoEngine();
    engine.load([{ id: "evil.rego", source }], { cfg });
    const index = Object.fromEntries(hostile.map((s, i) => [s, i]));
    expect(engine.evaluate("evil", { m }).result).toEqual({
      values: hostile,
      keyed: index,
      picked: hostile,
      from_data: hostile.map((_, i) => i),
      named: index,
      wrapped: `${hostile[3]}${hostile[0]}${hostile[5]}`,
      found: ["`"],
    });
    expect((globalThis as { x?: unknown }).x).toBeUndefined();
  });

  test("the generated functions hold only names the generator made", () => {
    const root = new Compiler(builtins).compile([parseModule(source, "evil.rego")]);
    const run = new Run(root.root, fromJS({ cfg }), fromJS({ m }), { maxSteps: 1_000_000, maxDepth: 200, strictBuiltinErrors: false, compileAfter: 0 });
    answer(run, ["evil"]);
    const sources: string[] = [];
    const collect = (node: DocNode) => {
      for (const r of node.partial) {
        expect(r.code?.toString()).toStartWith("function rule(");
        sources.push(r.code!.toString());
      }
      // Complete rules and function definitions are blocks of their node's function, never closures here.
      if (node.complete.length) expect(node.code?.toString()).not.toContain("prior = k");
      if (node.code) sources.push(node.code.toString());
      if (node.functionCode) sources.push(node.functionCode.toString());
      if (node.answer) sources.push(node.answer.toString());
      for (const child of node.children.values()) collect(child);
    };
    collect(root.root);
    expect(sources.length).toBeGreaterThan(hostile.length + 5);
    for (const code of sources) {
      // Plain ASCII punctuation and identifiers; the only string literal is a type name the generator writes.
      expect(code).toMatch(/^[\w\s.,;:=!<>?&|+\-(){}[\]"]*$/);
      expect(code.match(/"[^"]*"/g) ?? []).toSatisfy((literals: string[]) => literals.every((l) => l === '"number"'));
    }
  });
});
