/** Bad policies and bad documents get a clear error or a bounded evaluation, never a hang or a crash. */
import { describe, expect, test } from "bun:test";
import { RegoEngine, RegoError } from "../../src/rego/engine.ts";
import { errorOf, where } from "./support.ts";


const load = (source: string, engine = new RegoEngine()) => {
  engine.load([{ id: "policy.rego", source }]);
  return engine;
};

describe("malformed modules", () => {
  const cases: [string, string, RegExp][] = [
    ["no package", "p := 1\n", /^policy\.rego:1:1: expected 'package'/],
    ["v0 body without if", "package x\n\np { true }\n", /^policy\.rego:3:3: a rule body needs the 'if' keyword/],
    ["unterminated string", 'package x\n\np := "abc\n', /^policy\.rego:3:6: unterminated string/],
    ["stray character", "package x\n\np := 1 ^ 2\n", /^policy\.rego:3:8: unexpected character '\^'/],
    ["rule without value or body", "package x\n\np\n", /^policy\.rego:3:1: rule 'p' needs a value/],
    ["else on a partial rule", "package x\n\np contains 1 if false\nelse := 2\n", /^policy\.rego:4:1: 'else' is only allowed/],
    ["bad escape", 'package x\n\np := "\\q"\n', /^policy\.rego:3:7: invalid escape/],
  ];
  for (const [name, source, message] of cases)
    test(name, () => {
      const e = errorOf(() => load(source));
      expect(e.code).toBe("rego_parse_error");
      expect(where(e)).toMatch(message);
    });

  test("unsafe variables and reassignment are compile errors", () => {
    expect(where(errorOf(() => load("package x\n\np if { y > 1 }\n")))).toBe("policy.rego:3:8: var y is unsafe");
    expect(where(errorOf(() => load("package x\n\np if { y := 1; y := 2 }\n")))).toBe("policy.rego:3:16: var y assigned above");
  });
});

describe("recursion", () => {
  test("mutually recursive rules are refused at compile time", () => {
    const e = errorOf(() => load("package r\n\np if q\n\nq if p\n"));
    expect(e.code).toBe("rego_recursion_error");
    expect(e.message).toContain("data.r.p -> data.r.q -> data.r.p");
  });

  test("a recursive function is refused at compile time", () => {
    const e = errorOf(() => load("package r\n\nf(x) := f(x - 1) if x > 0\n\np := f(3)\n"));
    expect(e.code).toBe("rego_recursion_error");
  });

  test("a refused set leaves the active one in place", () => {
    const engine = load("package r\n\np := 1\n");
    expect(() => engine.putModule("policy.rego", "package r\n\np if p\n")).toThrow(RegoError);
    expect(engine.evaluate("r/p").result).toBe(1);
  });
});

describe("deep nesting", () => {
  test("deeply nested source is a parse error, not a stack overflow", () => {
    const source = `package x\n\np := ${"[".repeat(50_000)}1${"]".repeat(50_000)}\n`;
    const e = errorOf(() => load(source));
    expect(e.code).toBe("rego_parse_error");
    expect(e.message).toContain("nesting exceeds");
  });

  test("deeply nested input is refused before evaluation", () => {
    const engine = load("package x\n\np := input\n");
    let doc: unknown = 1;
    for (let i = 0; i < 100_000; i++) doc = { a: doc };
    const e = errorOf(() => engine.evaluate("x/p", doc));
    expect(e.code).toBe("invalid_input");
    expect(e.message).toContain("nesting exceeds 1000 levels");
  });

  test("a long chain of rules stops at the depth limit", () => {
    const rules = Array.from({ length: 300 }, (_, i) => `r${i} if r${i + 1}`).join("\n\n");
    const engine = new RegoEngine({ maxDepth: 100 });
    engine.load([{ id: "policy.rego", source: `package x\n\n${rules}\n\nr300 := true\n` }]);
    const e = errorOf(() => engine.evaluate("x/r0"));
    expect(e.code).toBe("eval_cancel_error");
    expect(e.message).toContain("maximum depth of 100");
  });
});

describe("expensive evaluation", () => {
  test("a step limit cancels a combinatorial query", () => {
    const engine = new RegoEngine({ maxSteps: 10_000 });
    engine.load([{ id: "policy.rego", source: "package x\n\np := count([1 | some a in numbers.range(1, 1000); some b in numbers.range(1, 1000); a != b])\n" }]);
    const e = errorOf(() => engine.evaluate("x/p"));
    expect(e.code).toBe("eval_cancel_error");
    expect(e.message).toContain("exceeded 10000 steps");
  });

  test("a huge input is evaluated", () => {
    const engine = load("package x\n\nn := count([v | some v in input.items; v.ok])\n");
    const items = Array.from({ length: 200_000 }, (_, i) => ({ id: i, ok: i % 2 === 0 }));
    expect(engine.evaluate("x/n", { items }).result).toBe(100_000);
  });

  test("a pathological regex matches in linear time", () => {
    const engine = load('package x\n\np := regex.match("^(a+)+$", input.s)\n\nq := regex.match("(x+x+)+y", input.s)\n');
    const s = `${"a".repeat(100_000)}!`;
    expect(engine.evaluate("x", { s }).result).toEqual({ p: false, q: false });
  });

  test("an invalid regex is undefined, or a builtin error in strict mode", () => {
    expect(load('package x\n\np := regex.match("(", "a")\n').evaluate("x/p")).toEqual({});
    const strict = new RegoEngine({ strictBuiltinErrors: true });
    strict.load([{ id: "policy.rego", source: 'package x\n\np := regex.match("(", "a")\n' }]);
    expect(errorOf(() => strict.evaluate("x/p")).code).toBe("eval_builtin_error");
  });
});

describe("hostile keys", () => {
  test("a __proto__ key is an ordinary key of the answer, through closures and generated code alike", () => {
    const source = 'package p\n\nx := {"__proto__": 1, "a": 2}\n\ny := json.unmarshal(`{"__proto__": {"polluted": true}}`)\n\nz := input.__proto__\n';
    for (const compileAfter of [1000, 0]) {
      const engine = new RegoEngine({ compileAfter });
      engine.load([{ id: "p.rego", source }]);
      for (let i = 0; i < 3; i++) {
        const result = engine.evaluate("p", JSON.parse('{"__proto__": "from input"}')).result as Record<string, Record<string, unknown>>;
        expect(JSON.stringify(result)).toBe('{"x":{"__proto__":1,"a":2},"y":{"__proto__":{"polluted":true}},"z":"from input"}');
        expect(Object.getPrototypeOf(result.y)).toBe(Object.prototype);
        expect(result.y!.polluted).toBeUndefined();
      }
    }
  });
});
