import { expect, test } from "bun:test";
import { evaluate, isUnknown, Unknown, type Scope, type Value } from "../../src/infra/evaluate.ts";
import { parseHcl } from "../../src/infra/hcl.ts";

const scope: Scope = {
  variable: (name) => ({ env: "prod", zones: ["a", "b"], flags: { debug: false } } as unknown as Record<string, Value>)[name] ?? new Unknown("variable", name),
  local: (name) => (name === "prefix" ? "app" : new Unknown("other", name)),
  module: (name) => new Unknown("reference", name),
};
const value = async (expression: string) => {
  const file = await parseHcl("t.tf", `x = ${expression}\n`);
  expect(file.errors).toEqual([]);
  return evaluate(file.body.attributes.get("x")!.expr, scope);
};

test("literals, templates with escapes and interpolation, and heredocs", async () => {
  expect(await value('"a\\tb\\"c"')).toBe('a\tb"c');
  expect(await value('"${local.prefix}-${var.env}-$${literal}"')).toBe("app-prod-${literal}");
  expect(await value("<<-EOT\n    one\n      two\n    EOT")).toBe("one\n  two\n");
  expect(await value("<<-EOT\n    ${var.env}  mid\n    end\n    EOT")).toBe("prod  mid\nend\n");
  expect(await value("<<EOT\n  kept ${var.env}\nEOT")).toBe("  kept prod\n");
  expect(await value("[1, true, null, 2.5]")).toEqual([1, true, null, 2.5]);
});

test("operators, conditionals, indexes, splats, for expressions and functions", async () => {
  expect(await value('var.env == "prod" ? 3 * 2 : 0')).toBe(6);
  expect(await value("!var.flags.debug && length(var.zones) > 1")).toBe(true);
  expect(await value("var.zones[1]")).toBe("b");
  expect(await value('[for z in var.zones : upper(z) if z != "a"]')).toEqual(["B"]);
  expect(await value("{ for i, z in var.zones : z => i }")).toEqual({ a: 0, b: 1 });
  expect(await value('[{ n = 1 }, { n = 2 }][*].n')).toEqual([1, 2]);
  expect(await value('merge({ a = 1 }, { b = "${var.env}" })')).toEqual({ a: 1, b: "prod" });
  expect(await value('format("%s-%d", "x", 7)')).toBe("x-7");
  expect(await value('try(var.missing, "fallback")')).toBe("fallback");
});

test("what cannot be known says why", async () => {
  const reference = await value("aws_kms_key.main.arn");
  expect(isUnknown(reference) && reference.why).toBe("reference");
  const unset = await value('"${var.missing}-x"');
  expect(isUnknown(unset) && unset.why).toBe("variable");
});

test("blocks, labels, lines and comments are kept; errors name their line", async () => {
  const file = await parseHcl("m.tf", '# top\nresource "a_b" "c" {\n  // inside\n  x = 1\n  nested {\n    y = 2\n  }\n}\n');
  expect(file.comments.map((c) => [c.line, c.text])).toEqual([[1, "# top"], [3, "// inside"]]);
  const [block] = file.body.blocks;
  expect(block).toMatchObject({ type: "resource", labels: ["a_b", "c"], line: 2, endLine: 8 });
  expect(block!.body.attributes.get("x")!.line).toBe(4);
  expect(block!.body.blocks[0]!.body.attributes.get("y")!.line).toBe(6);
  const broken = await parseHcl("b.tf", 'a = 1\nb = "unterminated\nc = 3\n');
  expect(broken.errors[0]!.line).toBe(2);
});
