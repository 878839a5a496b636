/**
 * The `infra` MCP server's 21 tools. Adapters only: each checks its input's shape, calls the service and answers
 * its result, whose type is its output schema's (views.ts), as structured content.
 */
import { type Static, type TObject, Type } from "@sinclair/typebox";
import { jsonResult, type Tool, type ToolContext } from "../mcp/define.ts";
import type { ToolFailure } from "../mcp/call.ts";
import { InfraError, toolErrorText } from "./errors.ts";
import { FilePath, focuses, infraInput, StarterProvider, type TokenSource, WorkspacePath } from "./model.ts";
import { rules } from "./scanner.ts";
import type { InfraService } from "./service.ts";
import {
  AnalysisResult,
  Clone,
  Completions,
  DocumentDiagnostics,
  Environment,
  FileCheck,
  Formatting,
  HoverResult,
  LspDebug,
  LspStatus,
  Prepared,
  Recommendations,
  RepositoryConfiguration,
  RepositoryFiles,
  runResult,
  SecurityScan,
  Setup,
  Versions,
  WorkspaceInfo,
  WorkspaceList,
} from "./views.ts";

/** The categories of tools.json, by tool. */
export const categoryOf: Record<string, string> = {};

interface InfraToolSpec<S extends TObject, O extends TObject> extends Omit<Tool<S>, "output" | "handler"> {
  output: O;
  /** The service call; its result must be of the output schema's type, which the host checks again on every call. */
  run(args: Static<S>, context: ToolContext): Promise<Static<O>>;
}

/** A tool of a tools.json category, answering `run`'s result as JSON text and as structured content. */
function tool<S extends TObject, O extends TObject>(category: string, { run, ...definition }: InfraToolSpec<S, O>): Tool<S> {
  categoryOf[definition.name] = category;
  return { ...definition, handler: async (args, context) => jsonResult((await run(args, context)) as Record<string, unknown>) };
}

/** An InfraError is the model's to read and act on; anything else is the host's plain failure. */
export const infraFailure: ToolFailure = (error) => ({
  isError: true,
  content: [{ type: "text", text: error instanceof InfraError ? toolErrorText(error) : error instanceof Error ? error.message : String(error) }],
});

export interface InfraToolDeps {
  infra: InfraService;
  /** Where the repository host token would come from: `vault`, `VCS_TOKEN` or `none`. */
  tokenSource(): Promise<TokenSource>;
}

