/**
 * infra_analyze and infra_file_check: what a reviewer would note about a configuration before any security rule
 * runs. Syntax errors, variables and outputs without description or type, no required_version, providers and
 * modules without version pins, hard-coded secrets; a score from 100 down, and statistics.
 */
import type { Configuration } from "./configuration.ts";
import type { HclFile } from "./hcl.ts";
import type { Severity } from "./model.ts";
import { findSecrets } from "./secrets.ts";
import type { Analysis, Issue } from "./views.ts";

const weight: Record<Severity, number> = { low: 1, medium: 5, high: 10, critical: 20 };

/** 100 less each issue's weight, never below 0. */
export const scoreOf = (issues: Issue[]) => Math.max(0, 100 - issues.reduce((sum, issue) => sum + weight[issue.severity], 0));

/** Issues one file shows on its own: syntax errors, undocumented or untyped variables and outputs, secrets. */
export function fileIssues(file: HclFile): Issue[] {
  const issues: Issue[] = file.errors.map((e) => ({
    severity: "high" as const,
    category: "syntax" as const,
    message: `syntax error at line ${e.line}, column ${e.column}: ${e.message}`,
    file: file.path,
    line: e.line,
  }));
  for (const block of file.body.blocks) {
    const name = block.labels[0] ?? "";
    if (block.type === "variable") {
      if (!block.body.attributes.has("description"))
        issues.push({ severity: "low", category: "documentation", message: `variable ${name} has no description`, file: file.path, line: block.line });
      if (!block.body.attributes.has("type"))
        issues.push({ severity: "low", category: "typing", message: `variable ${name} has no type`, file: file.path, line: block.line });
    }
    if (block.type === "output" && !block.body.attributes.has("description"))
      issues.push({ severity: "low", category: "documentation", message: `output ${name} has no description`, file: file.path, line: block.line });
  }
  for (const secret of findSecrets(file))
    issues.push({
      severity: secret.kind.startsWith("literal") ? "high" : "critical",
      category: "secrets",
      message: `hard-coded secret (${secret.kind}) at ${secret.where}; pass it as a sensitive variable or read it from a secret store`,
      file: file.path,
      line: secret.line,
    });
  return issues;
}

export function analyzeConfiguration(config: Configuration): Analysis {
  const issues: Issue[] = [];
  for (const module of config.modules) for (const file of module.files) issues.push(...fileIssues(file));
  const root = config.root;
  const firstFile = root.files[0]?.path ?? ".";
  if (!root.requiredVersion)
    issues.push({ severity: "medium", category: "versioning", message: "no required_version in a terraform block: pin the tofu/terraform versions this works with", file: firstFile, line: 1 });
  const providerNames = new Set<string>();
  for (const module of config.modules) {
    for (const required of module.requiredProviders) {
      providerNames.add(required.name);
      if (!required.version)
        issues.push({ severity: "medium", category: "versioning", message: `provider ${required.name} has no version constraint`, file: required.file, line: required.line });
    }
    for (const call of module.moduleCalls)
      if (!call.local && !call.version && !/[?&]ref=/.test(call.source))
        issues.push({ severity: "medium", category: "versioning", message: `module ${call.name} (${call.source}) is not pinned to a version`, file: call.file, line: call.line });
  }
  const used = new Set(config.resources.map((r) => r.type.split("_")[0]!));
  used.delete("terraform");
  for (const provider of used)
    if (!providerNames.has(provider)) {
      const resource = config.resources.find((r) => r.type.startsWith(`${provider}_`))!;
      issues.push({ severity: "medium", category: "versioning", message: `provider ${provider} is used but not in required_providers with a version`, file: resource.file, line: resource.line });
    }

  const resourcesByType: Record<string, number> = {};
  for (const resource of config.resources) if (resource.mode === "managed") resourcesByType[resource.type] = (resourcesByType[resource.type] ?? 0) + 1;
  const variables = config.modules.flatMap((m) => m.variables);
  const outputs = config.modules.flatMap((m) => m.outputs);
  issues.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
  return {
    score: scoreOf(issues),
    issues,
    statistics: {
      files: config.modules.reduce((n, m) => n + m.files.length, 0),
      resources: Object.values(resourcesByType).reduce((a, b) => a + b, 0),
      resources_by_type: resourcesByType,
      data_sources: config.resources.filter((r) => r.mode === "data").length,
      providers: [...new Set([...providerNames, ...used])].sort(),
      modules: config.modules.flatMap((m) => m.moduleCalls.map((c) => ({ name: c.name, source: c.source, ...(c.version ? { version: c.version } : {}) }))),
      variables: {
        total: variables.length,
        without_description: variables.filter((v) => !v.hasDescription).map((v) => v.name),
        without_type: variables.filter((v) => !v.hasType).map((v) => v.name),
      },
      outputs: outputs.length,
      required_version: root.requiredVersion ?? null,
      unpinned_providers: config.modules.flatMap((m) => m.requiredProviders.filter((p) => !p.version).map((p) => p.name)),
      hardcoded_secrets: issues.filter((i) => i.category === "secrets").length,
      syntax_errors: issues.filter((i) => i.category === "syntax").length,
    },
  };
}
