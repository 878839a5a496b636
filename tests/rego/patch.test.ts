/** json.patch (RFC 6902) on Rego values: each operation, paths into arrays and sets, and patches that cannot apply. */
import { expect, test } from "bun:test";
import { RegoEngine } from "../../src/rego/engine.ts";

/** The value of `json.patch(doc, ops)`, or undefined when the patch cannot apply. */
function patched(doc: string, ops: string): unknown {
  const engine = new RegoEngine();
  engine.load([{ id: "p.rego", source: `package p\n\nout := json.patch(${doc}, ${ops})\n` }]);
  return (engine.evaluate("p/out", {}) as { result?: unknown }).result;
}

test("add, remove and replace on objects and arrays, with '-' for the end of an array", () => {
  expect(patched(`{"a": {"b": 1}}`, `[{"op": "add", "path": "/a/c", "value": 2}]`)).toEqual({ a: { b: 1, c: 2 } });
  expect(patched(`{"a": [1, 3]}`, `[{"op": "add", "path": "/a/1", "value": 2}, {"op": "add", "path": "/a/-", "value": 4}]`)).toEqual({ a: [1, 2, 3, 4] });
  expect(patched(`{"a": [1, 2, 3], "b": 1}`, `[{"op": "remove", "path": "/a/0"}, {"op": "remove", "path": "/b"}]`)).toEqual({ a: [2, 3] });
  expect(patched(`{"a": {"b": 1}}`, `[{"op": "replace", "path": "/a/b", "value": "x"}]`)).toEqual({ a: { b: "x" } });
  expect(patched(`{"a": 1}`, `[{"op": "add", "path": "", "value": [1]}]`)).toEqual([1]);
});

test("move, copy and test read from the document as patched so far", () => {
  expect(patched(`{"a": {"b": 1}, "c": {}}`, `[{"op": "move", "from": "/a/b", "path": "/c/d"}]`)).toEqual({ a: {}, c: { d: 1 } });
  expect(patched(`{"a": [1]}`, `[{"op": "copy", "from": "/a/0", "path": "/b"}, {"op": "test", "path": "/b", "value": 1}]`)).toEqual({ a: [1], b: 1 });
  expect(patched(`{"a": 1}`, `[{"op": "test", "path": "/a", "value": 2}]`)).toBeUndefined();
});

test("paths given as arrays reach into sets by member", () => {
  expect(patched(`{"s": {"x"}}`, `[{"op": "add", "path": ["s", "y"], "value": "y"}]`)).toEqual({ s: ["x", "y"] });
  expect(patched(`{"s": {"x", "y"}}`, `[{"op": "remove", "path": ["s", "x"]}]`)).toEqual({ s: ["y"] });
});

test("a missing path or an index outside the array makes the patch undefined, the document unchanged", () => {
  expect(patched(`{"a": {}}`, `[{"op": "remove", "path": "/a/b"}]`)).toBeUndefined();
  expect(patched(`{"a": {}}`, `[{"op": "add", "path": "/x/y", "value": 1}]`)).toBeUndefined();
  expect(patched(`{"a": [1]}`, `[{"op": "add", "path": "/a/5", "value": 1}]`)).toBeUndefined();
  expect(patched(`{"a": [1]}`, `[{"op": "remove", "path": "/a/x"}]`)).toBeUndefined();
});
