/** Google Cloud rules, each with Checkov's id and tfsec's, judged as Checkov judges them. */
import { ANY, mustBe, mustNotBe, rulesOf, type Rule } from "./rule.ts";

const rule = rulesOf("google");
const instances = ["google_compute_instance", "google_compute_instance_template", "google_compute_instance_from_template"];

export const gcpRules: Rule[] = [
  rule("CKV_GCP_29", "google-storage-enable-ubla", "medium", "identity", ["google_storage_bucket"], "Bucket does not use uniform bucket-level access", "Set uniform_bucket_level_access = true.", mustBe("uniform_bucket_level_access", [true])),
  rule("CKV_GCP_14", "google-sql-enable-backup", "medium", "resilience", ["google_sql_database_instance"], "Cloud SQL instance has no automated backups", "Set settings { backup_configuration { enabled = true } }.", mustBe("settings.0.backup_configuration.0.enabled", [true])),
  rule("CKV_GCP_12", "google-gke-enable-network-policy", "medium", "network", ["google_container_cluster"], "GKE cluster has no network policy", "Add network_policy { enabled = true }.", mustBe("network_policy.0.enabled", [true])),
  rule("CKV_GCP_1", "google-gke-enable-stackdriver-logging", "low", "logging", ["google_container_cluster"], "GKE cluster logging is off", 'Do not set logging_service = "none".', mustNotBe("logging_service", ["none"])),
  rule("CKV_GCP_8", "google-gke-enable-stackdriver-monitoring", "low", "logging", ["google_container_cluster"], "GKE cluster monitoring is off", 'Do not set monitoring_service = "none".', mustNotBe("monitoring_service", ["none"])),
  rule("CKV_GCP_13", "google-gke-no-legacy-authentication", "high", "identity", ["google_container_cluster"], "GKE cluster issues client certificates", "Set master_auth { client_certificate_config { issue_client_certificate = false } }.", mustBe("master_auth.0.client_certificate_config.0.issue_client_certificate", [false])),
  rule("CKV_GCP_9", "google-gke-enable-auto-repair", "low", "resilience", ["google_container_node_pool"], "GKE node pool does not repair nodes automatically", "Set management { auto_repair = true }.", mustBe("management.0.auto_repair", [true])),
  rule("CKV_GCP_10", "google-gke-enable-auto-upgrade", "low", "resilience", ["google_container_node_pool"], "GKE node pool does not upgrade nodes automatically", "Set management { auto_upgrade = true }.", mustBe("management.0.auto_upgrade", [true])),
  rule("CKV_GCP_25", "google-gke-enable-private-cluster", "medium", "network", ["google_container_cluster"], "GKE cluster is not private", "Add a private_cluster_config block.", mustBe("private_cluster_config", ANY)),
  rule("CKV_GCP_23", "google-gke-enable-ip-aliasing", "low", "network", ["google_container_cluster"], "GKE cluster does not use alias IPs", "Add an ip_allocation_policy block.", mustBe("ip_allocation_policy", ANY)),
  rule("CKV_GCP_36", "google-compute-no-ip-forwarding", "medium", "network", instances, "Instance forwards IP packets", "Set can_ip_forward = false.", mustNotBe("can_ip_forward", [true])),
  rule("CKV_GCP_40", "google-compute-no-public-ip", "high", "network", instances, "Instance has a public IP address", "Remove the access_config block from network_interface.", mustNotBe("network_interface.0.access_config", ANY)),
  rule("CKV_GCP_35", "google-compute-no-serial-port", "medium", "network", instances, "Instance allows serial port access", 'Do not set metadata "serial-port-enable" to true.', mustNotBe("metadata.serial-port-enable", [true])),
  rule("CKV_GCP_37", "google-compute-disk-encryption-customer-key", "low", "encryption", ["google_compute_disk"], "Disk is not encrypted with a customer key", "Add a disk_encryption_key block.", mustBe("disk_encryption_key", ANY)),
  rule("CKV_GCP_26", "google-compute-enable-vpc-flow-logs", "low", "logging", ["google_compute_subnetwork"], "Subnetwork has no flow logs", "Add a log_config block.", mustBe("log_config", ANY)),
];
