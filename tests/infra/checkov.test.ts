/**
 * The differential test: real Checkov and our scanner judge the same corpus (44 configurations written for it,
 * with variables, tfvars, locals, count, for_each, dynamic blocks and local modules, some nested), and for every
 * rule we implement, every resource gets the same verdict from both. Checkov runs once over the whole corpus.
 */
import { beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { loadConfiguration } from "../../src/infra/configuration.ts";
import { evaluateRules, rules } from "../../src/infra/scanner.ts";
import { requireTool } from "../support/tools.ts";
import { checkovVerdicts, corpus } from "./corpus.ts";

type Verdict = "passed" | "failed" | "skipped";
let checkov: Map<string, Verdict>;
let ours: Map<string, Verdict>;

beforeAll(async () => {
  checkov = await checkovVerdicts(requireTool("checkov"), corpus, rules.map((r) => r.id));
  ours = new Map();
  for (const name of readdirSync(corpus)) {
    for (const { resource, rule, result, skipped } of evaluateRules(await loadConfiguration(join(corpus, name)))) {
      if (result === "unknown") continue;
      // Checkov names a data source without its `data.` prefix.
      const address = resource.instance.replace(/(^|\.)data\./, "$1");
      // Checkov reads its own skip comments, not tfsec's.
      ours.set(`${name} ${address} ${rule.id}`, skipped?.startsWith("checkov:") && result === "failed" ? "skipped" : result);
    }
  }
}, 120_000);

test("the corpus is at least 40 configurations and exercises every rule both ways", () => {
  expect(readdirSync(corpus).length).toBeGreaterThanOrEqual(40);
  const seen = (result: string) => new Set([...checkov].filter(([, r]) => r === result).map(([key]) => key.split(" ")[2]));
  const neverFailed = rules.filter((r) => !seen("failed").has(r.id)).map((r) => r.id);
  const neverPassed = rules.filter((r) => !seen("passed").has(r.id)).map((r) => r.id);
  expect({ neverFailed, neverPassed }).toEqual({ neverFailed: [], neverPassed: [] });
});

test("every resource gets Checkov's verdict for every rule we implement", () => {
  const disagreements = [...checkov]
    .filter(([key, verdict]) => ours.get(key) !== verdict)
    .map(([key, verdict]) => `${key}: checkov ${verdict}, ours ${ours.get(key) ?? "undecided"}`);
  expect(disagreements).toEqual([]);
  expect(checkov.size).toBeGreaterThan(150);
});

test("we decide only where Checkov decides, save comparisons it leaves unevaluated", () => {
  // Checkov leaves `==` comparisons and conditionals on variables unevaluated, so it gives no verdict; ours
  // evaluates them. These are the only verdicts it lacks.
  const extra = [...ours.keys()].filter((key) => !checkov.has(key)).sort();
  expect(extra).toEqual([
    "conditionals aws_dynamodb_table.orders CKV_AWS_28",
    "conditionals aws_ecr_repository.app CKV_AWS_51",
    "conditionals aws_kms_key.app CKV_AWS_7",
    "nested-modules module.platform.aws_kms_key.platform CKV_AWS_7",
    "nested-modules module.platform.module.storage.aws_efs_file_system.shared CKV_AWS_42",
    "s3-module module.backups.aws_s3_bucket_public_access_block.this CKV_AWS_53",
    "s3-module module.backups.aws_s3_bucket_public_access_block.this CKV_AWS_56",
    "s3-module module.logs.aws_s3_bucket_public_access_block.this CKV_AWS_53",
    "s3-module module.logs.aws_s3_bucket_public_access_block.this CKV_AWS_56",
  ]);
});
