import { afterAll, beforeAll, expect, test } from "bun:test";
import { rules } from "../../src/infra/scanner.ts";
import { startInfra, type InfraHarness } from "./support.ts";

let h: InfraHarness;
beforeAll(async () => {
  h = await startInfra();
  h.fixture("corpus/skips", "skips");
  h.fixture("corpus/s3-module", "s3-module");
  h.fixture("corpus/rds", "rds");
  h.fixture("corpus/ecr", "ecr");
});
afterAll(() => h.close());

type Finding = { rule_id: string; tfsec_id: string; severity: string; resource: string; file: string; line: number; remediation: string };
type Report = { findings: Finding[]; skipped: (Finding & { reason: string })[]; summary: Record<string, number> };

test("there are at least 60 rules over AWS, Azure and Google, each with both ids", () => {
  expect(rules.length).toBeGreaterThanOrEqual(60);
  expect(new Set(rules.map((r) => r.provider))).toEqual(new Set(["aws", "azure", "google"]));
  for (const rule of rules) {
    expect(rule.id).toMatch(/^CKV_(AWS|AZURE|GCP)_\d+$/);
    expect(rule.tfsec).toMatch(/^(aws|azure|google)-[a-z0-9-]+$/);
    expect(rule.remediation.length).toBeGreaterThan(10);
  }
  expect(new Set(rules.map((r) => r.id)).size).toBe(rules.length);
});

test("findings carry file, line and address; a module's resources are named by their module", async () => {
  const report = await h.ok<Report>("infra_security_scan", { path: "s3-module" });
  expect(report.findings).toContainEqual(
    expect.objectContaining({ rule_id: "CKV_AWS_20", tfsec_id: "aws-s3-no-public-access-with-acl", resource: "module.logs.aws_s3_bucket.this", file: "modules/bucket/main.tf", line: 14 }),
  );
  const rds = await h.ok<Report>("infra_security_scan", { path: "rds", severity: "critical" });
  expect(rds.findings.map((f) => [f.rule_id, f.resource, f.line])).toEqual([["CKV_AWS_17", "aws_db_instance.plain", 13]]);
});

test("checkov:skip and tfsec:ignore comments move a finding to skipped, with the reason", async () => {
  const report = await h.ok<Report>("infra_security_scan", { path: "skips", severity: "low" });
  expect(report.skipped.map((s) => [s.rule_id, s.resource, s.reason])).toEqual([
    ["CKV_AWS_20", "aws_s3_bucket.website", "checkov:skip=CKV_AWS_20:the bucket serves a public website"],
    ["CKV_AWS_16", "aws_db_instance.scratch", "tfsec:ignore:aws-rds-encrypt-instance-storage-data"],
  ]);
  expect(report.findings.map((f) => [f.rule_id, f.resource])).toEqual([["CKV_AWS_3", "aws_ebs_volume.still_flagged"]]);
});

test("the severity floor: medium by default; unknown values list the allowed ones", async () => {
  const medium = await h.ok<Report>("infra_security_scan", { path: "ecr" });
  const low = await h.ok<Report>("infra_security_scan", { path: "ecr", severity: "low" });
  expect(medium.findings.every((f) => f.severity !== "low")).toBe(true);
  expect(low.findings.some((f) => f.severity === "low")).toBe(true);
  expect(await h.fails("infra_security_scan", { path: "ecr", severity: "urgent" })).toContain(
    '[INVALID_ARGUMENT] unknown severity "urgent"; allowed: low, medium, high, critical',
  );
});

test("SARIF 2.1.0: rules that fired, results with locations", async () => {
  const { sarif } = await h.ok<{ sarif: any }>("infra_security_scan", { path: "rds", format: "sarif" });
  expect(sarif.version).toBe("2.1.0");
  const run = sarif.runs[0];
  expect(run.tool.driver.rules.map((r: { id: string }) => r.id).sort()).toEqual(["CKV_AWS_16", "CKV_AWS_17"]);
  const result = run.results.find((r: { ruleId: string }) => r.ruleId === "CKV_AWS_17");
  expect(result).toMatchObject({
    level: "error",
    locations: [{ physicalLocation: { artifactLocation: { uri: "main.tf" }, region: { startLine: 13 } }, logicalLocations: [{ fullyQualifiedName: "aws_db_instance.plain" }] }],
  });
  expect(run.tool.driver.rules[result.ruleIndex].id).toBe("CKV_AWS_17");
});

test("a syntax error stops the scan and names file and line", async () => {
  h.write({ "bad/main.tf": 'resource "aws_s3_bucket" "b" {\n  bucket = "x"\n  acl = \n}\n' });
  expect(await h.fails("infra_security_scan", { path: "bad" })).toContain("[SYNTAX_ERROR] main.tf line 3");
});

test("recommendations by focus; an unknown focus lists the allowed ones", async () => {
  const security = await h.ok<{ recommendations: { title: string }[] }>("infra_recommendations", { path: "rds" });
  expect(security.recommendations.some((r) => r.title.startsWith("CKV_AWS_17"))).toBe(true);
  const reliability = await h.ok<{ recommendations: { title: string; resource: string }[] }>("infra_recommendations", { path: "rds", focus: "reliability" });
  expect(reliability.recommendations).toContainEqual(expect.objectContaining({ title: "single-AZ database", resource: "aws_db_instance.plain" }));
  const cost = await h.ok<{ count: number }>("infra_recommendations", { path: "rds", focus: "cost" });
  expect(cost.count).toBeGreaterThan(0);
  expect(await h.fails("infra_recommendations", { path: "rds", focus: "vibes" })).toContain(
    "allowed: security, cost, reliability, performance, maintainability",
  );
});
