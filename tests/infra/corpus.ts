/** The scanner's corpus, and Checkov's verdicts on it, keyed `<configuration> <resource address> <check id>`. */
import { join } from "node:path";

export const corpus = join(import.meta.dir, "fixtures/corpus");

export async function checkovVerdicts(checkov: string, dir: string, checks: string[]): Promise<Map<string, "passed" | "failed" | "skipped">> {
  const child = Bun.spawn(
    [checkov, "-d", dir, "--framework", "terraform", "-o", "json", "--compact", "--skip-download", "--download-external-modules", "false", "--check", checks.join(",")],
    { stdout: "pipe", stderr: "pipe", env: { ...process.env, LOG_LEVEL: "ERROR" } },
  );
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  // Checkov exits 1 when a check failed; anything else is a fault.
  if (code !== 0 && code !== 1) throw new Error(`checkov exited with ${code}: ${err.slice(-2000)}`);
  const reports = [JSON.parse(out)].flat() as { check_type: string; results: Record<string, CheckovResult[]> }[];
  const verdicts = new Map<string, "passed" | "failed" | "skipped">();
  for (const report of reports.filter((r) => r.check_type === "terraform"))
    for (const [list, verdict] of [["passed_checks", "passed"], ["failed_checks", "failed"], ["skipped_checks", "skipped"]] as const)
      for (const result of report.results[list] ?? []) verdicts.set(`${result.file_path.split("/")[1]} ${result.resource} ${result.check_id}`, verdict);
  return verdicts;
}

interface CheckovResult {
  check_id: string;
  resource: string;
  file_path: string;
}
