/**
 * What the infra tools answer with: each tool's outputSchema in TypeBox, and the service's return types as their
 * Static types, so the two cannot drift apart. Shapes this server builds are closed (exactly these properties);
 * what comes from elsewhere as it was sent (tofu's own JSON documents, a plan's output values, an LSP diagnostic)
 * stays open, and its description says so.
 */
import { type Static, Type } from "@sinclair/typebox";
import {
  actionsOn,
  Closed,
  Column,
  Count,
  FileName,
  Folder,
  focuses,
  LanguageServerState,
  Line,
  Literals,
  Nullable,
  RootFile,
  RuleCategory,
  RuleProvider,
  Severity,
  StarterProvider,
  TokenSource,
  WorkspaceState,
} from "./model.ts";

// --- runs of tofu ---

export const Diagnostic = Closed(
  { severity: Literals(["error", "warning"]), summary: Type.String(), detail: Type.Optional(Type.String()), file: Type.Optional(FileName), line: Type.Optional(Line), column: Type.Optional(Column) },
  { description: "A diagnostic tofu reported, with where it points when it points somewhere." },
);
export type Diagnostic = Static<typeof Diagnostic>;

export const InitResult = Closed(
  { messages: Type.Array(Type.String(), { description: "What tofu said, one -json message each." }), diagnostics: Type.Array(Diagnostic) },
  { title: "init" },
);
export type InitResult = Static<typeof InitResult>;

export const ValidateResult = Closed(
  { valid: Type.Boolean(), error_count: Count(), warning_count: Count(), diagnostics: Type.Array(Diagnostic) },
  { title: "validate", description: "An invalid configuration is a result (valid: false), not a failure." },
);
export type ValidateResult = Static<typeof ValidateResult>;

export const FmtResult = Closed(
  {
    written: Type.Boolean({ description: "Whether the files were rewritten (write: true)." }),
    files: Type.Array(FileName, { description: "The files that were not formatted (rewritten, when written)." }),
    formatted: Type.Boolean({ description: "Whether every file was formatted already." }),
    diff: Type.Optional(Type.String({ description: "When not writing: the changes formatting would make, as a unified diff." })),
  },
  { title: "fmt" },
);
export type FmtResult = Static<typeof FmtResult>;

const PlannedOutput = Type.Object(
  { sensitive: Type.Boolean(), action: Type.Optional(Type.String()), value: Type.Optional(Type.Unknown({ description: "Any JSON value; absent when sensitive or not yet known." })) },
  { description: "An output as tofu reports it; open." },
);

export const PlanResult = Closed(
  {
    summary: Nullable(Closed({ add: Count(), change: Count(), remove: Count(), import: Count() }), "Resources to add, change, remove and import; null when tofu printed no summary."),
    changes: Type.Array(
      Closed({
        address: Type.String(),
        type: Type.String({ description: "The resource type." }),
        action: Type.String({ description: "tofu's word for it: create, update, delete, replace, read, ..." }),
        drift: Type.Optional(Type.Boolean({ description: "A change made outside tofu, found while refreshing." })),
      }),
    ),
    outputs: Type.Record(Type.String(), PlannedOutput, { description: "Outputs by name." }),
    diagnostics: Type.Array(Diagnostic),
    applied: Type.Array(Closed({ address: Type.String(), action: Type.String() }), { description: "apply and destroy: what was done to each resource." }),
  },
  { title: "plan, apply, destroy" },
);
export type PlanResult = Static<typeof PlanResult>;

export const GraphResult = Closed(
  { dot: Type.String({ description: "The graph in Graphviz DOT, as tofu printed it." }), nodes: Type.Array(Type.String()), edges: Type.Array(Closed({ from: Type.String(), to: Type.String() })) },
  { title: "graph" },
);
export type GraphResult = Static<typeof GraphResult>;

export const ProvidersResult = Closed(
  {
    tree: Type.String({ description: "The modules and their provider requirements, as tofu printed them." }),
    providers: Type.Array(Closed({ source: Type.String(), constraint: Nullable(Type.String()) }), { description: "Each requirement once." }),
  },
  { title: "providers" },
);
export type ProvidersResult = Static<typeof ProvidersResult>;

export const ShowResult = Type.Object(
  { format_version: Type.String() },
  {
    title: "show",
    description:
      "tofu show -json as tofu printed it: the state, or the saved plan named by plan_id (planned_values, resource_changes, variables, ...). " +
      "Its shape is OpenTofu's JSON output format; open here.",
  },
);
export type ShowResult = Static<typeof ShowResult>;

