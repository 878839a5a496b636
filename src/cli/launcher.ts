/**
 * How to start this program again later, for configuration that outlives this run (`platform mcp install`): the
 * compiled executable itself, or Bun with this entry point. A package runner's cache (npx, bunx, pnpm dlx, yarn
 * dlx) is not a place to point at: it is emptied now and then. A Bun that runs from there is replaced by the same
 * version of Bun found on PATH, else by `npx -y bun@<version>`, which fetches it again when the cache is gone.
 */
import { delimiter, sep } from "node:path";
import { UsageError } from "./verb.ts";

/** Paths inside the caches of npx (`_npx/<hash>`), bunx (`bunx-<uid>-<package>`), pnpm dlx (`dlx/`) and yarn dlx (`dlx-<pid>`). */
const runnerCache = /[\\/](?:_npx|bunx-\d+-[^\\/]+|dlx|dlx-\d+)[\\/]/;
export const inRunnerCache = (path: string) => runnerCache.test(path);

export function launcher({ main = Bun.main, execPath = process.execPath, path = process.env.PATH ?? "" } = {}): string[] {
  const compiled = main.startsWith("/$bunfs/") || !main.endsWith(".ts");
  if (compiled) {
    if (inRunnerCache(execPath)) throw new UsageError(`this executable (${execPath}) is in a package runner's cache, which is emptied now and then; copy it somewhere that stays and run install from there`);
    return [execPath];
  }
  if (inRunnerCache(main)) throw new UsageError(`this copy of the platform (${main}) is in a package runner's cache, which is emptied now and then; run install from a checkout, or from the compiled executable`);
  return [...bun(execPath, path), main];
}

/** A Bun of this version that stays where it is. */
function bun(execPath: string, path: string): string[] {
  if (!inRunnerCache(execPath)) return [execPath];
  // A runner puts its cache's bin folder first on PATH: look past it.
  const lasting = path
    .split(delimiter)
    .filter((dir) => dir && !inRunnerCache(`${dir}${sep}`))
    .join(delimiter);
  const onPath = Bun.which("bun", { PATH: lasting });
  if (onPath && versionOf(onPath) === Bun.version) return [onPath];
  if (Bun.which("npx", { PATH: lasting })) return ["npx", "-y", `bun@${Bun.version}`];
  throw new UsageError(`Bun runs from a package runner's cache here (${execPath}), and no Bun ${Bun.version} or npx is on PATH to start it later; install Bun ${Bun.version}, or use the compiled executable`);
}

function versionOf(executable: string): string | undefined {
  const run = Bun.spawnSync([executable, "--version"], { stdout: "pipe", stderr: "ignore" });
  return run.exitCode === 0 ? run.stdout.toString().trim() : undefined;
}
