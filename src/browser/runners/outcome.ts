/** What a runner hands back to the service, which adds the id, timing, status and report links. */
import type { Finding } from "../model.ts";

export interface RunnerScreenshot {
  name: string;
  bytes: Uint8Array;
  url: string;
  viewport?: string;
  width?: number;
  height?: number;
}

export interface RunOutcome {
  url: string;
  findings: Finding[];
  summary: Record<string, unknown>;
  screenshots: RunnerScreenshot[];
  steps?: import("../model.ts").StepResult[];
}

/** Counts of findings by severity, for summaries. */
export function bySeverity(findings: Finding[]): Record<string, number> {
  const counts: Record<string, number> = { critical: 0, high: 0, medium: 0, low: 0, info: 0 };
  for (const finding of findings) counts[finding.severity] = (counts[finding.severity] ?? 0) + 1;
  return counts;
}

/** Stops a run between its steps when the caller cancelled it. */
export function checkCancelled(signal: AbortSignal): void {
  if (signal.aborted) throw new Error("cancelled");
}