export const VersionResult = Type.Object(
  { terraform_version: Type.String(), platform: Type.String(), provider_selections: Type.Record(Type.String(), Type.String()) },
  { title: "version", description: "tofu version -json as tofu printed it (terraform adds terraform_outdated); open here." },
);
export type VersionResult = Static<typeof VersionResult>;

export const ActionResult = Type.Union([InitResult, ValidateResult, FmtResult, PlanResult, GraphResult, ProvidersResult, ShowResult, VersionResult], {
  description: "The action's output, parsed; its shape depends on the action (each shape's title names its actions).",
});
export type ActionResult = Static<typeof ActionResult>;

export const Binary = Closed({ name: Literals(["tofu", "terraform"]), path: Type.String() }, { description: "The binary that runs." });
export type Binary = Static<typeof Binary>;

/** The `infra` tool's result; as its input does, it names apply and destroy only when they are allowed. */
export const runResult = (allowApply: boolean) =>
  Closed({
    action: Literals(actionsOn(allowApply)),
    path: Folder,
    binary: Binary,
    exit_code: Type.Integer(),
    duration_ms: Count(),
    result: ActionResult,
    plan: Type.Optional(
      Closed(
        {
          id: Type.String({ description: "plan_id for show, apply and destroy." }),
          sha256: Type.String({ pattern: "^[a-f0-9]{64}$", description: "plan_sha256 for apply and destroy." }),
          destroy: Type.Boolean({ description: "A destroy plan, applied with the destroy action." }),
        },
        { description: "plan: the plan saved for later actions." },
      ),
    ),
    output: Type.String({ description: "stdout then stderr, cut to the last infra.max_output_bytes." }),
    output_truncated: Type.Boolean(),
    log_file: Type.String({ description: "The run's full log, on the server." }),
  });
export type RunResult = Static<ReturnType<typeof runResult>>;

// --- workspaces ---

export const RunRecord = Closed(
  {
    runId: Type.String(),
    action: Type.String({ description: "An action of the infra tool, or clone." }),
    outcome: Literals(["succeeded", "failed", "cancelled", "timed out"]),
    exitCode: Nullable(Type.Integer(), "null when the process did not end by itself."),
    startedAt: Type.Integer({ description: "Milliseconds since 1970." }),
    finishedAt: Type.Integer({ description: "Milliseconds since 1970." }),
    logFile: Type.String(),
    error: Type.Optional(Type.String()),
  },
  { description: "The workspace's last run." },
);
export type RunRecord = Static<typeof RunRecord>;

export const WorkspaceView = Closed({
  state: WorkspaceState,
  running: Type.Optional(Closed({ action: Type.String(), runId: Type.String(), startedAt: Type.String({ description: "ISO 8601" }) }, { description: "The run under way." })),
  lastRun: Type.Optional(RunRecord),
});
export type WorkspaceView = Static<typeof WorkspaceView>;

export const WorkspaceList = Closed({
  root: Type.String({ description: "The workspace root, on the server." }),
  workspaces: Type.Array(
    Closed({
      path: Folder,
      initialised: Type.Boolean(),
      backend: Type.String({ description: "The backend's type: local when none is declared, cloud for a cloud block." }),
      ...WorkspaceView.properties,
    }),
  ),
});
export type WorkspaceList = Static<typeof WorkspaceList>;

export const ToolStatus = Type.Union([
  Closed({ installed: Type.Literal(true), path: Type.String(), version: Type.Optional(Type.String({ description: "Absent when it could not be read." })) }),
  Closed({ installed: Type.Literal(false), install: Type.String({ description: "How to install it." }), fallback: Type.Optional(Type.String({ description: "What stands in for it." })) }),
]);
export type ToolStatus = Static<typeof ToolStatus>;

export const Environment = Closed({
  ready: Type.Boolean({ description: "Whether tofu or terraform is installed." }),
  tools: Closed(
    { tofu: Type.Optional(ToolStatus), terraform: Type.Optional(ToolStatus), "terraform-ls": ToolStatus, git: ToolStatus },
    { description: "tofu or terraform (the one that runs; tofu when neither is installed), terraform-ls and git." },
  ),
  workspace_root: Type.String(),
  workspace_root_writable: Type.Boolean(),
  allow_apply: Type.Boolean(),
  vcs: Closed({ api_base: Type.String(), token: TokenSource }),
});
export type Environment = Static<typeof Environment>;

export const LockedProvider = Closed({
  source: Type.String({ description: "registry/namespace/name" }),
  version: Nullable(Type.String(), "The version selected."),
  constraints: Nullable(Type.String()),
});
export type LockedProvider = Static<typeof LockedProvider>;

