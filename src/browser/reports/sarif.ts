/**
 * SARIF 2.1.0, as code-scanning tools read it: one run whose tool driver lists each rule that fired, and one
 * result per finding, located at the page's URL (and its elements' selectors as logical locations).
 */
import { version } from "../../version.ts";
import type { Finding, TestResult } from "../model.ts";

const levelOf = (finding: Finding) => (finding.severity === "critical" || finding.severity === "high" ? "error" : finding.severity === "info" ? "note" : "warning");
const scoreOf: Record<Finding["severity"], string> = { critical: "9.5", high: "8.0", medium: "5.5", low: "3.0", info: "0.0" };

export function sarif(result: TestResult): object {
  const findings = [...result.findings, ...(result.steps ?? []).filter((s) => s.status === "failed").map(stepFinding(result))];
  const rules = [...new Map(findings.map((f) => [f.rule, f])).values()].map((f) => ({
    id: f.rule,
    name: f.rule.replace(/(^|-)(\w)/g, (_m, _d, c: string) => c.toUpperCase()),
    shortDescription: { text: f.title },
    fullDescription: { text: f.description },
    ...(f.help_url ? { helpUri: f.help_url } : {}),
    help: { text: f.recommendation ?? f.title },
    properties: { category: f.category, "security-severity": scoreOf[f.severity], tags: [f.category, ...(f.wcag ?? []).map((c) => `WCAG ${c}`)] },
  }));
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: { driver: { name: "platform-browser", version, informationUri: "https://www.w3.org/WAI/standards-guidelines/wcag/", rules } },
        invocations: [{ executionSuccessful: true, startTimeUtc: result.started_at, endTimeUtc: new Date(Date.parse(result.started_at) + result.duration).toISOString() }],
        properties: { test: result.test, resultId: result.id, status: result.status },
        results: findings.map((f) => ({
          ruleId: f.rule,
          ruleIndex: rules.findIndex((rule) => rule.id === f.rule),
          level: levelOf(f),
          message: { text: `${f.title}: ${f.description}` },
          locations: [
            {
              physicalLocation: { artifactLocation: { uri: f.url } },
              ...(f.selectors?.length ? { logicalLocations: f.selectors.slice(0, 20).map((selector) => ({ fullyQualifiedName: selector, kind: "element" })) } : {}),
            },
          ],
          properties: { severity: f.severity, ...(f.viewport ? { viewport: f.viewport } : {}), ...(f.wcag?.length ? { wcag: f.wcag } : {}) },
        })),
      },
    ],
  };
}

const stepFinding = (result: TestResult) => (step: NonNullable<TestResult["steps"]>[number]): Finding => ({
  rule: "playbook-step-failed",
  category: "playbook",
  severity: "high",
  title: `Step ${step.index + 1} failed: ${step.description}`,
  description: step.error ?? "failed",
  url: result.url,
});
