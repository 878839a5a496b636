/**
 * What the compiler precomputes for speed (refs linked to their rule or to plain data, constant literals,
 * operands read without a closure call, directly evaluated bodies with their binding trail, loops over
 * `some ... in`, function results kept per arguments, documents built in key order) gives the answers the
 * general evaluation path gives, including under `with`.
 */
import { describe, expect, test } from "bun:test";
import { RegoEngine } from "../../src/rego/engine.ts";

function engineWith(source: string, data?: unknown): RegoEngine {
  const engine = new RegoEngine();
  engine.load([{ id: "p.rego", source }], data);
  return engine;
}

describe("refs resolved at compile time", () => {
  test("a ref linked to a rule still sees `with data` replacing that rule", () => {
    const engine = engineWith("package p\n\nr := 1\n\nq := r + 1\n\ns := x if x := q with data.p.r as 7\n");
    expect(engine.evaluate("p", {}).result).toEqual({ r: 1, q: 2, s: 8 });
  });

  test("a ref into a rule's value reads below the rule", () => {
    const engine = engineWith('package p\n\ncfg := {"a": {"b": input.x}}\n\nv := cfg.a.b\n\nw := data.p.cfg.a.b\n');
    expect(engine.evaluate("p", { x: "y" }).result).toMatchObject({ v: "y", w: "y" });
    expect(engine.evaluate("p/v", {})).toEqual({});
  });

  test("a ref to plain data sees the data document and `with data` patches of it", () => {
    const engine = engineWith("package p\n\nv := data.cfg.level\n\nw := x if x := v with data.cfg.level as 3\n", { cfg: { level: 1 } });
    expect(engine.evaluate("p", {}).result).toEqual({ v: 1, w: 3 });
    engine.setData({ cfg: { level: 2 } });
    expect(engine.evaluate("p/v", {}).result).toBe(2);
  });
});

describe("object literals", () => {
  test("with constant keys come out in key order; an undefined value leaves the whole object undefined", () => {
    const engine = engineWith('package p\n\no := {"zeta": input.a, "alpha": input.b, "mid": 1}\n\nu := {"b": input.missing, "a": 1}\n');
    expect(JSON.stringify(engine.evaluate("p/o", { a: 1, b: 2 }).result)).toBe('{"alpha":2,"mid":1,"zeta":1}');
    expect(engine.evaluate("p/u", {})).toEqual({});
  });
});

describe("constant literals", () => {
  test("are shared values that built-ins never change", () => {
    const engine = engineWith('package p\n\na := [1, 2]\n\nb := array.concat(a, [3])\n\nc := object.union({"k": 1}, {"j": 2})\n\nd := {"k": 1}\n');
    expect(engine.evaluate("p", {}).result).toEqual({ a: [1, 2], b: [1, 2, 3], c: { j: 2, k: 1 }, d: { k: 1 } });
    expect(engine.evaluate("p/a", {}).result).toEqual([1, 2]);
  });

  test("still unify against patterns", () => {
    const engine = engineWith("package p\n\nx := v if [1, v] = [1, input.n]\n\ny if [1, 2] == [1, input.n]\n");
    expect(engine.evaluate("p", { n: 2 }).result).toEqual({ x: 2, y: true });
    expect(engine.evaluate("p", { n: 3 }).result).toEqual({ x: 3 });
  });
});

