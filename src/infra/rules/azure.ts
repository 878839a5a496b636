/** Azure rules, each with Checkov's id and tfsec's, judged as Checkov judges them. */
import { ANY, mustBe, rulesOf, type Rule } from "./rule.ts";

const rule = rulesOf("azure");
const appServices = ["azurerm_app_service", "azurerm_linux_web_app", "azurerm_windows_web_app"];

export const azureRules: Rule[] = [
  rule("CKV_AZURE_3", "azure-storage-enforce-https", "high", "encryption", ["azurerm_storage_account"], "Storage account accepts plain HTTP", "Leave enable_https_traffic_only at true.", mustBe("enable_https_traffic_only", [true], "passed")),
  rule("CKV_AZURE_190", "azure-storage-no-public-access", "high", "network", ["azurerm_storage_account"], "Storage account lets blobs be public", "Set allow_nested_items_to_be_public = false.", mustBe("allow_nested_items_to_be_public", [false])),
  rule("CKV_AZURE_109", "azure-keyvault-specify-network-acl", "medium", "network", ["azurerm_key_vault"], "Key vault network access is not denied by default", 'Add network_acls { default_action = "Deny" } with the networks that need access.', mustBe("network_acls.0.default_action", ["Deny"])),
  rule("CKV_AZURE_28", "azure-database-enforce-ssl", "high", "encryption", ["azurerm_mysql_server"], "MySQL server does not enforce SSL", "Set ssl_enforcement_enabled = true.", mustBe("ssl_enforcement_enabled", [true])),
  rule("CKV_AZURE_29", "azure-database-enforce-ssl", "high", "encryption", ["azurerm_postgresql_server"], "PostgreSQL server does not enforce SSL", "Set ssl_enforcement_enabled = true.", mustBe("ssl_enforcement_enabled", [true])),
  rule("CKV_AZURE_40", "azure-keyvault-ensure-key-expiry", "medium", "encryption", ["azurerm_key_vault_key"], "Key vault key has no expiration date", "Set expiration_date.", mustBe("expiration_date", ANY)),
  rule("CKV_AZURE_41", "azure-keyvault-ensure-secret-expiry", "medium", "encryption", ["azurerm_key_vault_secret"], "Key vault secret has no expiration date", "Set expiration_date.", mustBe("expiration_date", ANY)),
  rule("CKV_AZURE_114", "azure-keyvault-content-type-for-secret", "low", "general", ["azurerm_key_vault_secret"], "Key vault secret has no content type", "Set content_type.", mustBe("content_type", ANY)),
  rule("CKV_AZURE_14", "azure-appservice-enforce-https", "high", "encryption", appServices, "App service accepts plain HTTP", "Set https_only = true.", mustBe("https_only", [true])),
  rule("CKV_AZURE_18", "azure-appservice-enable-http2", "low", "general", appServices, "App service does not use HTTP/2", "Set site_config { http2_enabled = true }.", mustBe("site_config.0.http2_enabled", [true])),
  rule("CKV_AZURE_16", "azure-appservice-account-identity-registered", "low", "identity", appServices, "App service has no managed identity", "Add an identity block.", mustBe("identity", ANY)),
  rule("CKV_AZURE_7", "azure-container-configured-network-policy", "medium", "network", ["azurerm_kubernetes_cluster"], "AKS cluster has no network policy", 'Set network_profile { network_policy = "azure" } (or "calico").', mustBe("network_profile.0.network_policy", ANY)),
  rule("CKV_AZURE_6", "azure-container-limit-authorized-ips", "high", "network", ["azurerm_kubernetes_cluster"], "AKS API server is open to every address", "Set api_server_access_profile { authorized_ip_ranges = [...] }.", mustBe("api_server_access_profile.0.authorized_ip_ranges.0", ANY)),
];
