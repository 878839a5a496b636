/**
 * The infra server's logic, free of any wire format: runs of tofu/terraform in workspaces (one at a time each),
 * the environment, versions, workspaces, analysis and scans; it holds the language tools and the repositories.
 * The MCP tools go through here.
 */
import { createHash, randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "../config.ts";
import type { Logger } from "../log.ts";
import { findTool } from "../toolchain.ts";
import { version } from "../version.ts";
import { analyzeConfiguration, fileIssues, scoreOf } from "./analyze.ts";
import { automationEnv, findBinary, requireBinary } from "./binary.ts";
import { loadConfiguration, type Configuration } from "./configuration.ts";
import { InfraError } from "./errors.ts";
import { backendOf, configurationDirs, configurationFiles, isInitialised, lockedProviders } from "./folders.ts";
import { parseHcl } from "./hcl.ts";
import { LanguageTools } from "./language.ts";
import { LanguageServer } from "./lsp.ts";
import { applyActions, severities, type Action, type InfraInput, type Severity, type StarterProvider, type TokenSource } from "./model.ts";
import { WorkspacePaths, workspaceRootOf } from "./paths.ts";
import { checkFocus, recommend } from "./recommendations.ts";
import { Repositories } from "./repositories.ts";
import { runProgram, tail } from "./run.ts";
import { toSarif } from "./sarif.ts";
import { starterFiles } from "./scaffold.ts";
import { scan } from "./scanner.ts";
import { invocation, jsonDocument } from "./tofu.ts";
import { RepositoryHost } from "./vcs.ts";
import type {
  ActionResult,
  AnalysisResult,
  Environment,
  FileCheck,
  Recommendations,
  RunRecord,
  RunResult,
  SecurityScan,
  Setup,
  ToolStatus,
  Versions,
  VersionResult,
  WorkspaceInfo,
  WorkspaceList,
} from "./views.ts";
import { Workspaces } from "./workspaces.ts";

/** What a tool call hands the service: cancellation and progress, from MCP. */
export interface CallContext {
  signal?: AbortSignal;
  progress?(update: { progress: number; total?: number; message?: string }): Promise<void>;
}

interface SavedPlan {
  id: string;
  workspace: string;
  sha256: string;
  destroy: boolean;
  createdAt: string;
}

/** Actions that read the initialised working directory (modules, providers, backend). */
const needsInit = new Set<Action>(["validate", "plan", "show", "graph", "apply", "destroy"]);

export class InfraService {
  readonly paths: WorkspacePaths;
  readonly workspaces: Workspaces;
  readonly config: Config["infra"];
  readonly #plansDir: string;
  readonly lsp: LanguageServer;
  readonly language: LanguageTools;
  readonly repositories: Repositories;
  /** Stops every run under way, for shutdown: tofu gets its SIGINT and the grace period to release its lock. */
  readonly #shutdown = new AbortController();

  constructor(
    private readonly fullConfig: Config,
    private readonly log: Logger,
    /** The repository host token, read when a call needs it (it may be added to the vault while serving). */
    token: () => Promise<string | undefined> = async () => undefined,
  ) {
    this.config = fullConfig.infra;
    this.paths = new WorkspacePaths(workspaceRootOf(fullConfig));
    mkdirSync(this.paths.root, { recursive: true });
    const home = join(fullConfig.data_dir, "infra");
    this.workspaces = new Workspaces(join(home, "runs"));
    this.#plansDir = join(home, "plans");
    this.lsp = new LanguageServer({
      binary: () => findTool("terraform-ls", this.config.language_server),
      root: this.paths.root,
      timeoutMs: this.config.lsp_timeout_ms,
    });
    this.language = new LanguageTools(this.paths, this.lsp, this.config);
    this.repositories = new Repositories({
      paths: this.paths,
      workspaces: this.workspaces,
      host: new RepositoryHost({ apiBase: fullConfig.vcs.api_base, token, cloneTimeoutMs: fullConfig.vcs.clone_timeout_seconds * 1000 }),
      config: this.config,
      init: (path, context) => this.run({ path, action: "init" } as InfraInput, context),
    });
  }

  /** Runs one action of the `infra` tool in a workspace and answers its structured result. */
  async run(input: InfraInput, context: CallContext = {}): Promise<RunResult> {
    const action = input.action as Action;
    if ((applyActions as readonly string[]).includes(action) && !this.config.allow_apply)
      throw new InfraError("UNKNOWN_ACTION", `${action} is turned off on this server (infra.allow_apply is false)`);
    const dir = this.paths.existing(input.path, "workspace");
    if (!statSync(dir).isDirectory()) throw new InfraError("INVALID_PATH", `${input.path} is a file; give the workspace folder`);
    const workspace = this.paths.relative(dir);
    const binary = requireBinary(this.config);
    if (needsInit.has(action) && !isInitialised(dir))
      throw new InfraError("NOT_INITIALISED", `workspace ${workspace} is not initialised; run the init action first`);

    const plan = this.#planFor(action, input, workspace);
    const { runId, logFile } = this.workspaces.begin(workspace, action);
    const startedAt = Date.now();
    let record: RunRecord = { runId, action, outcome: "failed", exitCode: null, startedAt, finishedAt: startedAt, logFile };
    // The variables file lives in a private temporary folder, only for this run.
    const scratch = input.vars && Object.keys(input.vars).length ? mkdtempSync(join(tmpdir(), "platform-infra-")) : undefined;
    try {
      const varFile = scratch && join(scratch, "vars.tfvars.json");
      if (varFile) writeFileSync(varFile, JSON.stringify(input.vars), { mode: 0o600 });
      const how = invocation(action, { write: input.write, destroy: input.destroy, planFile: plan.file, varFile });
      let lines = 0;
      const result = await runProgram({
        command: [binary.path, ...how.args],
        cwd: dir,
        env: automationEnv(),
        logFile,
        timeoutMs: Math.min(input.timeout_seconds ?? Infinity, this.config.run_timeout_seconds) * 1000,
        graceMs: this.config.cancel_grace_ms,
        signal: context.signal ? AbortSignal.any([context.signal, this.#shutdown.signal]) : this.#shutdown.signal,
        onLine: context.progress && ((line) => void context.progress!({ progress: ++lines, message: progressMessage(line) }).catch(() => {})),
      });
      record = { ...record, exitCode: result.exitCode, finishedAt: Date.now() };
      const output = truncated(result.stdout + result.stderr, this.config.max_output_bytes);
      if (!how.okExitCodes.includes(result.exitCode)) {
        const parsed = safeParse(how.parse, result.stdout, result.exitCode);
        record.error = `exit code ${result.exitCode}`;
        throw new InfraError("RUN_FAILED", `${binary.name} ${how.args[0]} failed with exit code ${result.exitCode}`, {
          exitCode: result.exitCode,
          stderrTail: tail(result.stderr) || tail(result.stdout),
          ...(parsed && "diagnostics" in parsed && parsed.diagnostics.length ? { diagnostics: parsed.diagnostics } : {}),
          logFile,
        });
      }
      record.outcome = "succeeded";
      // tofu makes .terraform only when it has modules or providers to install; the folder is how a workspace reads
      // as initialised, here and to tofu alike.
      if (action === "init") mkdirSync(join(dir, ".terraform"), { recursive: true });
      const parsed = how.parse(result.stdout, result.exitCode);
      const saved = action === "plan" ? this.#savePlan(plan.file!, workspace, input.destroy === true) : undefined;
      if (action === "apply" || action === "destroy") this.#forgetPlan(input.plan_id!);
      return {
        action,
        path: workspace,
        binary: { name: binary.name, path: binary.path },
        exit_code: result.exitCode,
        duration_ms: result.durationMs,
        result: parsed,
        ...(saved ? { plan: { id: saved.id, sha256: saved.sha256, destroy: saved.destroy } } : {}),
        output: output.text,
        output_truncated: output.truncated,
        log_file: logFile,
      };
    } catch (error) {
      if (error instanceof InfraError && (error.code === "CANCELLED" || error.code === "TIMEOUT")) {
        record = { ...record, outcome: error.code === "CANCELLED" ? "cancelled" : "timed out", error: error.message, finishedAt: Date.now() };
      } else if (!record.error) record = { ...record, error: (error as Error).message, finishedAt: Date.now() };
      if (action === "plan" && plan.file) rmSync(plan.file, { force: true });
      throw error;
    } finally {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
      this.workspaces.finish(workspace, record);
      this.log.info("infra run", { workspace, action, outcome: record.outcome, exitCode: record.exitCode, duration: record.finishedAt - startedAt });
    }
  }

  /** The plan file an action writes (plan) or reads (show of a plan, apply, destroy), checked against its hash. */
  #planFor(action: Action, input: InfraInput, workspace: string): { file?: string } {
    if (action === "plan") {
      mkdirSync(this.#plansDir, { recursive: true });
      return { file: join(this.#plansDir, `${randomUUID()}.tfplan`) };
    }
    if (action === "show" && !input.plan_id) return {};
    if (action !== "show" && action !== "apply" && action !== "destroy") return {};
    if (!input.plan_id) throw new InfraError("INVALID_ARGUMENT", `${action} needs plan_id (and plan_sha256) from a plan result`);
    const saved = this.#savedPlan(input.plan_id);
    if (!saved || !existsSync(saved.file)) throw new InfraError("NOT_FOUND", `no saved plan ${input.plan_id}; make one with the plan action`);
    if (saved.plan.workspace !== workspace)
      throw new InfraError("PLAN_REJECTED", `plan ${input.plan_id} belongs to workspace ${saved.plan.workspace}, not ${workspace}`);
    if (action === "show") return { file: saved.file };
    if (!input.plan_sha256) throw new InfraError("INVALID_ARGUMENT", `${action} needs plan_sha256, the plan's hash from the plan result`);
    if (sha256(saved.file) !== input.plan_sha256 || saved.plan.sha256 !== input.plan_sha256)
      throw new InfraError("PLAN_REJECTED", `plan ${input.plan_id} does not have the hash given; make a new plan`);
    if (saved.plan.destroy !== (action === "destroy"))
      throw new InfraError("PLAN_REJECTED", saved.plan.destroy ? "this is a destroy plan: use the destroy action" : "this plan does not destroy: use the apply action");
    return { file: saved.file };
  }

  #savePlan(file: string, workspace: string, destroy: boolean): SavedPlan {
    const id = file.slice(file.lastIndexOf("/") + 1, -".tfplan".length);
    const plan: SavedPlan = { id, workspace, sha256: sha256(file), destroy, createdAt: new Date().toISOString() };
    writeFileSync(join(this.#plansDir, `${id}.json`), JSON.stringify(plan, null, 2));
    return plan;
  }

  #savedPlan(id: string): { plan: SavedPlan; file: string } | undefined {
    const record = join(this.#plansDir, `${id}.json`);
    if (!existsSync(record)) return undefined;
    return { plan: JSON.parse(readFileSync(record, "utf8")) as SavedPlan, file: join(this.#plansDir, `${id}.tfplan`) };
  }

  #forgetPlan(id: string): void {
    rmSync(join(this.#plansDir, `${id}.tfplan`), { force: true });
    rmSync(join(this.#plansDir, `${id}.json`), { force: true });
  }

  /** What is installed and configured: binaries with their versions, the root, and apply's switch. Never a token. */
  async environment(tokenSource: TokenSource): Promise<Environment> {
    const binary = findBinary(this.config);
    const languageServer = findTool("terraform-ls", this.config.language_server);
    const git = findTool("git");
    const [binaryVersion, lsVersion, gitVersion] = await Promise.all([
      binary ? output([binary.path, "version", "-json"]).then((out) => String(jsonDocument(out).terraform_version), () => undefined) : undefined,
      languageServer ? firstLine([languageServer, "version"]) : undefined,
      git ? firstLine([git, "--version"]) : undefined,
    ]);
    // Typed on its own: a value under a computed key is not checked against the named properties.
    const runs: ToolStatus = binary ? { installed: true, path: binary.path, version: binaryVersion } : { installed: false, install: "bun run tools, or set infra.binary" };
    const tools: Environment["tools"] = {
      [binary?.name ?? "tofu"]: runs,
      "terraform-ls": languageServer
        ? { installed: true, path: languageServer, version: lsVersion }
        : { installed: false, install: "bun run tools, or set infra.language_server", fallback: "formatting by tofu fmt, validation by the HCL parser" },
      git: git ? { installed: true, path: git, version: gitVersion } : { installed: false, install: "apt-get install git" },
    };
    return {
      ready: binary !== undefined,
      tools,
      workspace_root: this.paths.root,
      workspace_root_writable: isWritable(this.paths.root),
      allow_apply: this.config.allow_apply,
      vcs: { api_base: this.fullConfig.vcs.api_base, token: tokenSource },
    };
  }

  /** The binary's version and, for a workspace, the provider versions its lock file selects. */
  async version(path: string): Promise<Versions> {
    const binary = requireBinary(this.config);
    const dir = this.paths.existing(path, "workspace");
    const version = jsonDocument(await output([binary.path, "version", "-json"])) as VersionResult;
    return {
      binary: { name: binary.name, path: binary.path, version: version.terraform_version, platform: version.platform },
      path: this.paths.relative(dir),
      providers: await lockedProviders(join(dir, ".terraform.lock.hcl")),
    };
  }

  /** Every folder under the root with configuration files: initialised, its backend, its state and last run. */
  async workspaceList(): Promise<WorkspaceList> {
    const workspaces: WorkspaceList["workspaces"] = [];
    for (const dir of configurationDirs(this.paths.root)) {
      const path = this.paths.relative(dir);
      workspaces.push({ path, initialised: isInitialised(dir), backend: await backendOf(dir), ...this.workspaces.view(path) });
    }
    return { root: this.paths.root, workspaces };
  }

  /** The configuration in a workspace folder (its local modules followed); a folder without .tf files is refused. */
  async configuration(path: string): Promise<{ dir: string; workspace: string; config: Configuration }> {
    const dir = this.paths.existing(path, "workspace");
    if (!statSync(dir).isDirectory()) throw new InfraError("INVALID_PATH", `${path} is a file; give the workspace folder`);
    if (!configurationFiles(dir).length) throw new InfraError("NOT_FOUND", `${this.paths.relative(dir)} has no .tf files`);
    return { dir, workspace: this.paths.relative(dir), config: await loadConfiguration(dir) };
  }

  async analyze(path: string): Promise<AnalysisResult> {
    const { workspace, config } = await this.configuration(path);
    return { path: workspace, ...analyzeConfiguration(config) };
  }

  /** One file's syntax and what it shows on its own; a syntax error is a finding here, with its line. */
  async fileCheck(path: string): Promise<FileCheck> {
    const file = this.paths.existing(path, "file");
    if (!statSync(file).isFile()) throw new InfraError("INVALID_PATH", `${path} is a folder; give a file`);
    if (!/\.(tf|tofu|tfvars|hcl)$/.test(file)) throw new InfraError("INVALID_ARGUMENT", `${path} is not an HCL file (.tf, .tofu, .tfvars, .hcl)`);
    const parsed = await parseHcl(this.paths.relative(file), readFileSync(file, "utf8"));
    const issues = fileIssues(parsed);
    const blocks: Record<string, number> = {};
    for (const block of parsed.body.blocks) blocks[block.type] = (blocks[block.type] ?? 0) + 1;
    return {
      path: parsed.path,
      valid: parsed.errors.length === 0,
      syntax_errors: parsed.errors,
      issues,
      score: scoreOf(issues),
      blocks,
    };
  }

  async workspaceInfo(path: string): Promise<WorkspaceInfo> {
    const { dir, workspace, config } = await this.configuration(path);
    const files = config.root.files.map((f) => {
      const text = readFileSync(join(dir, f.path), "utf8");
      return { name: f.path, bytes: Buffer.byteLength(text), lines: text.split("\n").length, blocks: f.body.blocks.length, syntax_errors: f.errors.length };
    });
    const stateFile = join(dir, "terraform.tfstate");
    let stateSummary: WorkspaceInfo["state_file"] = { present: false };
    if (existsSync(stateFile)) {
      const parsed = JSON.parse(readFileSync(stateFile, "utf8")) as { serial?: number; resources?: unknown[] };
      stateSummary = { present: true, serial: parsed.serial ?? null, resources: parsed.resources?.length ?? 0 };
    }
    return {
      path: workspace,
      initialised: isInitialised(dir),
      backend: config.root.backend ?? "local",
      required_version: config.root.requiredVersion ?? null,
      files,
      resources: config.resources.filter((r) => r.mode === "managed").map((r) => ({ address: r.instance, type: r.type, file: r.file, line: r.line })),
      data_sources: config.resources.filter((r) => r.mode === "data").map((r) => r.instance),
      modules: config.root.moduleCalls,
      providers: config.root.requiredProviders,
      variables: config.root.variables.map((v) => v.name),
      outputs: config.root.outputs.map((o) => o.name),
      state_file: stateSummary,
      lock_file: existsSync(join(dir, ".terraform.lock.hcl")),
      ...this.workspaces.view(workspace),
    };
  }

  /** Writes a starting project into a new or empty-of-these-files folder; refuses to overwrite anything. */
  workspaceSetup(path: string, name: string, provider: StarterProvider): Setup {
    const dir = this.paths.resolve(path);
    const files = starterFiles(name, provider);
    const taken = Object.keys(files).filter((file) => existsSync(join(dir, file)));
    if (taken.length) throw new InfraError("ALREADY_EXISTS", `${this.paths.relative(dir)} already has ${taken.join(", ")}; nothing was written`, { files: taken });
    mkdirSync(dir, { recursive: true });
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text, { flag: "wx" });
    return { path: this.paths.relative(dir), provider, files: Object.keys(files), next: ["infra action=init", "infra action=validate", "infra_analyze"] };
  }

  /** The security scan of a workspace; a file with syntax errors stops it, naming the file and line. */
  async securityScan(path: string, severity: string, format: "json" | "sarif"): Promise<SecurityScan> {
    const minimum = checkSeverity(severity);
    const { workspace, config } = await this.configuration(path);
    const broken = config.modules.flatMap((m) => m.files).find((f) => f.errors.length);
    if (broken) {
      const [first] = broken.errors;
      throw new InfraError("SYNTAX_ERROR", `${broken.path} line ${first!.line}: ${first!.message}; fix it before scanning`, { file: broken.path, line: first!.line });
    }
    const report = scan(config, minimum);
    if (format === "sarif") return { path: workspace, minimum_severity: minimum, summary: report.summary, sarif: toSarif(report, version) };
    return { path: workspace, minimum_severity: minimum, ...report };
  }

  async recommendations(path: string, focus: string): Promise<Recommendations> {
    const checked = checkFocus(focus);
    const { workspace, config } = await this.configuration(path);
    const list = recommend(config, checked);
    return { path: workspace, focus: checked, count: list.length, recommendations: list };
  }

  /** Cancels the runs under way and waits for them to end, then lets the workspaces go. */
  async stop(): Promise<void> {
    this.#shutdown.abort();
    await Promise.all(this.workspaces.busy().map((path) => this.workspaces.settled(path)));
    this.workspaces.stop();
    await this.lsp.stop();
  }
}

function checkSeverity(severity: string): Severity {
  if ((severities as readonly string[]).includes(severity)) return severity as Severity;
  throw new InfraError("INVALID_ARGUMENT", `unknown severity ${JSON.stringify(severity)}; allowed: ${severities.join(", ")}`);
}

const sha256 = (file: string) => createHash("sha256").update(readFileSync(file)).digest("hex");

function truncated(text: string, max: number): { text: string; truncated: boolean } {
  if (Buffer.byteLength(text) <= max) return { text, truncated: false };
  return { text: `[... cut; the whole output is in the log file ...]\n${tail(text, max)}`, truncated: true };
}

function progressMessage(line: string): string {
  if (line.startsWith("{")) {
    try {
      return String((JSON.parse(line) as { "@message"?: string })["@message"] ?? line).slice(0, 200);
    } catch {
      // plain text after all
    }
  }
  return line.slice(0, 200);
}

function safeParse(parse: (out: string, code: number) => ActionResult, out: string, code: number) {
  try {
    return parse(out, code);
  } catch {
    return undefined;
  }
}

function isWritable(dir: string): boolean {
  try {
    const probe = join(dir, `.write-probe-${process.pid}`);
    writeFileSync(probe, "");
    rmSync(probe);
    return true;
  } catch {
    return false;
  }
}

async function output(command: string[]): Promise<string> {
  const child = Bun.spawn(command, { stdin: "ignore", stdout: "pipe", stderr: "ignore", env: automationEnv() });
  const [text, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
  if (code !== 0) throw new InfraError("RUN_FAILED", `${command.join(" ")} failed with exit code ${code}`, { exitCode: code });
  return text;
}

async function firstLine(command: string[]): Promise<string | undefined> {
  try {
    return (await output(command)).split("\n").find((line) => line.trim())?.trim();
  } catch {
    return undefined;
  }
}

