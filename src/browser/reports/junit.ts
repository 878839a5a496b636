/**
 * JUnit XML, as CI servers read it: one test suite per run. A playbook's steps are its test cases; for the
 * other tests each finding is a failed case (a warning-level one too, so nothing is hidden), and a run with
 * no findings has one passing case.
 */
import type { TestResult } from "../model.ts";

const escape = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!).replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "");

export function junit(result: TestResult): string {
  const cases: string[] = [];
  const suite = `${result.test} ${result.url}`;
  if (result.steps) {
    for (const step of result.steps) {
      const name = `${step.index + 1}. ${step.description}`;
      const time = (step.duration_ms / 1000).toFixed(3);
      const body =
        step.status === "failed"
          ? `<failure message="${escape(step.error ?? "failed")}" type="StepFailed">${escape(step.error ?? "")}</failure>`
          : step.status === "skipped"
            ? "<skipped/>"
            : "";
      cases.push(`    <testcase classname="playbook" name="${escape(name)}" time="${time}">${body}</testcase>`);
    }
  }
  for (const finding of result.findings) {
    const where = finding.selectors?.length ? ` at ${finding.selectors.slice(0, 3).join(", ")}` : "";
    const text = [finding.description, finding.recommendation && `Fix: ${finding.recommendation}`, finding.help_url].filter(Boolean).join("\n");
    cases.push(
      `    <testcase classname="${escape(`${result.test}.${finding.category}`)}" name="${escape(`${finding.rule}: ${finding.title}${where} (${finding.url})`)}" time="0">` +
        `<failure message="${escape(`[${finding.severity}] ${finding.title}`)}" type="${escape(finding.rule)}">${escape(text)}</failure></testcase>`,
    );
  }
  if (!cases.length) cases.push(`    <testcase classname="${escape(result.test)}" name="${escape(`no findings on ${result.url}`)}" time="${(result.duration / 1000).toFixed(3)}"/>`);
  const failures = cases.filter((c) => c.includes("<failure")).length;
  const skipped = cases.filter((c) => c.includes("<skipped/>")).length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="platform browser" tests="${cases.length}" failures="${failures}" time="${(result.duration / 1000).toFixed(3)}">`,
    `  <testsuite name="${escape(suite)}" id="${escape(result.id)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="${skipped}" time="${(result.duration / 1000).toFixed(3)}" timestamp="${result.started_at}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}