export const infraTools = ({ infra, tokenSource }: InfraToolDeps): Tool[] => [
  tool("core", {
    name: "infra",
    title: "Run OpenTofu/Terraform",
    description:
      "Run tofu (or terraform) in a workspace: init, validate, fmt, plan, show, graph, providers or version, with -input=false, -no-color and -json " +
      "where the command has it; the output is parsed into a structured result. Variables go through a temporary .tfvars.json. A plan is saved and " +
      "answered with its id and sha256. One run at a time per workspace; progress is streamed and the full log kept (its path is in the result)." +
      (infra.config.allow_apply ? " apply and destroy take only a plan saved here, with its hash." : " Nothing changes infrastructure: apply and destroy are off."),
    input: infraInput(infra.config.allow_apply),
    annotations: { destructiveHint: infra.config.allow_apply, openWorldHint: true },
    output: runResult(infra.config.allow_apply),
    run: (args, context) => infra.run(args, context),
  }),
  tool("core", {
    name: "infra_environment_check",
    title: "Check the infrastructure tools",
    description: "Report which tools are installed (tofu or terraform, terraform-ls, git) with their versions, the workspace root, and whether apply is allowed.",
    input: Type.Object({}),
    annotations: { readOnlyHint: true },
    output: Environment,
    run: async () => infra.environment(await tokenSource()),
  }),
  tool("core", {
    name: "infra_version",
    title: "Binary and provider versions",
    description: "The tofu/terraform binary's version, and the provider versions a workspace's lock file (.terraform.lock.hcl) selects.",
    input: Type.Object({ path: WorkspacePath }),
    annotations: { readOnlyHint: true },
    output: Versions,
    run: ({ path }) => infra.version(path),
  }),
  tool("core", {
    name: "infra_workspace_list",
    title: "List workspaces",
    description: "Every folder under the workspace root with configuration files: whether it is initialised, its backend, whether a run is under way, and its last run.",
    input: Type.Object({}),
    annotations: { readOnlyHint: true },
    output: WorkspaceList,
    run: () => infra.workspaceList(),
  }),
  tool("diagnostics", {
    name: "infra_analyze",
    title: "Analyze a configuration",
    description:
      "Read a workspace's configuration (local modules followed) with a real HCL parser and report a score from 0 to 100, issues with file and line " +
      "(syntax errors, variables without description or type, no required_version, unpinned providers and modules, hard-coded secrets) and statistics.",
    input: Type.Object({ path: WorkspacePath }),
    annotations: { readOnlyHint: true },
    output: AnalysisResult,
    run: ({ path }) => infra.analyze(path),
  }),
  tool("diagnostics", {
    name: "infra_file_check",
    title: "Check one file",
    description: "Parse one .tf/.tfvars file: syntax errors with line and column, and the issues the file shows on its own, with a score.",
    input: Type.Object({ path: FilePath }),
    annotations: { readOnlyHint: true },
    output: FileCheck,
    run: ({ path }) => infra.fileCheck(path),
  }),
  tool("diagnostics", {
    name: "infra_workspace_info",
    title: "Describe a workspace",
    description: "A workspace's files, resources, data sources, modules, providers, variables, outputs, backend, state file, initialisation and last run.",
    input: Type.Object({ path: WorkspacePath }),
    annotations: { readOnlyHint: true },
    output: WorkspaceInfo,
    run: ({ path }) => infra.workspaceInfo(path),
  }),
  tool("diagnostics", {
    name: "infra_workspace_setup",
    title: "Start a new project",
    description:
      "Write a structured starting project into a folder: versions.tf, variables.tf, main.tf, outputs.tf and README.md, for aws, azurerm, google or none " +
      "(built-in resources only). Refuses to overwrite any existing file.",
    input: Type.Object({
      path: Type.String({ minLength: 1, maxLength: 4096, description: "The folder to create, relative to the workspace root." }),
      name: Type.String({ pattern: "^[a-z][a-z0-9-]{0,39}$", default: "app", description: "The project's name prefix." }),
      provider: Type.Union(StarterProvider.anyOf, { default: "none" }),
    }),
    annotations: { destructiveHint: false },
    output: Setup,
    run: async ({ path, name, provider }) => infra.workspaceSetup(path, name, provider),
  }),
  tool("security", {
    name: "infra_security_scan",
    title: "Scan for security issues",
    description:
      `Scan a workspace (local modules followed) with ${rules.length} rules over AWS, Azure and Google Cloud, each named by its Checkov id and its tfsec/Trivy id, ` +
      "judged as Checkov judges them. Findings carry file, line and resource address, severity and remediation. #checkov:skip=<id> and " +
      "#tfsec:ignore:<id> comments are honoured. severity is the minimum reported (low, medium, high, critical; default medium). format json or sarif (2.1.0).",
    input: Type.Object({
      path: WorkspacePath,
      severity: Type.String({ default: "medium", description: "The minimum severity reported: low, medium, high or critical." }),
      format: Type.Union([Type.Literal("json"), Type.Literal("sarif")], { default: "json" }),
    }),
    annotations: { readOnlyHint: true },
    output: SecurityScan,
    run: ({ path, severity, format }) => infra.securityScan(path, severity, format),
  }),
  tool("security", {
    name: "infra_recommendations",
    title: "Recommend improvements",
    description: `Recommendations for a workspace, each with its file and line, by focus: ${focuses.join(", ")} (default security).`,
    input: Type.Object({
      path: WorkspacePath,
      focus: Type.String({ default: "security", description: `One of ${focuses.join(", ")}.` }),
    }),
    annotations: { readOnlyHint: true },
    output: Recommendations,
    run: ({ path, focus }) => infra.recommendations(path, focus),
  }),
  tool("language server", {
    name: "iac_complete",
    title: "Completions at a position",
    description: "Completions from terraform-ls at a position in a .tf file: resource types, attributes, variables, functions. Positions are 0-based (LSP).",
    input: Type.Object({ path: FilePath, line: Position("line"), character: Position("character") }),
    annotations: { readOnlyHint: true },
    output: Completions,
    run: ({ path, line, character }) => infra.language.complete(path, line, character),
  }),
  tool("language server", {
    name: "iac_hover",
    title: "Documentation at a position",
    description: "What terraform-ls says about the symbol at a position (its documentation and type). Positions are 0-based (LSP).",
    input: Type.Object({ path: FilePath, line: Position("line"), character: Position("character") }),
    annotations: { readOnlyHint: true },
    output: HoverResult,
    run: ({ path, line, character }) => infra.language.hover(path, line, character),
  }),
  tool("language server", {
    name: "iac_format_lsp",
    title: "Format a file",
    description: "Format a file with terraform-ls (or tofu fmt when terraform-ls is not installed; the result says which). Answers the formatted text; writes it back only with write: true.",
    input: Type.Object({ path: FilePath, write: Type.Boolean({ default: false, description: "Write the formatted text back to the file." }) }),
    output: Formatting,
    run: ({ path, write }) => infra.language.formatDocument(path, write),
  }),
  tool("language server", {
    name: "iac_validate_lsp",
    title: "Diagnostics for a file",
    description: "The diagnostics terraform-ls publishes for a file (or our HCL parser's, when terraform-ls is not installed; the result says which). Ranges are 0-based (LSP).",
    input: Type.Object({ path: FilePath }),
    annotations: { readOnlyHint: true },
    output: DocumentDiagnostics,
    run: ({ path }) => infra.language.validateDocument(path),
  }),
  tool("language server", {
    name: "iac_lsp_status",
    title: "Language server status",
    description: "Whether terraform-ls is installed, and its state: absent (not started), starting, ready or crashed (restarted by the next call that needs it).",
    input: Type.Object({}),
    annotations: { readOnlyHint: true },
    output: LspStatus,
    run: async () => infra.lsp.status(),
  }),
  tool("language server", {
    name: "infra_lsp_init",
    title: "Start the language server",
    description: "Start terraform-ls for the workspace root (or restart it with restart: true) and answer its name, version and capabilities.",
    input: Type.Object({ restart: Type.Boolean({ default: false }) }),
    output: LspDebug,
    async run({ restart }) {
      if (restart) await infra.lsp.stop();
      await infra.lsp.start();
      return infra.lsp.debug();
    },
  }),
  tool("language server", {
    name: "infra_lsp_debug",
    title: "Language server details",
    description: "Everything known about the terraform-ls process: state, pid, restarts, last error, server info, capabilities, open documents, recent requests with their timings, and its last stderr lines.",
    input: Type.Object({}),
    annotations: { readOnlyHint: true },
    output: LspDebug,
    run: () => infra.lsp.debug(),
  }),
  tool("repository host", {
    name: "vcs_clone_repo",
    title: "Clone a repository",
    description:
      "Clone a repository (owner/name on the configured host, or its https URL) into the workspace root (repos/<name> unless path is given): " +
      "shallow by default, a branch when given, force to clone afresh over an existing folder. The token is never put in the URL or on disk.",
    input: Type.Object({
      repo: Repo,
      branch: Branch,
      path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096, description: "Target folder, relative to the workspace root." })),
      depth: Type.Integer({ minimum: 0, maximum: 100_000, default: 1, description: "Commits of history; 0 for all." }),
      force: Type.Boolean({ default: false, description: "Remove an existing target folder first." }),
    }),
    annotations: { openWorldHint: true },
    output: Clone,
    run: (args, context) => infra.repositories.clone(args, context),
  }),
  tool("repository host", {
    name: "vcs_get_iac_config",
    title: "Read a repository's configuration",
    description: "Without cloning: a repository's IaC files and, per configuration folder, its required_version, backend, providers, modules and resource count.",
    input: Type.Object({ repo: Repo, ref: Ref }),
    annotations: { readOnlyHint: true, openWorldHint: true },
    output: RepositoryConfiguration,
    run: (args, context) => infra.repositories.iacConfig(args, context),
  }),
  tool("repository host", {
    name: "vcs_list_iac_files",
    title: "List a repository's IaC files",
    description: "Files of a repository matching a glob (default *.tf; a pattern without / matches file names in every folder), with their sizes.",
    input: Type.Object({ repo: Repo, pattern: Type.String({ minLength: 1, maxLength: 200, default: "*.tf" }), ref: Ref }),
    annotations: { readOnlyHint: true, openWorldHint: true },
    output: RepositoryFiles,
    run: (args, context) => infra.repositories.listFiles(args, context),
  }),
  tool("repository host", {
    name: "vcs_prepare_workspace",
    title: "Clone and ready a workspace",
    description: "Clone a repository (shallow) and ready each configuration folder in it: analysed (score, issues), and initialised with init: true.",
    input: Type.Object({
      repo: Repo,
      branch: Branch,
      path: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
      init: Type.Boolean({ default: false, description: "Run init in each configuration folder." }),
      force: Type.Boolean({ default: false }),
    }),
    annotations: { openWorldHint: true },
    output: Prepared,
    run: (args, context) => infra.repositories.prepare(args, context),
  }),
];

const Position = (what: "line" | "character") =>
  Type.Integer({ minimum: 0, maximum: 1_000_000, description: `0-based ${what}, as in the Language Server Protocol.` });

const Repo = Type.String({ minLength: 3, maxLength: 300, description: "owner/name, or the repository's https URL." });
const Ref = Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "Branch, tag or commit; the default branch when left out." }));
const Branch = Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: "^[^-\\s~^:?*\\[\\\\][^\\s~^:?*\\[\\\\]*$", description: "A branch to clone." }));
