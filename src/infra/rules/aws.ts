/** AWS rules, each with Checkov's id and tfsec's, judged as Checkov judges them. */
import type { ResourceInstance } from "../configuration.ts";
import { isUnknown, type Value } from "../evaluate.ts";
import { ANY, mustBe, mustNotBe, rulesOf, valueAt, type Rule, type Verdict } from "./rule.ts";

const rule = rulesOf("aws");

const list = (value: Value | undefined): Value[] => (value === undefined || value === null ? [] : Array.isArray(value) ? value : [value]);
const int = (value: Value | undefined): number | undefined => {
  const n = typeof value === "number" ? value : typeof value === "string" && /^-?\d+$/.test(value.trim()) ? Number(value) : undefined;
  return n === undefined || Number.isNaN(n) ? undefined : Math.trunc(n);
};

/** Does an ingress rule (a block of a security group, or a rule resource) open `port` to the whole internet? */
function opensToWorld(rule: Record<string, Value>, port: number): boolean {
  const from = int(rule.from_port);
  let to = int(rule.to_port);
  if (from === 0 && to === 0) to = 65535;
  if (list(rule.prefix_list_ids).length) return false;
  const inRange = from !== undefined && to !== undefined && from <= port && port <= to;
  if (!inRange && !(rule.protocol === "-1" && from === 0 && to === 65535)) return false;
  const cidrs = list(list(rule.cidr_blocks).length ? rule.cidr_blocks : rule.cidr_ipv4);
  if (cidrs.includes("0.0.0.0/0")) return true;
  const ipv6 = list(list(rule.ipv6_cidr_blocks).length ? rule.ipv6_cidr_blocks : rule.cidr_ipv6);
  if (ipv6.some((ip) => ip === "::/0" || ip === "0000:0000:0000:0000:0000:0000:0000:0000/0")) return true;
  return !ipv6.length && !cidrs.length && rule.security_groups === undefined && rule.source_security_group_id === undefined;
}

const truthy = (value: Value | undefined) => value !== undefined && value !== null && value !== false && value !== 0 && value !== "";
const selfRule = (rule: Record<string, Value>) => rule.self === true;

const noPublicIngress = (port: number) => (resource: ResourceInstance): Verdict => {
  const { conf } = resource;
  if (Array.isArray(conf.ingress)) {
    for (const rule of conf.ingress) {
      if (!rule || typeof rule !== "object" || Array.isArray(rule) || isUnknown(rule)) continue;
      if (selfRule(rule)) return { result: "passed", attribute: "ingress" };
      if (opensToWorld(rule, port)) return { result: "failed", attribute: "ingress" };
    }
    return { result: "passed", attribute: "ingress" };
  }
  if (resource.type === "aws_security_group_rule") {
    if (conf.type !== "ingress") return { result: "unknown" };
    if (selfRule(conf)) return { result: "passed" };
    return { result: opensToWorld(conf, port) ? "failed" : "passed", attribute: "cidr_blocks" };
  }
  if (resource.type === "aws_vpc_security_group_ingress_rule" && ("from_port" in conf || "to_port" in conf))
    return { result: opensToWorld(conf, port) ? "failed" : "passed", attribute: "cidr_ipv4" };
  return { result: "passed" };
};

const securityGroups = ["aws_security_group", "aws_security_group_rule", "aws_vpc_security_group_ingress_rule"];
const publicAcls = ["public-read", "public-read-write", "website", "authenticated-read"];
const allUsers = "http://acs.amazonaws.com/groups/global/AllUsers";
const sseAlgorithms = ["aws:kms", "AES256"];