export const Versions = Closed({
  binary: Closed({ ...Binary.properties, version: Type.String(), platform: Type.String() }),
  path: Folder,
  providers: Type.Array(LockedProvider, { description: "What the workspace's .terraform.lock.hcl selects; empty without one." }),
});
export type Versions = Static<typeof Versions>;

// --- analysis ---

export const SyntaxIssue = Closed({ line: Line, column: Column, message: Type.String() });
export type SyntaxIssue = Static<typeof SyntaxIssue>;

export const Issue = Closed({
  severity: Severity,
  category: Literals(["syntax", "documentation", "typing", "versioning", "secrets"]),
  message: Type.String(),
  file: FileName,
  line: Line,
});
export type Issue = Static<typeof Issue>;

const Score = Type.Integer({ minimum: 0, maximum: 100, description: "100 less each issue's weight (low 1, medium 5, high 10, critical 20)." });

export const Analysis = Closed({
  score: Score,
  issues: Type.Array(Issue, { description: "By file and line." }),
  statistics: Closed({
    files: Count(),
    resources: Count("Managed resource instances."),
    resources_by_type: Type.Record(Type.String(), Count()),
    data_sources: Count(),
    providers: Type.Array(Type.String()),
    modules: Type.Array(Closed({ name: Type.String(), source: Type.String(), version: Type.Optional(Type.String()) })),
    variables: Closed({ total: Count(), without_description: Type.Array(Type.String()), without_type: Type.Array(Type.String()) }),
    outputs: Count(),
    required_version: Nullable(Type.String()),
    unpinned_providers: Type.Array(Type.String()),
    hardcoded_secrets: Count(),
    syntax_errors: Count(),
  }),
});
export type Analysis = Static<typeof Analysis>;

export const AnalysisResult = Closed({ path: Folder, ...Analysis.properties });
export type AnalysisResult = Static<typeof AnalysisResult>;

export const FileCheck = Closed({
  path: RootFile,
  valid: Type.Boolean({ description: "No syntax errors." }),
  syntax_errors: Type.Array(SyntaxIssue),
  issues: Type.Array(Issue),
  score: Score,
  blocks: Type.Record(Type.String(), Count(), { description: "How many blocks of each type (resource, variable, ...)." }),
});
export type FileCheck = Static<typeof FileCheck>;

export const ModuleCall = Closed({
  name: Type.String(),
  source: Type.String(),
  version: Type.Optional(Type.String()),
  file: FileName,
  line: Line,
  local: Type.Boolean({ description: "A folder of this configuration (./ or ../)." }),
});
export type ModuleCall = Static<typeof ModuleCall>;

export const RequiredProvider = Closed({
  name: Type.String({ description: "The local name." }),
  source: Type.Optional(Type.String()),
  version: Type.Optional(Type.String({ description: "The version constraint." })),
  file: FileName,
  line: Line,
});
export type RequiredProvider = Static<typeof RequiredProvider>;

export const WorkspaceInfo = Closed({
  path: Folder,
  initialised: Type.Boolean(),
  backend: Type.String(),
  required_version: Nullable(Type.String()),
  files: Type.Array(Closed({ name: FileName, bytes: Count(), lines: Count(), blocks: Count(), syntax_errors: Count() })),
  resources: Type.Array(Closed({ address: Type.String({ description: "With its instance key and module path." }), type: Type.String(), file: FileName, line: Line })),
  data_sources: Type.Array(Type.String()),
  modules: Type.Array(ModuleCall),
  providers: Type.Array(RequiredProvider),
  variables: Type.Array(Type.String()),
  outputs: Type.Array(Type.String()),
  state_file: Type.Union([Closed({ present: Type.Literal(false) }), Closed({ present: Type.Literal(true), serial: Nullable(Type.Integer()), resources: Count() })], {
    description: "The local terraform.tfstate.",
  }),
  lock_file: Type.Boolean(),
  ...WorkspaceView.properties,
});
export type WorkspaceInfo = Static<typeof WorkspaceInfo>;

export const Setup = Closed({
  path: Folder,
  provider: StarterProvider,
  files: Type.Array(Type.String(), { description: "The files written." }),
  next: Type.Array(Type.String(), { description: "Calls to make next." }),
});
export type Setup = Static<typeof Setup>;

// --- security ---

export const Finding = Closed({
  rule_id: Type.String({ description: "Checkov's id (CKV_AWS_20)." }),
  tfsec_id: Type.String({ description: "tfsec's and Trivy's id." }),
  provider: RuleProvider,
  severity: Severity,
  category: RuleCategory,
  title: Type.String(),
  remediation: Type.String(),
  resource: Type.String({ description: "The resource instance's address, with its module path." }),
  file: FileName,
  line: Line,
});
export type Finding = Static<typeof Finding>;

