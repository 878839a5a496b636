/** The engine's public API: loading, atomic replacement, versions, evaluation and errors. */
import { describe, expect, test } from "bun:test";
import { RegoEngine, RegoError } from "../../src/rego/engine.ts";
import { errorOf, where } from "./support.ts";

const authz = `package platform.authz

default allow := false

allow if input.user in data.admins

reason := "admin" if allow
`;


describe("evaluate", () => {
  test("returns OPA's result shape for a package and for a rule", () => {
    const engine = new RegoEngine();
    engine.load([{ id: "authz.rego", source: authz }], { admins: ["ann"] });
    expect(engine.evaluate("platform/authz", { user: "ann" })).toEqual({ result: { allow: true, reason: "admin" } });
    expect(engine.evaluate("/platform/authz/allow", { user: "bob" })).toEqual({ result: false });
  });

  test("an undefined document has no result", () => {
    const engine = new RegoEngine();
    engine.load([{ id: "authz.rego", source: authz }], { admins: [] });
    expect(engine.evaluate("platform/authz/reason", { user: "ann" })).toEqual({});
    expect(engine.evaluate("platform/nothing/here")).toEqual({});
  });

  test("conflicting complete rules are an eval_conflict_error", () => {
    const engine = new RegoEngine();
    engine.load([{ id: "c.rego", source: "package c\n\nx := 1\n\nx := 2 if input.two\n" }]);
    expect(engine.evaluate("c/x", {})).toEqual({ result: 1 });
    const e = errorOf(() => engine.evaluate("c/x", { two: true }));
    expect(e.code).toBe("eval_conflict_error");
    expect(e.message).toContain("rule data.c.x produced conflicting values");
  });

  test("integers beyond a double stay exact in and out", () => {
    const engine = new RegoEngine();
    engine.load([{ id: "n.rego", source: "package n\n\nnext := input.n + 1\n\nbig if input.n > 9223372036854775806\n" }]);
    expect(engine.evaluate("n", { n: 9223372036854775806n })).toEqual({ result: { next: 9223372036854775807n } });
    expect(engine.evaluate("n/big", { n: 9223372036854775807n }).result).toBe(true);
  });

  test("built-in errors are undefined by default and errors in strict mode", () => {
    const source = "package s\n\np := x if x := 1 / input.d\n";
    const lenient = new RegoEngine();
    lenient.load([{ id: "s.rego", source }]);
    expect(lenient.evaluate("s/p", { d: 0 })).toEqual({});
    const strict = new RegoEngine({ strictBuiltinErrors: true });
    strict.load([{ id: "s.rego", source }]);
    const e = errorOf(() => strict.evaluate("s/p", { d: 0 }));
    expect(e.code).toBe("eval_builtin_error");
    expect(e.message).toContain("div: divide by zero");
  });
});

describe("query", () => {
  test("returns every solution's bindings, with input and 'with'", () => {
    const engine = new RegoEngine();
    engine.load([{ id: "authz.rego", source: authz }], { admins: ["ann", "bea"] });
    expect(engine.query("some i; x := data.admins[i]")).toEqual([{ i: 0, x: "ann" }, { i: 1, x: "bea" }]);
    expect(engine.query("x := data.platform.authz.allow", { input: { user: "bea" } })).toEqual([{ x: true }]);
    expect(engine.query('x := data.platform.authz.allow with data.admins as ["cy"] with input.user as "cy"')).toEqual([{ x: true }]);
    expect(engine.query("data.platform.authz.allow == true", { input: { user: "zed" } })).toEqual([]);
  });
});

