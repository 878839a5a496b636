/**
 * Runs a validated playbook in a context holding the session's cookies: step by step, each timed; a failed step
 * gets a screenshot and stops the run (unless it says continue_on_error), and the steps after it are skipped.
 */
import { AxeBuilder } from "@axe-core/playwright";
import axeSource from "axe-core/axe.min.js" with { type: "text" };
import type { Page } from "playwright-core";
import type { Finding, Severity, StepResult } from "../model.ts";
import { severities } from "../model.ts";
import type { DriverSession, RunContext } from "../driver/session.ts";
import { describeStep, type Playbook, type Step } from "../playbook/model.ts";
import { findingOf, standardTags } from "./accessibility.ts";
import { bySeverity, type RunOutcome, type RunnerScreenshot } from "./outcome.ts";

class StepFailed extends Error {}

export async function playbook(session: DriverSession, { playbook }: { playbook: Playbook }, run: RunContext): Promise<RunOutcome> {
  const context = await session.runContext();
  const findings: Finding[] = [];
  const screenshots: RunnerScreenshot[] = [];
  const steps: StepResult[] = [];
  let stopped = false;
  try {
    const page = await context.newPage();
    run.progress({ category: "playbook", phase: "start", message: `Running ${playbook.name ?? "playbook"}: ${playbook.steps.length} step(s)` });
    for (const [index, step] of playbook.steps.entries()) {
      const description = describeStep(step);
      if (stopped || run.signal.aborted) {
        steps.push({ index, action: step.action, description, status: "skipped", duration_ms: 0 });
        continue;
      }
      const started = performance.now();
      try {
        await perform(page, step, playbook, findings, screenshots);
        steps.push({ index, action: step.action, description, status: "passed", duration_ms: Math.round(performance.now() - started) });
      } catch (error) {
        const message = (error as Error).message.split("\n")[0]!;
        const name = `step-${index + 1}-failed`;
        const shot = await page.screenshot({ animations: "disabled" }).catch(() => undefined);
        if (shot) screenshots.push({ name, bytes: new Uint8Array(shot), url: page.url() });
        steps.push({ index, action: step.action, description, status: "failed", duration_ms: Math.round(performance.now() - started), error: message, ...(shot ? { screenshot: name } : {}) });
        stopped = !step.continue_on_error;
      }
      const last = steps.at(-1)!;
      run.progress({ category: "playbook", phase: "step", message: `${index + 1}. ${description}: ${last.status}${last.error ? ` (${last.error})` : ""}`, data: { index, status: last.status } });
    }
    const passed = steps.filter((s) => s.status === "passed").length;
    run.progress({ category: "playbook", phase: "done", message: `${passed} of ${steps.length} step(s) passed` });
    return {
      url: page.url() === "about:blank" ? (playbook.base_url ?? "about:blank") : page.url(),
      findings,
      screenshots,
      steps,
      summary: { name: playbook.name ?? null, steps: steps.length, passed, failed: steps.filter((s) => s.status === "failed").length, skipped: steps.filter((s) => s.status === "skipped").length, by_severity: bySeverity(findings) },
    };
  } finally {
    await context.close().catch(() => {});
  }
}

async function perform(page: Page, step: Step, playbook: Playbook, findings: Finding[], screenshots: RunnerScreenshot[]): Promise<void> {
  const timeout = step.timeout_ms;
  const text = (key: string) => step[key] as string;
  switch (step.action) {
    case "navigate":
      await page.goto(new URL(text("url"), playbook.base_url).href, { timeout });
      return;
    case "click":
      return page.locator(text("selector")).click({ timeout });
    case "fill":
      return page.locator(text("selector")).fill(text("value"), { timeout });
    case "type":
      return page.locator(text("selector")).pressSequentially(text("text"), { timeout });
    case "press":
      return step.selector ? page.locator(text("selector")).press(text("key"), { timeout }) : page.keyboard.press(text("key"));
    case "select":
      await page.locator(text("selector")).selectOption(step.values as string[], { timeout });
      return;
    case "check":
      return page.locator(text("selector")).setChecked(step.checked !== false, { timeout });
    case "hover":
      return page.locator(text("selector")).hover({ timeout });
    case "wait":
      return page.waitForTimeout(Math.min(step.ms as number, 60_000));
    case "wait_for":
      if (step.selector) return page.locator(text("selector")).first().waitFor({ state: (step.state as "visible") ?? "visible", timeout });
      return page.getByText(text("text")).first().waitFor({ state: "visible", timeout });
    case "screenshot": {
      const bytes = await page.screenshot({ fullPage: step.full_page === true, animations: "disabled" });
      screenshots.push({ name: text("name"), bytes: new Uint8Array(bytes), url: page.url() });
      return;
    }
    case "assert_text": {
      const scope = step.selector ? page.locator(text("selector")) : page.locator("body");
      const visible = await scope.getByText(text("text")).first().isVisible();
      if (!visible) throw new StepFailed(`The text "${text("text")}" is not visible${step.selector ? ` in ${text("selector")}` : ""}`);
      return;
    }
    case "assert_visible":
      if (!(await page.locator(text("selector")).first().isVisible())) throw new StepFailed(`${text("selector")} is not visible`);
      return;
    case "assert_url": {
      const url = page.url();
      if (step.exact ? url !== text("url") : !url.includes(text("url"))) throw new StepFailed(`The URL is ${url}, expected ${step.exact ? "" : "to contain "}${text("url")}`);
      return;
    }
    case "assert_title": {
      const title = await page.title();
      if (step.exact ? title !== text("title") : !title.includes(text("title"))) throw new StepFailed(`The title is "${title}", expected ${step.exact ? "" : "to contain "}"${text("title")}"`);
      return;
    }
    case "accessibility": {
      const standard = (step.standard as keyof typeof standardTags) ?? "WCAG2.1-AA";
      const results = await new AxeBuilder({ page, axeSource }).withTags(standardTags[standard]).analyze();
      const found = results.violations.map((violation) => findingOf(violation, page.url()));
      findings.push(...found);
      const threshold = severities.indexOf((step.fail_on as Severity) ?? "high");
      const failing = found.filter((f) => severities.indexOf(f.severity) <= threshold);
      if (failing.length) throw new StepFailed(`${failing.length} accessibility violation(s) at or above ${step.fail_on ?? "high"}: ${failing.map((f) => f.rule).join(", ")}`);
      return;
    }
  }
}
