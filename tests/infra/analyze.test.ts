import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { loadConfiguration } from "../../src/infra/configuration.ts";
import { startInfra, type InfraHarness } from "./support.ts";

let h: InfraHarness;
beforeAll(async () => {
  h = await startInfra();
  h.fixture("basic");
  h.write({
    "messy/main.tf": [
      'variable "region" {}',
      'variable "db_password" {',
      '  type    = string',
      '  default = "hunter2-but-longer"',
      "}",
      'terraform {',
      "  required_providers {",
      '    aws = { source = "hashicorp/aws" }',
      "  }",
      "}",
      'resource "aws_db_instance" "db" {',
      '  password = "Sup3rSecret!"',
      "}",
      'resource "aws_iam_access_key" "k" {',
      '  user = "AKIAIOSFODNN7EXAMPLE"',
      "}",
      'module "vpc" {',
      '  source = "terraform-aws-modules/vpc/aws"',
      "}",
      'output "x" { value = 1 }',
      "",
    ].join("\n"),
    "broken/main.tf": 'resource "terraform_data" "a" {\n  input = "x"\n}\n\nresource "terraform_data" "b" {\n  input = \n}\n',
  });
});
afterAll(() => h.close());

test("a tidy configuration scores 100 and its statistics follow the local module", async () => {
  const result = await h.ok<{ score: number; issues: unknown[]; statistics: Record<string, any> }>("infra_analyze", { path: "basic" });
  expect(result.issues).toEqual([]);
  expect(result.score).toBe(100);
  expect(result.statistics).toMatchObject({
    files: 2,
    resources_by_type: { terraform_data: 3 },
    modules: [{ name: "counter", source: "./modules/counter" }],
    variables: { total: 3, without_description: [], without_type: [] },
    outputs: 3,
    required_version: ">= 1.6",
    hardcoded_secrets: 0,
  });
});

test("issues carry file and line: no description or type, no pins, hard-coded secrets", async () => {
  const result = await h.ok<{ score: number; issues: { severity: string; message: string; file: string; line: number }[]; statistics: Record<string, any> }>(
    "infra_analyze",
    { path: "messy" },
  );
  const at = (part: string) => result.issues.find((i) => i.message.includes(part));
  expect(at("variable region has no description")).toMatchObject({ file: "main.tf", line: 1 });
  expect(at("variable region has no type")).toMatchObject({ line: 1 });
  expect(at("no required_version")).toMatchObject({ severity: "medium" });
  expect(at("provider aws has no version constraint")).toMatchObject({ line: 8 });
  expect(at("module vpc (terraform-aws-modules/vpc/aws) is not pinned")).toMatchObject({ line: 17 });
  expect(at("variable.db_password.default")).toMatchObject({ severity: "high", line: 4 });
  expect(at("aws_db_instance.db.password")).toMatchObject({ severity: "high", line: 12 });
  expect(at("AWS access key id")).toMatchObject({ severity: "critical", line: 15 });
  expect(at("output x has no description")).toMatchObject({ line: 20 });
  expect(result.statistics.hardcoded_secrets).toBe(3);
  expect(result.score).toBeLessThan(50);
});

test("a syntax error names the file and line", async () => {
  const check = await h.ok<{ valid: boolean; syntax_errors: { line: number }[]; issues: { message: string }[] }>("infra_file_check", { path: "broken/main.tf" });
  expect(check.valid).toBe(false);
  expect(check.syntax_errors[0]!.line).toBe(6);
  expect(check.issues[0]!.message).toContain("syntax error at line 6");
  const analysis = await h.ok<{ issues: { category: string; file: string; line: number }[] }>("infra_analyze", { path: "broken" });
  expect(analysis.issues.find((i) => i.category === "syntax")).toMatchObject({ file: "main.tf", line: 6 });
});

test("file check refuses folders, missing files and files that are not HCL", async () => {
  expect(await h.fails("infra_file_check", { path: "basic" })).toContain("[INVALID_PATH]");
  expect(await h.fails("infra_file_check", { path: "basic/nope.tf" })).toContain("[NOT_FOUND]");
  h.write({ "notes.txt": "hello" });
  expect(await h.fails("infra_file_check", { path: "notes.txt" })).toContain("[INVALID_ARGUMENT]");
});