describe("module set", () => {
  test("a parse error names file:line:col and keeps the previous set active", () => {
    const engine = new RegoEngine();
    engine.load([{ id: "authz.rego", source: authz }], { admins: ["ann"] });
    const version = engine.version;
    const e = errorOf(() => engine.load([{ id: "broken.rego", source: "package b\n\np := [1, 2\n" }]));
    expect(e.code).toBe("rego_parse_error");
    expect(where(e)).toMatch(/^broken\.rego:4:1: /);
    expect(e.message).toMatch(/^broken\.rego:4: rego_parse_error: /);
    expect(engine.version).toBe(version);
    expect(engine.evaluate("platform/authz/allow", { user: "ann" }).result).toBe(true);
  });

  test("an unknown built-in is a compile error naming it", () => {
    const engine = new RegoEngine();
    const e = errorOf(() => engine.putModule("x.rego", "package x\n\np if strings.frobnicate(input)\n"));
    expect(e.code).toBe("rego_compile_error");
    expect(where(e)).toBe("x.rego:3:6: undefined function strings.frobnicate");
    expect(engine.modules()).toEqual([]);
  });

  test("putModule replaces one module atomically; deleteModule removes it", () => {
    const engine = new RegoEngine();
    engine.load([{ id: "authz.rego", source: authz }, { id: "extra.rego", source: "package extra\n\nv := 1\n" }], { admins: [] });
    engine.putModule("extra.rego", "package extra\n\nv := 2\n");
    expect(engine.evaluate("extra/v").result).toBe(2);
    expect(() => engine.putModule("extra.rego", "package extra\n\nv := undefined_fn(1)\n")).toThrow(RegoError);
    expect(engine.evaluate("extra/v").result).toBe(2);
    expect(engine.modules().map((m) => m.id)).toEqual(["authz.rego", "extra.rego"]);
    expect(engine.deleteModule("extra.rego")).toBe(true);
    expect(engine.deleteModule("extra.rego")).toBe(false);
    expect(engine.evaluate("extra/v")).toEqual({});
  });

  test("deleting a module others depend on is refused and changes nothing", () => {
    const engine = new RegoEngine();
    engine.load([
      { id: "lib.rego", source: "package lib\n\ndouble(x) := x * 2\n" },
      { id: "app.rego", source: "package app\n\nv := data.lib.double(21)\n" },
    ]);
    expect(() => engine.deleteModule("lib.rego")).toThrow("undefined function data.lib.double");
    expect(engine.evaluate("app/v").result).toBe(42);
  });

  test("the version changes with modules and data, and only then", () => {
    const engine = new RegoEngine();
    const empty = engine.version;
    engine.load([{ id: "authz.rego", source: authz }], { admins: [] });
    const loaded = engine.version;
    expect(loaded).not.toBe(empty);
    engine.load([{ id: "authz.rego", source: authz }], { admins: [] });
    expect(engine.version).toBe(loaded);
    engine.setData({ admins: ["ann"] });
    const withData = engine.version;
    expect(withData).not.toBe(loaded);
    engine.putModule("authz.rego", `${authz}\n# comment\n`);
    expect(engine.version).not.toBe(withData);
  });

  test("data must be an object; a bad document changes nothing", () => {
    const engine = new RegoEngine();
    engine.load([{ id: "authz.rego", source: authz }], { admins: ["ann"] });
    const version = engine.version;
    expect(errorOf(() => engine.setData([1, 2])).code).toBe("invalid_input");
    expect(engine.version).toBe(version);
  });
});

test("packages lists the package each loaded module declares, once", () => {
  const engine = new RegoEngine();
  expect(engine.packages()).toEqual([]);
  engine.load(
    [
      { id: "authz.rego", source: authz },
      { id: "a.rego", source: "# header\npackage  a.b.c\n\np := 1\n" },
      { id: "b.rego", source: "package a.b.c\n\nq := 2\n" },
    ],
    {},
  );
  expect(engine.packages().sort()).toEqual(["a.b.c", "platform.authz"]);
});

test("loadChecked keeps the previous set active when the new one fails its check", () => {
  const engine = new RegoEngine();
  engine.load([{ id: "a.rego", source: "package p\n\nx := 1\n" }], {});
  const before = engine.version;
  expect(() =>
    engine.loadChecked([{ id: "b.rego", source: "package p\n\nx := 2\n" }], {}, () => {
      expect(engine.evaluate("p/x").result).toBe(2); // the check sees the new set
      throw new Error("refused");
    }),
  ).toThrow("refused");
  expect(engine.evaluate("p/x").result).toBe(1);
  expect(engine.version).toBe(before);
  engine.loadChecked([{ id: "b.rego", source: "package p\n\nx := 2\n" }], {}, () => {});
  expect(engine.evaluate("p/x").result).toBe(2);
});
