/**
 * A repository host on loopback for the VCS tests: Debian git's own git-http-backend (smart HTTP, as a CGI program)
 * serving bare repositories, and a stand-in of GitHub's REST API for the calls the infra server makes, answering in
 * GitHub's wire format (per docs.github.com/rest: repos/get, git/get-tree, repos/get-content). Both demand the token.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Server } from "bun";

const backend = "/usr/lib/git-core/git-http-backend";

export interface GitHost {
  url: string;
  /** Each request's path and Authorization header, git's and the API's alike. */
  seen: { path: string; authorization: string | null }[];
  /** Makes a bare repository `owner/name` from files, with a second branch when given. */
  repository(owner: string, name: string, files: Record<string, string>, branches?: Record<string, Record<string, string>>): void;
  stop(): void;
}

const git = (args: string[], cwd: string) => {
  const result = Bun.spawnSync(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" } });
  if (result.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${result.stderr.toString()}`);
  return result.stdout;
};

export function startGitHost(root: string, token: string): GitHost {
  const seen: GitHost["seen"] = [];
  const repos = join(root, "repos");
  mkdirSync(repos, { recursive: true });
  const basic = `Basic ${Buffer.from(`x-access-token:${token}`).toString("base64")}`;
  let server: Server<undefined>;

  const api = (url: URL, request: Request): Response => {
    const auth = request.headers.get("authorization");
    if (auth !== `token ${token}` && auth !== `Bearer ${token}`)
      return Response.json({ message: "Bad credentials", documentation_url: "https://docs.github.com/rest" }, { status: 401 });
    const match = /^\/repos\/([^/]+)\/([^/]+)(\/.*)?$/.exec(url.pathname);
    if (!match) return notFound();
    const [, owner, name, rest = ""] = match;
    const bare = join(repos, owner!, `${name}.git`);
    if (!Bun.file(join(bare, "HEAD")).size) return notFound();
    const head = git(["symbolic-ref", "--short", "HEAD"], bare).toString().trim();
    if (rest === "")
      return Response.json({
        id: 1,
        name,
        full_name: `${owner}/${name}`,
        private: true,
        default_branch: head,
        html_url: `${server.url}${owner}/${name}`,
        clone_url: `${server.url}git/${owner}/${name}.git`,
        owner: { login: owner },
      });
    const tree = /^\/git\/trees\/(.+)$/.exec(rest);
    if (tree) {
      const ref = decodeURIComponent(tree[1]!);
      const listing = git(["ls-tree", "-r", "-l", "-t", ref], bare).toString().trim().split("\n").filter(Boolean);
      return Response.json({
        sha: git(["rev-parse", ref], bare).toString().trim(),
        url: `${server.url}repos/${owner}/${name}/git/trees/${ref}`,
        tree: listing.map((line) => {
          const [meta, path] = line.split("\t");
          const [mode, type, sha, size] = meta!.split(/\s+/);
          return { path, mode, type, sha, ...(type === "blob" ? { size: Number(size) } : {}) };
        }),
        truncated: false,
      });
    }
    const contents = /^\/contents\/(.+)$/.exec(rest);
    if (contents) {
      const path = decodeURIComponent(contents[1]!);
      const ref = url.searchParams.get("ref") ?? head;
      let text: Uint8Array;
      try {
        text = git(["show", `${ref}:${path}`], bare);
      } catch {
        return notFound();
      }
      return Response.json({ type: "file", encoding: "base64", size: text.length, name: path.split("/").at(-1), path, content: Buffer.from(text).toString("base64"), sha: "0" });
    }
    return notFound();
  };

  /** git's smart HTTP protocol, through git-http-backend as CGI. */
  const smartHttp = async (url: URL, request: Request): Promise<Response> => {
    if (request.headers.get("authorization") !== basic) return new Response("authentication required", { status: 401, headers: { "www-authenticate": 'Basic realm="git"' } });
    const child = Bun.spawn([backend], {
      env: {
        GIT_PROJECT_ROOT: repos,
        GIT_HTTP_EXPORT_ALL: "1",
        REQUEST_METHOD: request.method,
        PATH_INFO: url.pathname.slice("/git".length),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: request.headers.get("content-type") ?? "",
        REMOTE_USER: "x-access-token",
        REMOTE_ADDR: "127.0.0.1",
        HTTP_GIT_PROTOCOL: request.headers.get("git-protocol") ?? "",
      },
      stdin: request.body ? new Uint8Array(await request.arrayBuffer()) : "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const output = Buffer.from(await new Response(child.stdout).arrayBuffer());
    await child.exited;
    const split = output.indexOf("\r\n\r\n");
    const headerText = output.subarray(0, split).toString();
    const headers = new Headers();
    let status = 200;
    for (const line of headerText.split("\r\n")) {
      const [key, ...value] = line.split(":");
      if (key!.toLowerCase() === "status") status = Number.parseInt(value.join(":").trim(), 10);
      else headers.set(key!, value.join(":").trim());
    }
    return new Response(output.subarray(split + 4), { status, headers });
  };

  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      seen.push({ path: url.pathname + url.search, authorization: request.headers.get("authorization") });
      return url.pathname.startsWith("/git/") ? smartHttp(url, request) : api(url, request);
    },
  });

  return {
    url: server.url.href.replace(/\/$/, ""),
    seen,
    repository(owner, name, files, branches = {}) {
      const work = join(root, "work", owner, name);
      const commit = (content: Record<string, string>, message: string) => {
        for (const [path, text] of Object.entries(content)) {
          mkdirSync(dirname(join(work, path)), { recursive: true });
          writeFileSync(join(work, path), text);
        }
        git(["add", "-A"], work);
        git(["commit", "-q", "-m", message], work);
      };
      mkdirSync(work, { recursive: true });
      git(["init", "-q", "-b", "main"], work);
      commit(files, "first");
      commit({ "CHANGELOG.md": "second commit\n" }, "second");
      for (const [branch, content] of Object.entries(branches)) {
        git(["checkout", "-q", "-b", branch], work);
        commit(content, branch);
        git(["checkout", "-q", "main"], work);
      }
      mkdirSync(join(repos, owner), { recursive: true });
      git(["clone", "-q", "--bare", work, join(repos, owner, `${name}.git`)], root);
    },
    stop: () => server.stop(true),
  };
}

const notFound = () => Response.json({ message: "Not Found", documentation_url: "https://docs.github.com/rest" }, { status: 404 });
