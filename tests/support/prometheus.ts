/**
 * The Prometheus text exposition read by Prometheus' own Python client (prometheus_client's parser, installed by
 * the tool script), so a test checks /metrics as a scraper reads it. Families with their samples, as JSON.
 */
import { requireTool } from "./tools.ts";

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}
export interface MetricFamily {
  name: string;
  type: string;
  samples: Sample[];
}

const reader = `
import json, sys
from prometheus_client.parser import text_string_to_metric_families
families = [{"name": f.name, "type": f.type, "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in f.samples]}
            for f in text_string_to_metric_families(sys.stdin.read())]
print(json.dumps(families))
`;

export async function parsePrometheus(text: string): Promise<MetricFamily[]> {
  const child = Bun.spawn([requireTool("prometheus-python"), "-c", reader], { stdin: new TextEncoder().encode(text), stdout: "pipe", stderr: "pipe" });
  const [code, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`the Prometheus parser refused the exposition: ${err.trim().split("\n").at(-1)}`);
  return JSON.parse(out);
}
