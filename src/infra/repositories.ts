/**
 * Repositories on the host: listing and reading their configuration through the API, cloning them into the
 * workspace root (a clone is a run of the target folder's workspace), and readying the configurations a clone holds.
 */
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import type { Config } from "../config.ts";
import { analyzeConfiguration } from "./analyze.ts";
import { loadConfiguration } from "./configuration.ts";
import { InfraError } from "./errors.ts";
import { configurationDirs, isInitialised } from "./folders.ts";
import { parseHcl, type Expr } from "./hcl.ts";
import type { WorkspacePaths } from "./paths.ts";
import type { CallContext } from "./service.ts";
import { parseRepo, type RepositoryHost } from "./vcs.ts";
import type { Clone, Prepared, RepositoryConfiguration, RepositoryFiles, RunRecord } from "./views.ts";
import type { Workspaces } from "./workspaces.ts";

export interface RepositoryDeps {
  paths: WorkspacePaths;
  workspaces: Workspaces;
  host: RepositoryHost;
  config: Config["infra"];
  /** Runs `init` in a workspace, as the infra tool does. */
  init(path: string, context: CallContext): Promise<unknown>;
}

export class Repositories {
  readonly #paths: WorkspacePaths;
  readonly #workspaces: Workspaces;
  readonly #host: RepositoryHost;
  readonly #graceMs: number;
  readonly #init: RepositoryDeps["init"];

  constructor({ paths, workspaces, host, config, init }: RepositoryDeps) {
    this.#paths = paths;
    this.#workspaces = workspaces;
    this.#host = host;
    this.#graceMs = config.cancel_grace_ms;
    this.#init = init;
  }

