/**
 * infra_recommendations: what to improve, by focus. Security comes from the scanner's findings; cost,
 * reliability, performance and maintainability from what the configuration says about sizes, volumes,
 * backups, redundancy, tags, versions and documentation.
 */
import { analyzeConfiguration } from "./analyze.ts";
import type { Configuration, ResourceInstance } from "./configuration.ts";
import { InfraError } from "./errors.ts";
import { focuses, type Focus } from "./model.ts";
import { scan } from "./scanner.ts";
import type { Recommendation } from "./views.ts";

export function checkFocus(focus: string): Focus {
  if ((focuses as readonly string[]).includes(focus)) return focus as Focus;
  throw new InfraError("INVALID_ARGUMENT", `unknown focus ${JSON.stringify(focus)}; allowed: ${focuses.join(", ")}`);
}

const at = (r: ResourceInstance, attribute?: string) => ({ resource: r.instance, file: r.file, line: (attribute && r.lines[attribute]) || r.line });
const str = (v: unknown) => (typeof v === "string" ? v : "");

const byFocus: Record<Exclude<Focus, "security" | "maintainability">, (r: ResourceInstance) => Recommendation[]> = {
  cost(r) {
    const out: Recommendation[] = [];
    const size = str(r.conf.instance_type ?? r.conf.instance_class ?? r.conf.node_type ?? r.conf.machine_type);
    if (/\.(8|12|16|18|24|32|48)xlarge$|-(32|48|64|96)$/.test(size))
      out.push({ priority: "medium", title: `large size ${size}`, detail: "Check utilisation and right-size, or buy reserved/committed capacity.", ...at(r, "instance_type") });
    if (r.type === "aws_ebs_volume" && (r.conf.type === undefined || r.conf.type === "gp2"))
      out.push({ priority: "low", title: "gp2 volume", detail: "gp3 costs about 20% less for the same baseline and decouples IOPS from size.", ...at(r, "type") });
    if (r.type === "aws_nat_gateway") out.push({ priority: "low", title: "NAT gateway", detail: "Each NAT gateway bills per hour and per GB; share one per AZ, and use VPC endpoints for S3/DynamoDB.", ...at(r) });
    if (r.type === "aws_cloudwatch_log_group" && r.conf.retention_in_days === undefined)
      out.push({ priority: "medium", title: "logs kept forever", detail: "Set retention_in_days so logs stop accruing storage.", ...at(r) });
    if (r.mode === "managed" && /^(aws|azurerm|google)_/.test(r.type) && "tags" in r.conf === false && "labels" in r.conf === false && taggable(r.type))
      out.push({ priority: "low", title: "no cost-allocation tags", detail: "Tag resources (project, environment, owner) so spend can be attributed.", ...at(r) });
    return out;
  },
  reliability(r) {
    const out: Recommendation[] = [];
    if (r.type === "aws_db_instance") {
      if (r.conf.multi_az !== true) out.push({ priority: "high", title: "single-AZ database", detail: "Set multi_az = true for production databases.", ...at(r, "multi_az") });
      if (r.conf.backup_retention_period === undefined || r.conf.backup_retention_period === 0)
        out.push({ priority: "high", title: "no automated backups", detail: "Set backup_retention_period to 7 days or more.", ...at(r, "backup_retention_period") });
      if (r.conf.deletion_protection !== true) out.push({ priority: "medium", title: "no deletion protection", detail: "Set deletion_protection = true.", ...at(r) });
    }
    if (r.type === "aws_dynamodb_table" && (r.conf.point_in_time_recovery as { enabled?: unknown }[] | undefined)?.[0]?.enabled !== true)
      out.push({ priority: "medium", title: "no point-in-time recovery", detail: "Add point_in_time_recovery { enabled = true }.", ...at(r) });
    if (r.type === "aws_autoscaling_group" && Number(r.conf.min_size ?? 0) < 2)
      out.push({ priority: "medium", title: "one instance can take the service down", detail: "Run at least two instances across availability zones (min_size >= 2).", ...at(r, "min_size") });
    if (r.type === "aws_s3_bucket" && !("versioning" in r.conf))
      out.push({ priority: "low", title: "no versioning", detail: "Enable versioning (aws_s3_bucket_versioning) to recover overwritten or deleted objects.", ...at(r) });
    return out;
  },
  performance(r) {
    const out: Recommendation[] = [];
    const size = str(r.conf.instance_type ?? r.conf.instance_class);
    if (/^(db\.)?(t2|m3|m4|c3|c4|r3|r4)\./.test(size))
      out.push({ priority: "medium", title: `previous-generation ${size}`, detail: "Current generations (t3/m6i/c6i/r6i, or Graviton) are faster and cheaper.", ...at(r) });
    if (r.type === "aws_ebs_volume" && (r.conf.type === undefined || r.conf.type === "gp2"))
      out.push({ priority: "low", title: "gp2 volume", detail: "gp3 gives 3000 IOPS and 125 MB/s at any size.", ...at(r, "type") });
    if (r.type === "aws_lambda_function" && Number(r.conf.memory_size ?? 128) <= 128)
      out.push({ priority: "low", title: "128 MB Lambda", detail: "CPU scales with memory; more memory often finishes faster for the same cost.", ...at(r, "memory_size") });
    if (r.type === "aws_instance" && r.conf.ebs_optimized !== true)
      out.push({ priority: "low", title: "not EBS-optimized", detail: "Set ebs_optimized = true where the type supports it.", ...at(r) });
    return out;
  },
};

const taggable = (type: string) => !/(_policy|_attachment|_rule|_association|_document|_acl|_block|_configuration|_version|_membership)$/.test(type);

export function recommend(config: Configuration, focus: Focus): Recommendation[] {
  if (focus === "security")
    return scan(config, "low").findings.map((f) => ({
      priority: f.severity === "low" ? "low" : f.severity === "medium" ? "medium" : "high",
      title: `${f.rule_id}: ${f.title}`,
      detail: f.remediation,
      resource: f.resource,
      file: f.file,
      line: f.line,
    }));
  if (focus === "maintainability")
    return analyzeConfiguration(config).issues.map((i) => ({
      priority: i.severity === "low" ? "low" : i.severity === "medium" ? "medium" : "high",
      title: i.message,
      detail: i.category === "secrets" ? "Move the value into a sensitive variable or a secret store." : "Small fixes that make the configuration easier to review and reuse.",
      file: i.file,
      line: i.line,
    }));
  return config.resources.filter((r) => r.mode === "managed").flatMap(byFocus[focus]);
}