describe("bodies evaluated without continuations", () => {
  test("bindings made directly are undone between iterations", () => {
    const engine = engineWith("package p\n\nxs contains y if {\n\tsome x in input.items\n\ty := x * 10\n\ty > 10\n}\n");
    expect(engine.evaluate("p/xs", { items: [1, 2, 3] }).result).toEqual([20, 30]);
  });

  test("negated and failing direct expressions", () => {
    const engine = engineWith('package p\n\nok if {\n\tnot input.blocked\n\tinput.role != "guest"\n\tn := count(input.items)\n\tn >= 2\n}\n');
    expect(engine.evaluate("p/ok", { role: "admin", items: [1, 2] }).result).toBe(true);
    expect(engine.evaluate("p/ok", { role: "admin", items: [1] })).toEqual({});
    expect(engine.evaluate("p/ok", { role: "admin", items: [1, 2], blocked: true })).toEqual({});
    expect(engine.evaluate("p/ok", { role: "guest", items: [1, 2] })).toEqual({});
  });

  test("function results are kept per arguments within one evaluation", () => {
    const engine = engineWith("package p\n\nf(x) := x + 1\n\ng(1) := \"one\"\n\ng(x) := \"other\" if x != 1\n\nr := [f(1), f(2), f(1), g(1), g(2)]\n");
    expect(engine.evaluate("p/r", {}).result).toEqual([2, 3, 2, "one", "other"]);
  });

  test("a function called with many different arguments keeps each result apart, undefined ones too", () => {
    const engine = engineWith(
      "package p\n\nf(x, y) := x * 10 + y if x != 3\n\ngrid := [[a, b, f(a, b)] | some a in numbers.range(0, 4); some b in numbers.range(0, 2); f(a, b)]\n\nagain := [f(a, b) | some a in numbers.range(0, 4); some b in numbers.range(0, 2)]\n\nkeys := [g({\"k\": 1}), g({\"k\": 2}), g({\"k\": 1})]\n\ng(o) := o.k\n",
    );
    const expected = [0, 1, 2, 4].flatMap((a) => [0, 1, 2].map((b) => [a, b, a * 10 + b]));
    expect(engine.evaluate("p", {}).result).toMatchObject({ grid: expected, again: expected.map(([, , v]) => v), keys: [1, 2, 1] });
  });

  test("function results are kept per `with` context", () => {
    const engine = engineWith("package p\n\nf(x) := input.v + x\n\na := f(1)\n\nb := x if x := f(1) with input.v as 10\n\nc := [f(1), b, f(1)]\n");
    expect(engine.evaluate("p", { v: 5 }).result).toEqual({ a: 6, b: 11, c: [6, 11, 6] });
  });

  test("some-in loops over arrays, sets and objects in order, with and without keys", () => {
    const engine = engineWith(
      "package p\n\narr := [[i, x] | some i, x in input.arr]\n\nset := [x | some x in {3, 1, 2}]\n\nobj := [[k, v] | some k, v in input.obj]\n\nvals := [v | some v in input.obj]\n\nnone := [x | some x in input.s]\n\nfirst if some x in input.arr\n\npattern := [a | some [a, 1] in input.pairs]\n\nsame := [k | some k, k in {\"a\": \"a\", \"b\": \"c\"}]\n",
    );
    expect(engine.evaluate("p", { arr: [5, 2], obj: { b: 1, a: 2 }, s: "xy", pairs: [["x", 1], ["y", 2], ["z", 1]] }).result).toEqual({
      arr: [[0, 5], [1, 2]],
      set: [1, 2, 3],
      obj: [["a", 2], ["b", 1]],
      vals: [2, 1],
      none: [],
      first: true,
      pattern: ["x", "z"],
      same: ["a"],
    });
  });

  test("comprehensions over bound variables are evaluated directly, inside and outside iterations", () => {
    const engine = engineWith(
      "package p\n\nbig := n if {\n\tm := input.min\n\tn := count([x | some x in input.xs; x > m])\n\tn > 0\n}\n\nby := {k: [x | some x in input.xs; x > k] | some k in input.ks}\n\nnone if count({x | some x in input.xs; x > 100}) == 0\n",
    );
    expect(engine.evaluate("p", { min: 2, xs: [1, 2, 3, 4], ks: [0, 3] }).result).toEqual({ big: 2, by: { "0": [1, 2, 3, 4], "3": [4] }, none: true });
    expect(engine.evaluate("p/big", { min: 9, xs: [1, 2] })).toEqual({});
  });

  test("a rule body that conflicts across solutions is still an eval_conflict_error", () => {
    const engine = engineWith("package p\n\nx := v if some v in input.vs\n");
    expect(engine.evaluate("p/x", { vs: [4] }).result).toBe(4);
    expect(() => engine.evaluate("p/x", { vs: [4, 5] })).toThrow("conflicting values");
  });
});

describe("documents in key order", () => {
  test("a package document lists its rules in key order whatever their order in the source", () => {
    const engine = engineWith("package p\n\nzeta := 1\n\nalpha := 2\n\nmid := 3\n");
    expect(JSON.stringify(engine.evaluate("p", {}).result)).toBe('{"alpha":2,"mid":3,"zeta":1}');
  });

  test("objects from input iterate in key order", () => {
    const engine = engineWith("package p\n\nks := [k | some k, _ in input]\n\nvs := [v | some v in input]\n");
    expect(engine.evaluate("p", { b: 1, c: 3, a: 2 }).result).toEqual({ ks: ["a", "b", "c"], vs: [2, 1, 3] });
  });

  test("data merged under rules keeps key order", () => {
    const engine = engineWith("package p\n\nb := 2\n", { p: { c: 3, a: 1 } });
    expect(JSON.stringify(engine.evaluate("p", {}).result)).toBe('{"a":1,"b":2,"c":3}');
  });
});