  /** Where a repository is cloned: the given folder, or repos/<name>, inside the root. */
  #cloneTarget(name: string, path?: string): { dir: string; workspace: string } {
    const dir = this.#paths.resolve(path ?? `repos/${name}`);
    if (dir === this.#paths.root) throw new InfraError("INVALID_PATH", "clone into a folder below the workspace root, not the root itself");
    return { dir, workspace: this.#paths.relative(dir) };
  }

  async clone(input: { repo: string; branch?: string; path?: string; depth: number; force: boolean }, context: CallContext = {}): Promise<Clone> {
    const repo = parseRepo(input.repo);
    const url = /^https?:\/\//.test(input.repo) ? input.repo : (await this.#host.repository(repo, context.signal)).clone_url;
    const { dir, workspace } = this.#cloneTarget(repo.name, input.path);
    const { runId, logFile } = this.#workspaces.begin(workspace, "clone");
    const startedAt = Date.now();
    let record: RunRecord = { runId, action: "clone", outcome: "failed", exitCode: null, startedAt, finishedAt: startedAt, logFile };
    try {
      mkdirSync(dirname(dir), { recursive: true });
      await context.progress?.({ progress: 0, message: `cloning ${repo.owner}/${repo.name}` });
      const { commit } = await this.#host.clone(url, dir, { ...input, logFile, signal: context.signal, graceMs: this.#graceMs });
      record = { ...record, outcome: "succeeded", exitCode: 0, finishedAt: Date.now() };
      return { repo: `${repo.owner}/${repo.name}`, path: workspace, branch: input.branch ?? null, commit, shallow: input.depth > 0, log_file: logFile };
    } catch (error) {
      record = { ...record, error: (error as Error).message, finishedAt: Date.now(), outcome: error instanceof InfraError && error.code === "CANCELLED" ? "cancelled" : "failed" };
      throw error;
    } finally {
      this.#workspaces.finish(workspace, record);
    }
  }

  async listFiles(input: { repo: string; pattern: string; ref?: string }, context: CallContext = {}): Promise<RepositoryFiles> {
    const repo = parseRepo(input.repo);
    const { ref, files, truncated } = await this.#host.files(repo, input.ref, context.signal);
    const glob = new Bun.Glob(input.pattern);
    // A pattern without a slash is matched against file names, anywhere in the tree, as `*.tf` is meant.
    const matches = files.filter((f) => glob.match(input.pattern.includes("/") ? f.path : f.path.slice(f.path.lastIndexOf("/") + 1)));
    return { repo: `${repo.owner}/${repo.name}`, ref, pattern: input.pattern, count: matches.length, files: matches, truncated };
  }

  /** What a repository's configuration declares, read through the API without cloning it. */
  async iacConfig(input: { repo: string; ref?: string }, context: CallContext = {}): Promise<RepositoryConfiguration> {
    const repo = parseRepo(input.repo);
    const { ref, files } = await this.#host.files(repo, input.ref, context.signal);
    const iac = files.filter((f) => /\.(tf|tofu|tfvars)$|(^|\/)(\.terraform\.lock\.hcl|terragrunt\.hcl)$/.test(f.path));
    const dirs = [...new Set(iac.filter((f) => /\.(tf|tofu)$/.test(f.path)).map((f) => (f.path.includes("/") ? f.path.slice(0, f.path.lastIndexOf("/")) : ".")))].sort();
    const declared = iac.filter((f) => /\.(tf|tofu)$/.test(f.path) && f.size < 512 * 1024).slice(0, 50);
    const configs = await Promise.all(
      declared.map(async (file) => ({ file: file.path, parsed: await parseHcl(file.path, await this.#host.fileText(repo, file.path, ref, context.signal)) })),
    );
    const byDir = dirs.map((dir) => {
      const inDir = configs.filter((c) => (c.file.includes("/") ? c.file.slice(0, c.file.lastIndexOf("/")) : ".") === dir);
      const blocks = inDir.flatMap((c) => c.parsed.body.blocks.map((block) => ({ block, file: c.file })));
      const terraform = blocks.filter((b) => b.block.type === "terraform");
      return {
        path: dir,
        files: iac.filter((f) => (f.path.includes("/") ? f.path.slice(0, f.path.lastIndexOf("/")) : ".") === dir).map((f) => f.path),
        required_version: terraform.map((t) => text(t.block.body.attributes.get("required_version")?.expr)).find((v) => v !== undefined) ?? null,
        backend: terraform.flatMap((t) => t.block.body.blocks.filter((b) => b.type === "backend").map((b) => b.labels[0])).at(0) ?? null,
        providers: terraform.flatMap((t) => t.block.body.blocks.filter((b) => b.type === "required_providers").flatMap((b) => [...b.body.attributes.keys()])),
        modules: blocks
          .filter((b) => b.block.type === "module" && b.block.labels[0])
          .map((b) => ({ name: b.block.labels[0]!, source: text(b.block.body.attributes.get("source")?.expr) ?? null })),
        resources: blocks.filter((b) => b.block.type === "resource").length,
        syntax_errors: inDir.flatMap((c) => c.parsed.errors.map((e) => ({ file: c.file, line: e.line, message: e.message }))),
      };
    });
    return { repo: `${repo.owner}/${repo.name}`, ref, iac_files: iac.length, configurations: byDir };
  }

  /** Clones a repository and readies each configuration in it: analysed, and initialised when asked. */
  async prepare(input: { repo: string; branch?: string; path?: string; init: boolean; force: boolean }, context: CallContext = {}): Promise<Prepared> {
    const cloned = await this.clone({ ...input, depth: 1 }, context);
    const dirs = configurationDirs(this.#paths.resolve(cloned.path));
    const workspaces: Prepared["workspaces"] = [];
    for (const dir of dirs) {
      const path = this.#paths.relative(dir);
      const analysis = analyzeConfiguration(await loadConfiguration(dir));
      let init: Prepared["workspaces"][number]["init"];
      if (input.init) {
        try {
          await this.#init(path, context);
          init = { ok: true };
        } catch (error) {
          init = { ok: false, error: error instanceof InfraError ? `[${error.code}] ${error.message}` : (error as Error).message };
        }
      }
      workspaces.push({ path, score: analysis.score, issues: analysis.issues.length, resources: analysis.statistics.resources, initialised: isInitialised(dir), ...(init ? { init } : {}) });
    }
    return { ...cloned, workspaces, next: workspaces.length ? ["infra action=validate", "infra_security_scan", "infra action=plan"] : [] };
  }

}

/** A string written as a literal: what can be read of a configuration without evaluating it. */
const text = (expr: Expr | undefined) => (expr?.kind === "literal" && typeof expr.value === "string" ? expr.value : undefined);
