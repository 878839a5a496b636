/**
 * infra_workspace_setup's starting project: versions.tf (required_version and the provider, pinned), variables.tf,
 * main.tf, outputs.tf and a README, for a cloud provider or for none (built-in resources only, which needs no
 * download). Every variable and output has a description and a type, so the project starts with a full score.
 */
import type { StarterProvider } from "./model.ts";

const providers: Record<Exclude<StarterProvider, "none">, { source: string; version: string; config: string; region: string; resource: string }> = {
  aws: {
    source: "hashicorp/aws",
    version: "~> 5.0",
    config: 'provider "aws" {\n  region = var.region\n}\n',
    region: "eu-west-1",
    resource:
      'resource "aws_s3_bucket" "main" {\n  bucket = "${var.name}-${var.environment}"\n  tags   = local.tags\n}\n\n' +
      'resource "aws_s3_bucket_public_access_block" "main" {\n  bucket                  = aws_s3_bucket.main.id\n  block_public_acls       = true\n  block_public_policy     = true\n  ignore_public_acls      = true\n  restrict_public_buckets = true\n}\n',
  },
  azurerm: {
    source: "hashicorp/azurerm",
    version: "~> 4.0",
    config: 'provider "azurerm" {\n  features {}\n}\n',
    region: "westeurope",
    resource: 'resource "azurerm_resource_group" "main" {\n  name     = "${var.name}-${var.environment}"\n  location = var.region\n  tags     = local.tags\n}\n',
  },
  google: {
    source: "hashicorp/google",
    version: "~> 6.0",
    config: 'provider "google" {\n  region = var.region\n}\n',
    region: "europe-west1",
    resource:
      'resource "google_storage_bucket" "main" {\n  name                        = "${var.name}-${var.environment}"\n  location                    = var.region\n  uniform_bucket_level_access = true\n  labels                      = local.tags\n}\n',
  },
};

export function starterFiles(name: string, provider: StarterProvider): Record<string, string> {
  const cloud = provider === "none" ? undefined : providers[provider];
  const versions =
    `terraform {\n  required_version = ">= 1.6.0"\n` +
    (cloud ? `\n  required_providers {\n    ${provider} = {\n      source  = "${cloud.source}"\n      version = "${cloud.version}"\n    }\n  }\n` : "") +
    `}\n` +
    (cloud ? `\n${cloud.config}` : "");
  const variables =
    `variable "name" {\n  description = "Name prefix of everything this project makes."\n  type        = string\n  default     = "${name}"\n}\n\n` +
    `variable "environment" {\n  description = "Deployment environment, such as dev or prod."\n  type        = string\n  default     = "dev"\n}\n` +
    (cloud ? `\nvariable "region" {\n  description = "Where the resources live."\n  type        = string\n  default     = "${cloud.region}"\n}\n` : "");
  const main =
    `locals {\n  tags = {\n    project     = var.name\n    environment = var.environment\n    managed_by  = "opentofu"\n  }\n}\n\n` +
    (cloud ? cloud.resource : `resource "terraform_data" "main" {\n  input = local.tags\n}\n`);
  const outputs = `output "tags" {\n  description = "The tags every resource carries."\n  value       = local.tags\n}\n`;
  const readme =
    `# ${name}\n\nAn OpenTofu/Terraform project${cloud ? ` for ${provider}` : ""}.\n\n` +
    `| file | holds |\n| --- | --- |\n| versions.tf | the tofu/terraform and provider versions |\n| variables.tf | inputs, each with a description and type |\n` +
    `| main.tf | the resources |\n| outputs.tf | what it exposes |\n\n` +
    "```sh\ntofu init\ntofu plan\n```\n";
  return { "versions.tf": versions, "variables.tf": variables, "main.tf": main, "outputs.tf": outputs, "README.md": readme };
}
