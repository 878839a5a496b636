/**
 * The repository host: GitHub's REST API through @octokit/rest at `vcs.api_base` (GitHub, GitHub Enterprise, or
 * Gitea's compatible API), and clones over HTTPS with the machine's git. The token comes from the vault or
 * VCS_TOKEN; it is handed to octokit in memory and to git through GIT_CONFIG_* environment variables (an
 * Authorization header scoped to the clone URL), so it never appears in a URL, a command line, a file or a log.
 */
import { existsSync, rmSync } from "node:fs";
import { dirname } from "node:path";
import type { Octokit } from "@octokit/rest";
import { findTool } from "../toolchain.ts";
import { InfraError } from "./errors.ts";
import { runProgram, tail } from "./run.ts";
import type { RepositoryFile } from "./views.ts";

export interface RepoRef {
  owner: string;
  name: string;
}

export interface VcsOptions {
  apiBase: string;
  token(): Promise<string | undefined>;
  cloneTimeoutMs: number;
}

/** `owner/name`, or a repository URL on the host (`https://host/owner/name(.git)`). */
export function parseRepo(repo: string): RepoRef {
  const match = /^(?:https?:\/\/[^/]+\/)?([A-Za-z0-9_.-]+)\/([A-Za-z0-9_.-]+?)(?:\.git)?\/?$/.exec(repo.trim());
  if (!match || match[1]!.startsWith(".") || match[2]!.startsWith("."))
    throw new InfraError("INVALID_ARGUMENT", `${JSON.stringify(repo)} is not a repository: give owner/name or its https URL`);
  return { owner: match[1]!, name: match[2]! };
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

export class RepositoryHost {
  constructor(private readonly options: VcsOptions) {}

  /** @octokit/rest loads with the first API call, not at start-up: most servers never make one. */
  async #client(signal?: AbortSignal): Promise<Octokit> {
    const { Octokit } = await import("@octokit/rest");
    return new Octokit({ auth: await this.options.token(), baseUrl: this.options.apiBase.replace(/\/+$/, ""), log: silent, request: { signal } });
  }

  /** Runs an API call; the host's refusals become errors that say what to do. */
  async #api<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      const status = (error as { status?: number }).status;
      if (status === 401) throw new InfraError("VCS_FAILED", `${what}: the repository host refused the token (401); check the vault's token or VCS_TOKEN`, { status });
      if (status === 403) throw new InfraError("VCS_FAILED", `${what}: forbidden (403), or the API rate limit is spent`, { status });
      if (status === 404) throw new InfraError("NOT_FOUND", `${what}: not found (or not visible with this token)`, { status });
      if (error instanceof InfraError) throw error;
      throw new InfraError("VCS_FAILED", `${what}: ${(error as Error).message}`, status ? { status } : {});
    }
  }

  async repository({ owner, name }: RepoRef, signal?: AbortSignal) {
    const { data } = await this.#api(`repository ${owner}/${name}`, async () => (await this.#client(signal)).rest.repos.get({ owner, repo: name }));
    return { full_name: data.full_name, default_branch: data.default_branch, clone_url: data.clone_url, private: data.private, html_url: data.html_url };
  }

  /** Every file of the repository at `ref` (the default branch when left out). */
  async files(repo: RepoRef, ref?: string, signal?: AbortSignal): Promise<{ ref: string; files: RepositoryFile[]; truncated: boolean }> {
    const branch = ref ?? (await this.repository(repo, signal)).default_branch;
    const { data } = await this.#api(`tree of ${repo.owner}/${repo.name}@${branch}`, async () =>
      (await this.#client(signal)).rest.git.getTree({ owner: repo.owner, repo: repo.name, tree_sha: branch, recursive: "1" }),
    );
    return {
      ref: branch,
      files: data.tree.filter((entry) => entry.type === "blob" && entry.path).map((entry) => ({ path: entry.path!, size: entry.size ?? 0 })),
      truncated: data.truncated,
    };
  }

  async fileText(repo: RepoRef, path: string, ref: string, signal?: AbortSignal): Promise<string> {
    const { data } = await this.#api(`${path} in ${repo.owner}/${repo.name}`, async () =>
      (await this.#client(signal)).rest.repos.getContent({ owner: repo.owner, repo: repo.name, path, ref }),
    );
    if (Array.isArray(data) || data.type !== "file" || !("content" in data)) throw new InfraError("INVALID_ARGUMENT", `${path} is not a file`);
    return Buffer.from(data.content, (data.encoding as BufferEncoding) || "base64").toString("utf8");
  }

  /**
   * Clones `url` into `dir` (which must not exist, or is removed first with `force`): shallow unless depth is 0, on
   * `branch` when given. The remote URL recorded in the clone is the plain one.
   */
  async clone(url: string, dir: string, options: { branch?: string; depth: number; force: boolean; logFile: string; signal?: AbortSignal; graceMs: number }) {
    const git = findTool("git");
    if (!git) throw InfraError.missingTool("git", "apt-get install git");
    const parsed = new URL(url);
    if (parsed.protocol !== "https:" && parsed.protocol !== "http:") throw new InfraError("INVALID_ARGUMENT", `${url} is not an http(s) URL`);
    if (parsed.username || parsed.password) throw new InfraError("INVALID_ARGUMENT", "the clone URL may not carry credentials; the token comes from the vault or VCS_TOKEN");
    if (existsSync(dir)) {
      if (!options.force) throw new InfraError("ALREADY_EXISTS", `${dir} already exists; pass force: true to clone it afresh`);
      rmSync(dir, { recursive: true, force: true });
    }
    const token = await this.options.token();
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      GIT_TERMINAL_PROMPT: "0",
      GIT_ASKPASS: "/bin/false",
      GIT_CONFIG_NOSYSTEM: "1",
    };
    if (token) {
      // Scoped to the clone's origin, so a redirect elsewhere never receives it.
      env.GIT_CONFIG_COUNT = "1";
      env.GIT_CONFIG_KEY_0 = `http.${parsed.origin}/.extraHeader`;
      env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
    }
    const command = [git, "clone", "--no-tags", ...(options.depth > 0 ? [`--depth=${options.depth}`] : []), ...(options.branch ? ["--branch", options.branch, "--single-branch"] : []), "--", url, dir];
    const result = await runProgram({ command, cwd: dirname(dir), env, logFile: options.logFile, timeoutMs: this.options.cloneTimeoutMs, graceMs: options.graceMs, signal: options.signal });
    if (result.exitCode !== 0) {
      rmSync(dir, { recursive: true, force: true });
      throw new InfraError("VCS_FAILED", `git clone failed with exit code ${result.exitCode}`, { exitCode: result.exitCode, stderrTail: tail(result.stderr), logFile: options.logFile });
    }
    const head = Bun.spawnSync([git, "-C", dir, "rev-parse", "HEAD"], { stdout: "pipe", stderr: "ignore" });
    return { commit: head.stdout.toString().trim() };
  }
}
