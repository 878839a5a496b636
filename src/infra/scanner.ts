/**
 * The security scanner: every rule (AWS, Azure, Google) over every resource instance of a configuration, with
 * Checkov's verdicts, honouring `#checkov:skip=<id>` inside a resource and `#tfsec:ignore:<id>` (or
 * `#trivy:ignore:<id>`) above it or on the flagged line. Findings carry the rule's ids, file, line and address.
 */
import type { Configuration, ResourceInstance } from "./configuration.ts";
import { severities, type Severity } from "./model.ts";
import { awsRules } from "./rules/aws.ts";
import { azureRules } from "./rules/azure.ts";
import { gcpRules } from "./rules/gcp.ts";
import type { Result, Rule, RuleContext } from "./rules/rule.ts";
import type { Finding, ScanReport } from "./views.ts";

export const rules: Rule[] = [...awsRules, ...azureRules, ...gcpRules];

export interface Evaluation {
  rule: Rule;
  resource: ResourceInstance;
  result: Result;
  line: number;
  /** Why the finding is not reported: the skip comment's text. */
  skipped?: string;
}

/** Every rule's verdict on every resource it applies to. */
export function evaluateRules(config: Configuration, only: Rule[] = rules): Evaluation[] {
  const byType = new Map<string, Rule[]>();
  for (const rule of only) for (const type of rule.resources) byType.set(type, [...(byType.get(type) ?? []), rule]);
  const comments = new Map(config.modules.flatMap((m) => m.files.map((f) => [f.path, f.comments] as const)));
  const context: RuleContext = {
    referringTo: (target, types) =>
      config.resources.filter((r) => r.modulePath === target.modulePath && types.includes(r.type) && r.references.has(`${target.type}.${target.name}`)),
  };
  const evaluations: Evaluation[] = [];
  for (const resource of config.resources) {
    const key = resource.mode === "data" ? `data.${resource.type}` : resource.type;
    for (const rule of byType.get(key) ?? []) {
      const verdict = rule.check(resource, context);
      const line = (verdict.attribute && resource.lines[verdict.attribute]) || resource.line;
      const skipped = skipComment(comments.get(resource.file) ?? [], rule, resource, line);
      evaluations.push({ rule, resource, result: verdict.result, line, ...(skipped ? { skipped } : {}) });
    }
  }
  return evaluations;
}

/** `#checkov:skip=ID[:reason]` anywhere in the resource; `#tfsec:ignore:ID` on the line above it, inside it, or above the flagged line. */
function skipComment(comments: { line: number; text: string }[], rule: Rule, resource: ResourceInstance, line: number): string | undefined {
  for (const comment of comments) {
    if (comment.line < resource.line - 1 || comment.line > resource.endLine) continue;
    const checkov = /checkov:skip=([A-Z0-9_]+)(?::\s*(.*))?/.exec(comment.text);
    if (checkov && checkov[1] === rule.id && comment.line >= resource.line) return comment.text.replace(/^(#|\/\/)\s*/, "").trim();
    const ignore = /(tfsec|trivy):ignore:([a-z0-9-]+)/.exec(comment.text);
    if (ignore && ignore[2] === rule.tfsec && (comment.line === resource.line - 1 || comment.line === line || comment.line === line - 1 || comment.line >= resource.line))
      return comment.text.replace(/^(#|\/\/)\s*/, "").trim();
  }
  return undefined;
}

/** The failed rules at or above `minimum` severity, as findings. */
export function scan(config: Configuration, minimum: Severity = "medium"): ScanReport {
  const floor = severities.indexOf(minimum);
  const evaluations = evaluateRules(config).filter((e) => severities.indexOf(e.rule.severity) >= floor);
  const finding = ({ rule, resource, line }: Evaluation): Finding => ({
    rule_id: rule.id,
    tfsec_id: rule.tfsec,
    provider: rule.provider,
    severity: rule.severity,
    category: rule.category,
    title: rule.title,
    remediation: rule.remediation,
    resource: resource.instance,
    file: resource.file,
    line,
  });
  const failed = evaluations.filter((e) => e.result === "failed");
  const findings = failed.filter((e) => !e.skipped).map(finding);
  findings.sort((a, b) => severities.indexOf(b.severity) - severities.indexOf(a.severity) || a.file.localeCompare(b.file) || a.line - b.line);
  const bySeverity = Object.fromEntries(severities.map((s) => [s, findings.filter((f) => f.severity === s).length])) as Record<Severity, number>;
  return {
    findings,
    skipped: failed.filter((e) => e.skipped).map((e) => ({ ...finding(e), reason: e.skipped! })),
    summary: {
      rules: new Set(evaluations.map((e) => e.rule.id)).size,
      resources: new Set(evaluations.map((e) => e.resource.instance)).size,
      passed: evaluations.filter((e) => e.result === "passed").length,
      failed: findings.length,
      skipped: failed.length - findings.length,
      unknown: evaluations.filter((e) => e.result === "unknown").length,
      by_severity: bySeverity,
    },
  };
}
