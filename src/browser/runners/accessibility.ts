/**
 * The accessibility test: real axe-core, injected by @axe-core/playwright, with the rule tags of the chosen
 * conformance level. Each violated rule becomes one finding with its impact, WCAG success criteria, the
 * selectors and HTML of the offending elements, and axe's advice on fixing it.
 */
import { AxeBuilder } from "@axe-core/playwright";
import type { Result } from "axe-core";
import type { Page } from "playwright-core";
// Embedded as text, so the compiled executable carries axe with it.
import axeSource from "axe-core/axe.min.js" with { type: "text" };
import type { AccessibilityInput, Finding, Severity, Standard } from "../model.ts";
import type { DriverSession, RunContext } from "../driver/session.ts";
import { bySeverity, checkCancelled, type RunOutcome } from "./outcome.ts";

const levelA = ["wcag2a", "wcag21a"];
const levelAA = [...levelA, "wcag2aa", "wcag21aa"];

/** axe tags per standard: each level includes the ones below it; WCAG 2.2 AA adds its new criteria. */
export const standardTags: Record<Standard, string[]> = {
  "WCAG2.1-A": levelA,
  "WCAG2.1-AA": levelAA,
  "WCAG2.1-AAA": [...levelAA, "wcag2aaa", "wcag21aaa"],
  "WCAG2.2-AA": [...levelAA, "wcag22a", "wcag22aa"],
};

const severityOf: Record<string, Severity> = { critical: "critical", serious: "high", moderate: "medium", minor: "low" };

/** `wcag143` -> `1.4.3`; level tags such as `wcag2aa` name no criterion. */
export const criteriaOf = (tags: string[]) => tags.flatMap((tag) => /^wcag(\d)(\d)(\d+)$/.exec(tag)?.slice(1, 4).join(".") ?? []);

export async function accessibility(session: DriverSession, { url, standard = "WCAG2.1-AA" }: AccessibilityInput, run: RunContext): Promise<RunOutcome> {
  const [page] = (await session.runPages(1)) as [Page];
  try {
    run.progress({ category: "accessibility", phase: "start", message: `Opening ${url}`, data: { url, standard } });
    const response = await page.goto(url, { waitUntil: "load" });
    checkCancelled(run.signal);
    run.progress({ category: "accessibility", phase: "check", message: `Running axe-core with the ${standard} rules` });
    const results = await new AxeBuilder({ page, axeSource }).withTags(standardTags[standard]).analyze();
    const findings = results.violations.map((violation) => findingOf(violation, page.url()));
    run.progress({ category: "accessibility", phase: "done", message: `${findings.length} rule(s) violated`, data: bySeverity(findings) });
    return {
      url: page.url(),
      findings,
      screenshots: [],
      summary: {
        standard,
        status_code: response?.status() ?? null,
        violations: results.violations.length,
        violating_elements: results.violations.reduce((sum, v) => sum + v.nodes.length, 0),
        passes: results.passes.length,
        incomplete: results.incomplete.map((rule) => rule.id),
        inapplicable: results.inapplicable.length,
        by_severity: bySeverity(findings),
        engine: `axe-core ${results.testEngine.version}`,
      },
    };
  } finally {
    await session.releaseRunPages([page]);
  }
}

export function findingOf(violation: Result, url: string): Finding {
  const nodes = violation.nodes;
  // axe lists the ways to fix an element one per line, after a "Fix any/all of the following:" heading.
  const summary = nodes[0]?.failureSummary
    ?.split("\n")
    .map((line) => line.trim())
    .filter(Boolean)
    .join(" ")
    .replace(/following: /, "following: ")
    .replace(/(\w) (Element|The) /g, "$1; $2 ");
  return {
    rule: violation.id,
    category: "accessibility",
    severity: severityOf[violation.impact ?? "moderate"] ?? "medium",
    title: violation.help,
    description: violation.description,
    url,
    selectors: nodes.map((node) => node.target.map(String).join(" ")),
    html: nodes[0]?.html,
    impact: violation.impact ?? undefined,
    wcag: criteriaOf(violation.tags),
    recommendation: summary ? `${violation.help}. ${summary}` : violation.help,
    help_url: violation.helpUrl,
    data: { elements: nodes.length, tags: violation.tags },
  };
}