export const awsRules: Rule[] = [
  {
    id: "CKV_AWS_20",
    tfsec: "aws-s3-no-public-access-with-acl",
    provider: "aws",
    severity: "high",
    category: "general",
    title: "S3 bucket ACL allows public read access",
    remediation: "Remove the public canned ACL (public-read, public-read-write, website, authenticated-read) from the bucket and its aws_s3_bucket_acl.",
    resources: ["aws_s3_bucket"],
    check(bucket, context) {
      const acl = bucket.conf.acl;
      const allowed = (value: Value | undefined) => value !== undefined && value !== null && !publicAcls.includes(value as string);
      if (acl !== undefined && acl !== null) return { result: allowed(acl) ? "passed" : "failed", attribute: "acl" };
      const acls = context.referringTo(bucket, ["aws_s3_bucket_acl"]);
      if (!acls.length) return { result: "passed" };
      const safe = acls.some(({ conf }) => {
        if (conf.acl !== undefined && conf.acl !== null) return allowed(conf.acl);
        if (conf.access_control_policy === undefined) return false;
        const grants = list(valueAt(conf, "access_control_policy.0.grant"));
        return !grants.length || grants.every((grant) => valueAt(grant as Record<string, Value>, "grantee.0.uri") !== allUsers);
      });
      return { result: safe ? "passed" : "failed" };
    },
  },
  {
    id: "CKV_AWS_19",
    tfsec: "aws-s3-enable-bucket-encryption",
    provider: "aws",
    severity: "high",
    category: "encryption",
    title: "S3 bucket data is not encrypted at rest with a chosen algorithm",
    remediation: "Configure server-side encryption (AES256 or aws:kms) on the bucket or in an aws_s3_bucket_server_side_encryption_configuration.",
    resources: ["aws_s3_bucket"],
    check(bucket, context) {
      const path = "server_side_encryption_configuration.0.rule.0.apply_server_side_encryption_by_default.0.sse_algorithm";
      const inline = valueAt(bucket.conf, path);
      if (inline !== undefined && sseAlgorithms.includes(inline as string)) return { result: "passed", attribute: "server_side_encryption_configuration" };
      const configs = context.referringTo(bucket, ["aws_s3_bucket_server_side_encryption_configuration"]);
      if (!configs.length) return { result: inline === undefined ? "passed" : "failed", attribute: "server_side_encryption_configuration" };
      const ok = configs.some(({ conf }) => sseAlgorithms.includes(valueAt(conf, "rule.0.apply_server_side_encryption_by_default.0.sse_algorithm") as string));
      return { result: ok ? "passed" : "failed" };
    },
  },
  {
    id: "CKV_AWS_24",
    tfsec: "aws-ec2-no-public-ingress-sgr",
    provider: "aws",
    severity: "critical",
    category: "network",
    title: "Security group allows SSH (port 22) from 0.0.0.0/0",
    remediation: "Limit the ingress rule's cidr_blocks to known networks, or reach instances through a bastion or SSM Session Manager.",
    resources: securityGroups,
    check: noPublicIngress(22),
  },
  {
    id: "CKV_AWS_25",
    tfsec: "aws-ec2-no-public-ingress-sgr",
    provider: "aws",
    severity: "critical",
    category: "network",
    title: "Security group allows RDP (port 3389) from 0.0.0.0/0",
    remediation: "Limit the ingress rule's cidr_blocks to known networks, or reach instances through a VPN or bastion.",
    resources: securityGroups,
    check: noPublicIngress(3389),
  },
  {
    id: "CKV_AWS_1",
    tfsec: "aws-iam-no-policy-wildcards",
    provider: "aws",
    severity: "high",
    category: "identity",
    title: 'IAM policy document allows full "*:*" administrative privileges',
    remediation: "Name the actions and resources the principal needs instead of \"*\" for both.",
    resources: ["data.aws_iam_policy_document"],
    check({ conf }) {
      for (const statement of list(conf.statement)) {
        const stmt = statement as Record<string, Value>;
        const effect = stmt.effect ?? "Allow";
        if (effect === "Allow" && list(stmt.actions).includes("*") && list(stmt.resources).includes("*")) return { result: "failed", attribute: "statement" };
      }
      return { result: "passed", attribute: "statement" };
    },
  },
  rule("CKV_AWS_16", "aws-rds-encrypt-instance-storage-data", "high", "encryption", ["aws_db_instance"], "RDS instance storage is not encrypted", "Set storage_encrypted = true (with a kms_key_id for a customer key).", mustBe("storage_encrypted", [true])),
  rule("CKV_AWS_17", "aws-rds-no-public-db-access", "critical", "network", ["aws_db_instance", "aws_rds_cluster_instance"], "RDS instance is publicly accessible", "Set publicly_accessible = false and reach the database from inside the VPC.", mustNotBe("publicly_accessible", [true])),
  rule("CKV_AWS_3", "aws-ec2-enable-volume-encryption", "high", "encryption", ["aws_ebs_volume"], "EBS volume is not encrypted", "Set encrypted = true.", mustBe("encrypted", [true])),
  rule("CKV_AWS_96", "aws-rds-encrypt-cluster-storage-data", "high", "encryption", ["aws_rds_cluster"], "Aurora cluster storage is not encrypted", "Set storage_encrypted = true.", mustBe("storage_encrypted", [true])),
  rule("CKV_AWS_42", "aws-efs-enable-at-rest-encryption", "high", "encryption", ["aws_efs_file_system"], "EFS file system is not encrypted at rest", "Set encrypted = true.", mustBe("encrypted", [true])),
  rule("CKV_AWS_74", "aws-documentdb-enable-storage-encryption", "high", "encryption", ["aws_docdb_cluster"], "DocumentDB cluster storage is not encrypted", "Set storage_encrypted = true.", mustBe("storage_encrypted", [true])),
  rule("CKV_AWS_44", "aws-neptune-enable-storage-encryption", "high", "encryption", ["aws_neptune_cluster"], "Neptune cluster storage is not encrypted", "Set storage_encrypted = true.", mustBe("storage_encrypted", [true])),
  rule("CKV_AWS_7", "aws-kms-auto-rotate-keys", "medium", "encryption", ["aws_kms_key"], "KMS key rotation is not enabled", "Set enable_key_rotation = true.", mustBe("enable_key_rotation", [true])),
  rule("CKV_AWS_36", "aws-cloudtrail-enable-log-validation", "medium", "logging", ["aws_cloudtrail"], "CloudTrail log file validation is off", "Set enable_log_file_validation = true.", mustBe("enable_log_file_validation", [true])),
  rule("CKV_AWS_67", "aws-cloudtrail-enable-all-regions", "medium", "logging", ["aws_cloudtrail"], "CloudTrail does not cover every region", "Set is_multi_region_trail = true.", mustBe("is_multi_region_trail", [true])),
  rule("CKV_AWS_35", "aws-cloudtrail-encryption-customer-key", "medium", "encryption", ["aws_cloudtrail"], "CloudTrail logs are not encrypted with a customer key", "Set kms_key_id to a KMS key you manage.", mustBe("kms_key_id", ANY)),
  rule("CKV_AWS_51", "aws-ecr-enforce-immutable-repository", "low", "general", ["aws_ecr_repository"], "ECR image tags are mutable", 'Set image_tag_mutability = "IMMUTABLE".', mustBe("image_tag_mutability", ["IMMUTABLE"])),
  rule("CKV_AWS_163", "aws-ecr-enable-image-scans", "medium", "general", ["aws_ecr_repository"], "ECR images are not scanned on push", "Add image_scanning_configuration { scan_on_push = true }.", mustBe("image_scanning_configuration.0.scan_on_push", [true])),
  rule("CKV_AWS_136", "aws-ecr-repository-customer-key", "low", "encryption", ["aws_ecr_repository"], "ECR repository is not encrypted with KMS", 'Add encryption_configuration { encryption_type = "KMS" }.', mustBe("encryption_configuration.0.encryption_type", ["KMS"])),
  rule("CKV_AWS_39", "aws-eks-no-public-cluster-access", "high", "network", ["aws_eks_cluster"], "EKS API endpoint is public", "Set vpc_config { endpoint_public_access = false }.", mustBe("vpc_config.0.endpoint_public_access", [false])),
  rule("CKV_AWS_58", "aws-eks-encrypt-secrets", "high", "encryption", ["aws_eks_cluster"], "EKS secrets are not encrypted with KMS", 'Add encryption_config { resources = ["secrets"] provider { key_arn = ... } }.', mustBe("encryption_config.0.resources", ["secrets"])),
  rule("CKV_AWS_28", "aws-dynamodb-enable-recovery", "medium", "resilience", ["aws_dynamodb_table"], "DynamoDB point-in-time recovery is off", "Add point_in_time_recovery { enabled = true }.", mustBe("point_in_time_recovery.0.enabled", [true, "true"])),
  rule("CKV_AWS_47", "aws-dynamodb-enable-at-rest-encryption", "high", "encryption", ["aws_dax_cluster"], "DAX cluster is not encrypted at rest", "Add server_side_encryption { enabled = true }.", mustBe("server_side_encryption.0.enabled", [true])),
  rule("CKV_AWS_131", "aws-elb-drop-invalid-headers", "high", "network", ["aws_lb", "aws_alb"], "Load balancer does not drop invalid HTTP headers", "Set drop_invalid_header_fields = true.", mustBe("drop_invalid_header_fields", [true])),
  rule("CKV_AWS_158", "aws-cloudwatch-log-group-customer-key", "low", "encryption", ["aws_cloudwatch_log_group"], "CloudWatch log group is not encrypted with a customer key", "Set kms_key_id.", mustBe("kms_key_id", ANY)),
  rule("CKV_AWS_26", "aws-sns-enable-topic-encryption", "high", "encryption", ["aws_sns_topic"], "SNS topic is not encrypted", "Set kms_master_key_id.", mustBe("kms_master_key_id", ANY)),
  rule("CKV_AWS_68", "aws-cloudfront-enable-waf", "high", "network", ["aws_cloudfront_distribution"], "CloudFront distribution has no WAF", "Set web_acl_id to a WAF web ACL.", mustBe("web_acl_id", ANY)),
  rule("CKV_AWS_86", "aws-cloudfront-enable-logging", "medium", "logging", ["aws_cloudfront_distribution"], "CloudFront access logging is off", "Add logging_config { bucket = ... }.", mustBe("logging_config.0.bucket", ANY)),
  rule("CKV_AWS_5", "aws-elastic-search-enable-domain-encryption", "high", "encryption", ["aws_elasticsearch_domain", "aws_opensearch_domain"], "Search domain is not encrypted at rest", "Add encrypt_at_rest { enabled = true }.", mustBe("encrypt_at_rest.0.enabled", [true])),
  rule("CKV_AWS_29", "aws-elasticache-enable-at-rest-encryption", "high", "encryption", ["aws_elasticache_replication_group"], "ElastiCache replication group is not encrypted at rest", "Set at_rest_encryption_enabled = true.", mustBe("at_rest_encryption_enabled", [true])),
  rule("CKV_AWS_30", "aws-elasticache-enable-in-transit-encryption", "high", "encryption", ["aws_elasticache_replication_group"], "ElastiCache replication group is not encrypted in transit", "Set transit_encryption_enabled = true.", mustBe("transit_encryption_enabled", [true])),
  rule("CKV_AWS_43", "aws-kinesis-enable-in-transit-encryption", "high", "encryption", ["aws_kinesis_stream"], "Kinesis stream is not encrypted", 'Set encryption_type = "KMS" with a kms_key_id.', mustBe("encryption_type", ["KMS"])),
  rule("CKV_AWS_53", "aws-s3-block-public-acls", "high", "network", ["aws_s3_bucket_public_access_block"], "S3 public access block does not block public ACLs", "Set block_public_acls = true.", mustBe("block_public_acls", [true])),
  rule("CKV_AWS_54", "aws-s3-block-public-policy", "high", "network", ["aws_s3_bucket_public_access_block"], "S3 public access block does not block public policies", "Set block_public_policy = true.", mustBe("block_public_policy", [true])),
  rule("CKV_AWS_55", "aws-s3-ignore-public-acls", "high", "network", ["aws_s3_bucket_public_access_block"], "S3 public access block does not ignore public ACLs", "Set ignore_public_acls = true.", mustBe("ignore_public_acls", [true])),
  rule("CKV_AWS_56", "aws-s3-no-public-buckets", "high", "network", ["aws_s3_bucket_public_access_block"], "S3 public access block does not restrict public buckets", "Set restrict_public_buckets = true.", mustBe("restrict_public_buckets", [true])),
  rule("CKV_AWS_11", "aws-iam-require-lowercase-in-passwords", "medium", "identity", ["aws_iam_account_password_policy"], "Password policy does not require a lowercase letter", "Set require_lowercase_characters = true.", mustBe("require_lowercase_characters", [true])),
  rule("CKV_AWS_12", "aws-iam-require-numbers-in-passwords", "medium", "identity", ["aws_iam_account_password_policy"], "Password policy does not require a number", "Set require_numbers = true.", mustBe("require_numbers", [true])),
  rule("CKV_AWS_14", "aws-iam-require-symbols-in-passwords", "medium", "identity", ["aws_iam_account_password_policy"], "Password policy does not require a symbol", "Set require_symbols = true.", mustBe("require_symbols", [true])),
  rule("CKV_AWS_15", "aws-iam-require-uppercase-in-passwords", "medium", "identity", ["aws_iam_account_password_policy"], "Password policy does not require an uppercase letter", "Set require_uppercase_characters = true.", mustBe("require_uppercase_characters", [true])),
  rule("CKV_AWS_73", "aws-api-gateway-enable-tracing", "low", "logging", ["aws_api_gateway_stage"], "API Gateway stage has no X-Ray tracing", "Set xray_tracing_enabled = true.", mustBe("xray_tracing_enabled", [true])),
  rule("CKV_AWS_120", "aws-api-gateway-enable-cache", "low", "resilience", ["aws_api_gateway_stage"], "API Gateway stage caching is off", "Set cache_cluster_enabled = true.", mustBe("cache_cluster_enabled", [true])),
  // Only a cache that is on needs encrypting.
  rule("CKV_AWS_308", "aws-api-gateway-enable-cache-encryption", "medium", "encryption", ["aws_api_gateway_method_settings"], "API Gateway cache is not encrypted", "Set settings { cache_data_encrypted = true }.", ({ conf }) => {
    const cached = valueAt(conf, "settings.0.caching_enabled");
    const encrypted = valueAt(conf, "settings.0.cache_data_encrypted");
    return { result: truthy(cached) && !truthy(encrypted) ? "failed" : "passed", attribute: "settings" };
  }),
];
