/** A scan as SARIF 2.1.0, the format code-scanning services read: one run, the rules that fired, one result per finding. */
import type { Severity } from "./model.ts";
import { rules } from "./scanner.ts";
import type { Sarif, ScanReport } from "./views.ts";

const level: Record<Severity, "note" | "warning" | "error"> = { low: "note", medium: "warning", high: "error", critical: "error" };
// GitHub code scanning reads this property (0.1 to 10) to rank security results.
const securitySeverity: Record<Severity, string> = { low: "3.0", medium: "5.5", high: "8.0", critical: "9.5" };

export function toSarif(report: ScanReport, version: string): Sarif {
  const fired = rules.filter((rule) => report.findings.some((f) => f.rule_id === rule.id));
  return {
    $schema: "https://json.schemastore.org/sarif-2.1.0.json",
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "platform-infra",
            version,
            rules: fired.map((rule) => ({
              id: rule.id,
              name: rule.tfsec,
              shortDescription: { text: rule.title },
              help: { text: rule.remediation },
              defaultConfiguration: { level: level[rule.severity] },
              properties: { tags: ["security", rule.provider, rule.category], "security-severity": securitySeverity[rule.severity], tfsec: rule.tfsec },
            })),
          },
        },
        results: report.findings.map((finding) => ({
          ruleId: finding.rule_id,
          ruleIndex: fired.findIndex((rule) => rule.id === finding.rule_id),
          level: level[finding.severity],
          message: { text: `${finding.title} (${finding.resource}). ${finding.remediation}` },
          locations: [
            {
              physicalLocation: { artifactLocation: { uri: finding.file }, region: { startLine: finding.line } },
              logicalLocations: [{ fullyQualifiedName: finding.resource, kind: "resource" }],
            },
          ],
        })),
      },
    ],
  };
}