const Skipped = Closed(
  { ...Finding.properties, reason: Type.String({ description: "The skip comment." }) },
  { description: "A failed check that a #checkov:skip or #tfsec:ignore comment set aside." },
);

const ScanSummary = Closed({
  rules: Count("Rules that applied."),
  resources: Count("Resources judged."),
  passed: Count(),
  failed: Count("Findings reported."),
  skipped: Count(),
  unknown: Count("Checks that could not be judged (a value known only after apply)."),
  by_severity: Closed({ low: Count(), medium: Count(), high: Count(), critical: Count() }, { description: "Findings by severity." }),
});

export const ScanReport = Closed({ findings: Type.Array(Finding, { description: "Most severe first." }), skipped: Type.Array(Skipped), summary: ScanSummary });
export type ScanReport = Static<typeof ScanReport>;

const SarifLevel = Literals(["note", "warning", "error"]);
const Text = Closed({ text: Type.String() });

const SarifRule = Closed({
  id: Type.String(),
  name: Type.String(),
  shortDescription: Text,
  help: Text,
  defaultConfiguration: Closed({ level: SarifLevel }),
  properties: Closed({ tags: Type.Array(Type.String()), "security-severity": Type.String(), tfsec: Type.String() }),
});

const SarifResult = Closed({
  ruleId: Type.String(),
  ruleIndex: Count(),
  level: SarifLevel,
  message: Text,
  locations: Type.Array(
    Closed({
      physicalLocation: Closed({ artifactLocation: Closed({ uri: Type.String() }), region: Closed({ startLine: Line }) }),
      logicalLocations: Type.Array(Closed({ fullyQualifiedName: Type.String(), kind: Type.String() })),
    }),
  ),
});

export const Sarif = Closed(
  {
    $schema: Type.Literal("https://json.schemastore.org/sarif-2.1.0.json"),
    version: Type.Literal("2.1.0"),
    runs: Type.Array(
      Closed({
        tool: Closed({ driver: Closed({ name: Type.String(), version: Type.String(), rules: Type.Array(SarifRule, { description: "The rules that fired." }) }) }),
        results: Type.Array(SarifResult),
      }),
    ),
  },
  { description: "format sarif: the findings as a SARIF 2.1.0 log (one run, the rules that fired, one result per finding)." },
);
export type Sarif = Static<typeof Sarif>;

/** The findings as JSON (format json) or as SARIF (format sarif), with the summary either way. */
export const SecurityScan = Closed({
  path: Folder,
  minimum_severity: Severity,
  summary: ScanSummary,
  findings: Type.Optional(Type.Array(Finding, { description: "format json: most severe first." })),
  skipped: Type.Optional(Type.Array(Skipped, { description: "format json." })),
  sarif: Type.Optional(Sarif),
});
export type SecurityScan = Static<typeof SecurityScan>;

export const Recommendation = Closed({
  priority: Literals(["low", "medium", "high"]),
  title: Type.String(),
  detail: Type.String(),
  resource: Type.Optional(Type.String()),
  file: FileName,
  line: Line,
});
export type Recommendation = Static<typeof Recommendation>;

export const Recommendations = Closed({ path: Folder, focus: Literals(focuses), count: Count(), recommendations: Type.Array(Recommendation) });
export type Recommendations = Static<typeof Recommendations>;

// --- language server ---

const Position = Type.Object({ line: Count("0-based"), character: Count("0-based, in UTF-16 code units") });
const Range = Type.Object({ start: Position, end: Position });

export const Completions = Closed({
  path: RootFile,
  position: Position,
  items: Type.Array(
    Closed({
      label: Type.String(),
      kind: Type.Optional(Type.String({ description: "What it is: keyword, property, function, ..." })),
      detail: Type.Optional(Type.String()),
      documentation: Type.Optional(Type.String()),
      insert: Type.Optional(Type.String({ description: "The text to insert." })),
    }),
  ),
  truncated: Type.Boolean({ description: "There were more than the 200 items listed." }),
});
export type Completions = Static<typeof Completions>;

export const Hover = Closed(
  { contents: Type.String({ description: "Markdown or plain text." }), range: Type.Optional(Range) },
  { description: "null when there is nothing to say at that position." },
);
export type Hover = Static<typeof Hover>;

export const HoverResult = Closed({ path: RootFile, position: Position, hover: Nullable(Hover) });
export type HoverResult = Static<typeof HoverResult>;

