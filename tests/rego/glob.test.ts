/**
 * glob.match on patterns whose only wildcards are single `*`s runs without a regex: it must agree with a
 * slow backtracking search (`*` takes any run of characters that are not delimiters) on every case.
 */
import { expect, test } from "bun:test";
import { RegoEngine } from "../../src/rego/engine.ts";

/** The reference: tries every length for each `*`. */
function slowMatch(pattern: string, text: string, stops: string): boolean {
  const from = (i: number, j: number): boolean => {
    if (i === pattern.length) return j === text.length;
    if (pattern[i] === "*") {
      for (let end = j; ; end++) {
        if (from(i + 1, end)) return true;
        if (end === text.length || stops.includes(text[end]!)) return false;
      }
    }
    return j < text.length && pattern[i] === text[j] && from(i + 1, j + 1);
  };
  return from(0, 0);
}

/** A small deterministic generator, so a failure names a case that can be run again. */
function words(seed: number, alphabet: string, count: number, maxLength: number): string[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, () => {
    let s = "";
    const length = Math.floor(next() * (maxLength + 1));
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(next() * alphabet.length)];
    return s;
  });
}

const patterns = [...new Set(words(7, "ab:*", 300, 6))].filter((p) => p.includes("*") && !p.includes("**"));
const texts = [...new Set(words(11, "ab:", 120, 7))];

test.each([
  ["delimiter ':'", '[":"]', ":"],
  ["no delimiters (null)", "null", ""],
  ["two delimiters", '[":", "b"]', ":b"],
])("star globs agree with a backtracking search, %s", (_, delimiters, stops) => {
  const engine = new RegoEngine();
  engine.load([{ id: "g.rego", source: `package g\n\nm := [r | some t in input.texts; r := glob.match(input.pattern, ${delimiters}, t)]\n` }]);
  let compared = 0;
  for (const pattern of patterns) {
    const got = engine.evaluate("g/m", { pattern, texts }).result as boolean[];
    const want = texts.map((t) => slowMatch(pattern, t, stops));
    expect({ pattern, matches: got }).toEqual({ pattern, matches: want });
    compared += texts.length;
  }
  expect(compared).toBeGreaterThan(5_000);
});

test("globs with other wildcards still match through the regex", () => {
  const engine = new RegoEngine();
  engine.load([{ id: "g.rego", source: 'package g\n\nm := [glob.match("a?c", [], "abc"), glob.match("{x,y}:*", [":"], "y:z"), glob.match("a**", [":"], "a:b:c"), glob.match("[ab]*", [":"], "c")]\n' }]);
  expect(engine.evaluate("g/m").result).toEqual([true, true, true, false]);
});

test("a '-' among several delimiters is a delimiter, not a range between its neighbours", () => {
  const engine = new RegoEngine();
  engine.load([
    {
      id: "g.rego",
      source: `package g\n\nm := [glob.match("*", [".", "-", "/"], "a-b"), glob.match("a?c", [".", "-", "/"], "a-c"), glob.match("*", [".", "-", "/"], "ab"), glob.match("a?c", ["a", "-", "z"], "amc")]\n`,
    },
  ]);
  expect(engine.evaluate("g/m").result).toEqual([false, false, true, true]);
});
