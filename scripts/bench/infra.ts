/**
 * `bun scripts/bench/infra.ts`: the infra server's three speed goals, side by side in one run.
 * 1. Security scan of the differential corpus against real Checkov (goal: at least 20x faster, same verdicts):
 *    infra_security_scan on a server just started, as an assistant calls it, against Checkov's CLI; the scanner
 *    as a fresh process and warm in process are shown beside it.
 * 2. infra_analyze of a generated 1,000-file workspace (goal: under 2 s).
 * 3. The `infra` tool's plan against running tofu plan directly with the same arguments (goal: under 5% overhead),
 *    with the time the tool spends outside the tofu process.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { automationEnv } from "../../src/infra/binary.ts";
import { infraCapability, type InfraCapability } from "../../src/infra/capability.ts";
import { loadConfiguration } from "../../src/infra/configuration.ts";
import { evaluateRules, rules } from "../../src/infra/scanner.ts";
import { createLogger } from "../../src/log.ts";
import { startRuntime } from "../../src/runtime.ts";
import { findTool } from "../../src/toolchain.ts";
import { checkovVerdicts, corpus } from "../../tests/infra/corpus.ts";
import { inTurns, median, printTable, root } from "./support.ts";

const need = (name: string) => findTool(name) ?? (console.error(`${name} is not installed: run bun run tools`), process.exit(1));
const checkov = need("checkov");
const tofu = need("tofu");
const dir = mkdtempSync(join(tmpdir(), "platform-bench-infra-"));
const workspace = join(dir, "workspace");
const ms = (n: number) => `${n < 10 ? n.toFixed(2) : Math.round(n)} ms`;
const configurations = readdirSync(corpus).sort();

// --- the workspaces: the corpus, 1,000 generated files, a plan of 200 resources ---
cpSync(corpus, join(workspace, "corpus"), { recursive: true });
const big = join(workspace, "big");
const file = (i: number) =>
  `variable "name_${i}" {\n  description = "Name ${i}."\n  type        = string\n  default     = "app-${i}"\n}\n\n` +
  `locals {\n  tags_${i} = { index = ${i}, name = var.name_${i} }\n}\n\n` +
  `resource "aws_s3_bucket" "b${i}" {\n  bucket = "\${var.name_${i}}-data"\n  tags   = local.tags_${i}\n}\n\n` +
  `resource "aws_security_group" "sg${i}" {\n  name = "sg-${i}"\n\n  ingress {\n    from_port   = 443\n    to_port     = 443\n    protocol    = "tcp"\n    cidr_blocks = ["10.0.0.0/8"]\n  }\n}\n\n` +
  `output "bucket_${i}" {\n  description = "Bucket ${i}."\n  value       = aws_s3_bucket.b${i}.id\n}\n`;
mkdirSync(big, { recursive: true });
for (let i = 0; i < 200; i++) writeFileSync(join(big, `root_${i}.tf`), file(i));
for (let m = 0; m < 8; m++) {
  mkdirSync(join(big, `modules/m${m}`), { recursive: true });
  for (let i = 0; i < 100; i++) writeFileSync(join(big, `modules/m${m}/f_${i}.tf`), file(1000 + m * 100 + i));
  writeFileSync(join(big, `calls_${m}.tf`), `module "m${m}" {\n  source = "./modules/m${m}"\n}\n`);
}
const fileCount = readdirSync(big, { recursive: true }).filter((f) => String(f).endsWith(".tf")).length;
const planDir = join(workspace, "plan");
mkdirSync(planDir, { recursive: true });
writeFileSync(
  join(planDir, "main.tf"),
  `variable "size" {\n  type    = number\n  default = 200\n}\n\nlocals {\n  names = [for i in range(var.size) : "item-\${i}"]\n}\n\n` +
    `resource "terraform_data" "item" {\n  count = var.size\n  input = { name = local.names[count.index], index = count.index }\n}\n\n` +
    `output "count" {\n  value = length(terraform_data.item)\n}\n`,
);

const runtime = await startRuntime(
  loadConfig({ env: { PLATFORM_DATA_DIR: join(dir, "data"), PLATFORM_INFRA__WORKSPACE_ROOT: workspace, PLATFORM_INFRA__BINARY: tofu } }),
  createLogger({ level: "error", write: () => {} }),
  [infraCapability],
);
const { infra } = runtime.capabilities.find((c) => c.name === "infra") as InfraCapability;
const tools = runtime.mcp.get("infra")!.tools;
const context = { signal: new AbortController().signal, progress: async () => {} };
const timed = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};
const call = async (name: string, args: Record<string, unknown>) => {
  const result = await tools.get(name)!.handler(args, context);
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return result.structuredContent as Record<string, unknown>;
};

// --- 1. the scan against Checkov ---
// First on the server just started (the parser loads with it), then warm.
const scanCorpus = () => timed(async () => {
  for (const name of configurations) await call("infra_security_scan", { path: `corpus/${name}`, severity: "low", format: "json" });
});
const toolScanFirst = await scanCorpus();
const toolScanTimes: number[] = [];
for (let i = 0; i < 10; i++) toolScanTimes.push(await scanCorpus());

const ids = rules.map((r) => r.id);
async function ourVerdicts() {
  const verdicts = new Map<string, string>();
  for (const name of configurations)
    for (const { resource, rule, result, skipped } of evaluateRules(await loadConfiguration(join(corpus, name))))
      if (result !== "unknown") verdicts.set(`${name} ${resource.instance.replace(/(^|\.)data\./, "$1")} ${rule.id}`, skipped?.startsWith("checkov:") && result === "failed" ? "skipped" : result);
  return verdicts;
}
// The scanner as a fresh process too: Bun's start, the parser's wasm, the scan of every configuration.
const coldScript = join(dir, "scan.ts");
writeFileSync(
  coldScript,
  `import { loadConfiguration } from ${JSON.stringify(join(root, "src/infra/configuration.ts"))};\n` +
    `import { evaluateRules } from ${JSON.stringify(join(root, "src/infra/scanner.ts"))};\n` +
    `let n = 0;\nfor (const name of ${JSON.stringify(configurations)}) n += evaluateRules(await loadConfiguration(${JSON.stringify(corpus)} + "/" + name)).length;\nconsole.log(n);\n`,
);
const processTime = (command: string[]) => timed(() => Bun.spawn(command, { stdout: "ignore", stderr: "ignore" }).exited);
const checkovArgs = [checkov, "-d", corpus, "--framework", "terraform", "-o", "json", "--compact", "--skip-download", "--download-external-modules", "false", "--check", ids.join(",")];
const [checkovTimes = [], coldTimes = []] = await inTurns(3, [() => processTime(checkovArgs), () => processTime(["bun", coldScript])]);
const warmTimes: number[] = [];
for (let i = 0; i < 10; i++) warmTimes.push(await timed(ourVerdicts));
const theirs = await checkovVerdicts(checkov, corpus, ids);
const ours = await ourVerdicts();
const differing = [...theirs].filter(([key, verdict]) => ours.get(key) !== verdict).length;

// --- 2. infra_analyze of 1,000 files ---
const analyzeFirst = await timed(() => call("infra_analyze", { path: "big" }));
const analyzeTimes: number[] = [];
for (let i = 0; i < 5; i++) analyzeTimes.push(await timed(() => call("infra_analyze", { path: "big" })));
const analyzeWorst = Math.max(analyzeFirst, median(analyzeTimes));

// --- 3. plan through the infra tool against tofu directly ---
await infra.run({ path: "plan", action: "init" } as never);
const planFile = join(dir, "direct.tfplan");
const direct = () =>
  timed(async () => {
    const child = Bun.spawn([tofu, "plan", "-input=false", "-no-color", "-json", `-out=${planFile}`], { cwd: planDir, env: automationEnv(), stdout: "pipe", stderr: "pipe" });
    await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  });
const outside: number[] = [];
const viaTool = async () => {
  const started = performance.now();
  const result = await infra.run({ path: "plan", action: "plan" } as never);
  const total = performance.now() - started;
  outside.push(total - result.duration_ms);
  return total;
};
await direct();
await viaTool();
outside.length = 0;
const [directTimes = [], toolTimes = []] = await inTurns(41, [direct, viaTool]);
const overhead = median(toolTimes) / median(directTimes) - 1;
await runtime.close();
rmSync(dir, { recursive: true, force: true });

// --- the table ---
const toolRatio = median(checkovTimes) / toolScanFirst;
printTable([
  ["measure", "ours", "reference", "ratio", "goal", "met"],
  [
    `infra_security_scan, ${configurations.length} configurations, ${rules.length} rules (first on a new server / warm)`,
    `${ms(toolScanFirst)} / ${ms(median(toolScanTimes))}`,
    `Checkov ${ms(median(checkovTimes))}`,
    `${toolRatio.toFixed(0)}x faster`,
    ">= 20x, same verdicts",
    toolRatio >= 20 && differing === 0 ? "yes" : "no",
  ],
  ["scanner as a fresh process (Bun start, parser load), like Checkov's CLI", ms(median(coldTimes)), `Checkov ${ms(median(checkovTimes))}`, `${(median(checkovTimes) / median(coldTimes)).toFixed(1)}x faster`, "", ""],
  ["scanner in process, warm", ms(median(warmTimes)), `Checkov ${ms(median(checkovTimes))}`, `${(median(checkovTimes) / median(warmTimes)).toFixed(0)}x faster`, "", ""],
  ["verdicts differing from Checkov's", String(differing), `${theirs.size} verdicts`, "", "0", differing === 0 ? "yes" : "no"],
  [`infra_analyze, ${fileCount} files (first / warm median)`, `${ms(analyzeFirst)} / ${ms(median(analyzeTimes))}`, "2000 ms", `${(analyzeWorst / 2000).toFixed(2)} of budget`, "< 2 s", analyzeWorst < 2000 ? "yes" : "no"],
  ["infra plan vs tofu plan, 200 resources, 41 rounds in turns (medians)", ms(median(toolTimes)), `tofu ${ms(median(directTimes))}`, `${(overhead * 100).toFixed(1)}% overhead`, "< 5%", overhead < 0.05 ? "yes" : "no"],
  ["  of which outside the tofu process (median)", ms(median(outside)), "", `${((median(outside) / median(directTimes)) * 100).toFixed(1)}% of a plan`, "", ""],
]);