export const Formatting = Closed({
  path: RootFile,
  used: Type.String({ description: "terraform-ls, or tofu fmt (terraform fmt) when terraform-ls is not installed." }),
  changed: Type.Boolean(),
  written: Type.Boolean(),
  formatted: Type.String({ description: "The formatted text." }),
});
export type Formatting = Static<typeof Formatting>;

const LspDiagnostic = Type.Object(
  {
    range: Range,
    severity: Type.Optional(Type.Integer({ minimum: 1, maximum: 4, description: "1 error, 2 warning, 3 information, 4 hint." })),
    source: Type.Optional(Type.String()),
    message: Type.String(),
  },
  { description: "A diagnostic in the LSP's shape (ranges 0-based); open: terraform-ls may add the LSP's other fields." },
);

export const DocumentDiagnostics = Closed({
  path: RootFile,
  used: Literals(["terraform-ls", "hcl parser"], "The HCL parser stands in when terraform-ls is not installed."),
  valid: Type.Boolean({ description: "No errors." }),
  diagnostics: Type.Array(LspDiagnostic),
  published: Type.Optional(Type.Boolean({ description: "terraform-ls: whether it published diagnostics for the file (false: it parsed the file and stayed quiet, so none)." })),
});
export type DocumentDiagnostics = Static<typeof DocumentDiagnostics>;

export const LspStatus = Closed({
  installed: Type.Boolean(),
  state: LanguageServerState,
  pid: Nullable(Type.Integer()),
  restarts: Count("Starts after a crash."),
  uptime_seconds: Nullable(Count()),
  last_error: Nullable(Type.String()),
});
export type LspStatus = Static<typeof LspStatus>;

export const LspDebug = Closed({
  ...LspStatus.properties,
  binary: Nullable(Type.String()),
  root: Type.String(),
  server: Nullable(Type.Object({ name: Type.String(), version: Type.Optional(Type.String()) }), "The server's name and version, while it runs."),
  capabilities: Type.Array(Type.String(), { description: "The names of the capabilities it declared." }),
  open_documents: Type.Array(Type.String(), { description: "file: URIs" }),
  recent_requests: Type.Array(Closed({ method: Type.String(), ms: Count(), ok: Type.Boolean(), at: Type.String({ description: "ISO 8601" }) })),
  stderr_tail: Type.Array(Type.String()),
});
export type LspDebug = Static<typeof LspDebug>;

// --- repositories ---

const RepoName = Type.String({ description: "owner/name" });

export const Clone = Closed({
  repo: RepoName,
  path: Folder,
  branch: Nullable(Type.String(), "null: the default branch."),
  commit: Type.String({ description: "The commit checked out." }),
  shallow: Type.Boolean(),
  log_file: Type.String(),
});
export type Clone = Static<typeof Clone>;

export const RepositoryFile = Closed({ path: Type.String(), size: Count("bytes") });
export type RepositoryFile = Static<typeof RepositoryFile>;

export const RepositoryFiles = Closed({
  repo: RepoName,
  ref: Type.String(),
  pattern: Type.String(),
  count: Count(),
  files: Type.Array(RepositoryFile),
  truncated: Type.Boolean({ description: "The host cut its listing of the tree short." }),
});
export type RepositoryFiles = Static<typeof RepositoryFiles>;

export const RepositoryConfiguration = Closed({
  repo: RepoName,
  ref: Type.String(),
  iac_files: Count(),
  configurations: Type.Array(
    Closed({
      path: Type.String({ description: "The folder; `.` for the repository's root." }),
      files: Type.Array(Type.String()),
      required_version: Nullable(Type.String()),
      backend: Nullable(Type.String()),
      providers: Type.Array(Type.String()),
      modules: Type.Array(Closed({ name: Type.String(), source: Nullable(Type.String()) })),
      resources: Count(),
      syntax_errors: Type.Array(Closed({ file: Type.String(), line: Line, message: Type.String() })),
    }),
  ),
});
export type RepositoryConfiguration = Static<typeof RepositoryConfiguration>;

export const Prepared = Closed({
  ...Clone.properties,
  workspaces: Type.Array(
    Closed({
      path: Folder,
      score: Score,
      issues: Count(),
      resources: Count(),
      initialised: Type.Boolean(),
      init: Type.Optional(Type.Union([Closed({ ok: Type.Literal(true) }), Closed({ ok: Type.Literal(false), error: Type.String() })], { description: "With init: true." })),
    }),
  ),
  next: Type.Array(Type.String(), { description: "Calls to make next." }),
});
export type Prepared = Static<typeof Prepared>;
