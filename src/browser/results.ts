/**
 * Finished test runs: a runner's outcome becomes a TestResult (id, timing, status, screenshot and report links),
 * is stored, and its screenshots are written beside the other artifacts. Reports are rendered from what is stored.
 */
import { randomUUID } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Db } from "../db/client.ts";
import { BrowserServiceError } from "./errors.ts";
import type { Finding, TestKind, TestResult } from "./model.ts";
import * as repo from "./repo.ts";
import type { RunOutcome } from "./runners/outcome.ts";

export const newResultId = () => `run_${randomUUID()}`;

/** success: nothing found; warning: findings, none critical or high; error: a critical or high finding, or a failed step. */
export function statusOf(findings: Finding[], failedSteps = 0): TestResult["status"] {
  if (failedSteps || findings.some((f) => f.severity === "critical" || f.severity === "high")) return "error";
  return findings.some((f) => f.severity !== "info") ? "warning" : "success";
}

export const reportLinks = (id: string) => ({
  json: `/results/${id}/report.json`,
  junit: `/results/${id}/report.xml`,
  sarif: `/results/${id}/report.sarif`,
  html: `/results/${id}/report.html`,
});

export class Results {
  constructor(
    private readonly db: Db,
    private readonly dir: string,
  ) {}

  async save(id: string, test: TestKind, startedAt: Date, outcome: RunOutcome): Promise<TestResult> {
    const screenshots = [];
    if (outcome.screenshots.length) mkdirSync(join(this.dir, id), { recursive: true });
    for (const shot of outcome.screenshots) {
      await Bun.write(join(this.dir, id, `${shot.name}.png`), shot.bytes);
      screenshots.push({ name: shot.name, file: `/results/${id}/screenshots/${shot.name}`, url: shot.url, viewport: shot.viewport, width: shot.width, height: shot.height });
    }
    const failedSteps = outcome.steps?.filter((step) => step.status === "failed").length ?? 0;
    const result: TestResult = {
      id,
      test,
      status: statusOf(outcome.findings, failedSteps),
      url: outcome.url,
      started_at: startedAt.toISOString(),
      duration: Date.now() - startedAt.getTime(),
      summary: { total_findings: outcome.findings.length, ...outcome.summary },
      findings: outcome.findings,
      screenshots,
      ...(outcome.steps ? { steps: outcome.steps } : {}),
      reports: reportLinks(id),
    };
    await repo.insertResult(this.db, { id, test, url: result.url, status: result.status, result, createdAt: startedAt });
    return result;
  }

  async get(id: string): Promise<TestResult> {
    const row = await repo.findResult(this.db, id);
    if (!row) throw BrowserServiceError.notFound(`No test result ${id}`, { id });
    return row.result as TestResult;
  }

  async list(limit = 100) {
    return (await repo.listResults(this.db, limit)).map((row) => ({ ...row, createdAt: row.createdAt.toISOString() }));
  }

  /** A run's screenshot file (PNG), for download and for the HTML report. */
  screenshot(id: string, name: string) {
    return Bun.file(join(this.dir, id, `${name}.png`));
  }
}