test("workspace info lists resources with their instances, variables and the state", async () => {
  const info = await h.ok<Record<string, any>>("infra_workspace_info", { path: "basic" });
  expect(info.resources.map((r: { address: string }) => r.address)).toEqual([
    "module.counter.terraform_data.counter[0]",
    "module.counter.terraform_data.counter[1]",
    "terraform_data.greeting",
  ]);
  expect(info).toMatchObject({ initialised: false, backend: "local", variables: ["name", "copies"], state_file: { present: false }, state: "idle" });
});

test("setup writes a starting project that real tofu validates, and never overwrites", async () => {
  const made = await h.ok<{ files: string[] }>("infra_workspace_setup", { path: "starter", name: "shop" });
  expect(made.files).toEqual(["versions.tf", "variables.tf", "main.tf", "outputs.tf", "README.md"]);
  await h.ok("infra", { path: "starter", action: "init" });
  expect(await h.ok<{ result: { valid: boolean } }>("infra", { path: "starter", action: "validate" })).toMatchObject({ result: { valid: true } });
  expect((await h.ok<{ score: number }>("infra_analyze", { path: "starter" })).score).toBe(100);

  h.write({ "half/main.tf": "# mine\n" });
  expect(await h.fails("infra_workspace_setup", { path: "half", provider: "aws" })).toContain("[ALREADY_EXISTS] half already has main.tf");
  expect(readFileSync(join(h.root, "half/main.tf"), "utf8")).toBe("# mine\n");
  expect(existsSync(join(h.root, "half/versions.tf"))).toBe(false);
  for (const provider of ["aws", "azurerm", "google"]) {
    await h.ok("infra_workspace_setup", { path: `cloud-${provider}`, provider });
    expect((await h.ok<{ score: number }>("infra_analyze", { path: `cloud-${provider}` })).score).toBe(100);
  }
});

test("variables, locals, count, for_each, conditionals and module inputs are evaluated", async () => {
  h.write({
    "eval/main.tf": [
      'variable "envs" {',
      '  type    = map(string)',
      '  default = { dev = "t3.micro", prod = "m5.large" }',
      "}",
      'variable "on" {',
      "  type    = bool",
      "  default = true",
      "}",
      "locals {",
      '  prefix = "app-${upper("x")}"',
      "  names  = [for k, v in var.envs : \"${local.prefix}-${k}\" if v != \"\"]",
      "}",
      'resource "aws_instance" "per_env" {',
      "  for_each      = var.envs",
      "  instance_type = each.value",
      '  tags          = { Name = "${local.prefix}-${each.key}" }',
      "}",
      'resource "aws_instance" "maybe" {',
      "  count         = var.on ? 2 : 0",
      '  instance_type = count.index == 0 ? "a" : "b"',
      "  subnet_id     = aws_subnet.main.id",
      "}",
      'module "inner" {',
      '  source = "./inner"',
      "  size   = length(local.names) * 10",
      "}",
      "",
    ].join("\n"),
    "eval/inner/main.tf": 'variable "size" {\n  type = number\n}\nresource "aws_ebs_volume" "v" {\n  size = var.size\n}\n',
  });
  const config = await loadConfiguration(join(h.root, "eval"));
  const by = Object.fromEntries(config.resources.map((r) => [r.instance, r]));
  expect(Object.keys(by).sort()).toEqual([
    "aws_instance.maybe[0]",
    "aws_instance.maybe[1]",
    'aws_instance.per_env["dev"]',
    'aws_instance.per_env["prod"]',
    "module.inner.aws_ebs_volume.v",
  ]);
  expect(by['aws_instance.per_env["prod"]']!.conf).toMatchObject({ instance_type: "m5.large", tags: { Name: "app-X-prod" } });
  expect(by["aws_instance.maybe[1]"]!.conf.instance_type).toBe("b");
  expect([...by["aws_instance.maybe[0]"]!.references]).toEqual(["aws_subnet.main"]);
  expect(by["module.inner.aws_ebs_volume.v"]!.conf.size).toBe(20);
  expect(by["module.inner.aws_ebs_volume.v"]!.file).toBe("inner/main.tf");
});
