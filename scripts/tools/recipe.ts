/**
 * How the install script gets a tool: a recipe names the tool and its version, says how to tell it is there, and
 * installs it into a fresh folder of the cache. Only the machine's registries are used: Debian's packages, the Go
 * module proxy, PyPI and npm. Nothing here downloads from anywhere else.
 */
import { existsSync, mkdirSync, rmSync, renameSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface Recipe {
  name: string;
  /** The pinned version; the cache keeps one folder per version, so a change of pin installs afresh. */
  version: string;
  /** What the tool is for, printed while it installs. */
  purpose: string;
  /**
   * Installs into `dir` (empty, removed again if this throws) and returns the executables it provides,
   * by name, as paths inside `dir` or absolute paths (a Debian package's). Each gets a link in `<home>/bin`.
   */
  install(dir: string): Promise<Record<string, string>>;
}

/** Runs a command to completion, streaming its output to stderr; throws with its exit code. */
export async function run(cmd: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<void> {
  const child = Bun.spawn(cmd, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdout: "inherit", stderr: "inherit", stdin: "ignore" });
  const code = await child.exited;
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited with ${code}`);
}

let aptUpdated = false;

/** Runs a command to completion and returns its stdout; its stderr streams through; throws with its exit code. */
async function output(cmd: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<string> {
  const child = Bun.spawn(cmd, { cwd: options.cwd, env: { ...process.env, ...options.env }, stdout: "pipe", stderr: "inherit", stdin: "ignore" });
  const [code, text] = await Promise.all([child.exited, new Response(child.stdout).text()]);
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited with ${code}`);
  return text;
}

/** Debian packages, installed with apt-get when any of `binaries` is missing (root, as CI machines are). */
export const debian = (name: string, packages: string[], binaries: Record<string, string>, purpose: string): Recipe => ({
  name,
  version: "debian",
  purpose,
  async install() {
    if (Object.values(binaries).some((path) => !existsSync(path))) {
      if (!aptUpdated) await run(["apt-get", "update"]);
      aptUpdated = true;
      await run(["apt-get", "install", "-y", "--no-install-recommends", ...packages], { env: { DEBIAN_FRONTEND: "noninteractive" } });
    }
    const missing = Object.entries(binaries).find(([, path]) => !existsSync(path));
    if (missing) throw new Error(`${packages.join(" ")} installed, yet ${missing[1]} is missing`);
    return binaries;
  },
});

/** A Go module's command, built from the module proxy with the machine's Go: `go install module@version`. */
export const goInstall = (name: string, module: string, version: string, purpose: string): Recipe => ({
  name,
  version,
  purpose,
  async install(dir) {
    await run(["go", "install", `${module}@${version}`], { env: { GOBIN: join(dir, "bin"), CGO_ENABLED: "0" } });
    return { [name]: join(dir, "bin", name) };
  },
});

/**
 * A Go command from a module whose go.mod has `replace` lines, which `go install module@version` refuses (OpenTofu):
 * a throwaway module requires it at the release, repeats that release's `replace` lines, and builds the command.
 */
export const goBuild = (
  name: string,
  { module, version, command }: { module: string; version: string; command: string },
  purpose: string,
): Recipe => ({
  name,
  version,
  purpose,
  async install(dir) {
    const build = join(dir, "build");
    mkdirSync(build);
    const env = { CGO_ENABLED: "0", GOFLAGS: "-mod=mod" };
    await run(["go", "mod", "init", `local/build-${name}`], { cwd: build, env });
    const downloaded = JSON.parse(await output(["go", "mod", "download", "-json", `${module}@${version}`], { cwd: build, env }));
    for (const [from, to] of replaceLines(await Bun.file(downloaded.GoMod).text()))
      await run(["go", "mod", "edit", `-replace=${from}=${to}`], { cwd: build, env });
    await run(["go", "get", `${command}@${version}`], { cwd: build, env });
    await run(["go", "build", "-trimpath", "-o", join(dir, "bin", name), command], { cwd: build, env });
    rmSync(build, { recursive: true, force: true });
    return { [name]: join(dir, "bin", name) };
  },
});

/** The `replace` directives of a go.mod, single or in a block, as `path[@version]` pairs for `go mod edit`. */
export function replaceLines(goMod: string): [string, string][] {
  const directives = [...goMod.matchAll(/^replace\s+\(([^)]*)\)/gm)].flatMap((block) => block[1]!.split("\n"));
  directives.push(...[...goMod.matchAll(/^replace\s+([^(\s].*)$/gm)].map((line) => line[1]!));
  return directives
    .map((line) => line.replace(/\/\/.*$/, "").trim())
    .filter(Boolean)
    .map((line) => {
      const [left, right] = line.split("=>").map((side) => side.trim().split(/\s+/));
      const at = (parts: string[]) => (parts[1] ? `${parts[0]}@${parts[1]}` : parts[0]!);
      return [at(left!), at(right!)];
    });
}

/**
 * A Python package's console scripts, in a virtual environment of its own: `pip install package==version`. A venv's
 * scripts name its python by absolute path, which the move out of the scratch folder breaks, so each script gets
 * a launcher that runs it with the venv's python wherever the venv now lives. A library with no scripts is reached
 * through the venv's python itself, under the name `python` gets in `scripts` (`{ python: "prometheus-python" }`).
 */
export const pythonVenv = (name: string, pkg: string, version: string, scripts: (string | { python: string })[], purpose: string): Recipe => ({
  name,
  version,
  purpose,
  async install(dir) {
    const python = Bun.which("python3") ?? Bun.which("python");
    if (!python) throw new Error(`python3 is needed to install ${name}`);
    const venv = join(dir, "venv");
    await run([python, "-m", "venv", venv]);
    await run([join(venv, "bin", "pip"), "install", "--quiet", "--disable-pip-version-check", `${pkg}==${version}`]);
    mkdirSync(join(dir, "bin"));
    return Object.fromEntries(
      scripts.map((script) => {
        const bin = typeof script === "string" ? script : script.python;
        const launcher = join(dir, "bin", bin);
        const target = typeof script === "string" ? ` "$venv/bin/${script}"` : "";
        writeFileSync(launcher, `#!/bin/sh\nvenv="$(dirname "$(readlink -f "$0")")/../venv"\nexec "$venv/bin/python"${target} "$@"\n`, { mode: 0o755 });
        return [bin, launcher];
      }),
    );
  },
});

/**
 * Packages from the npm registry, installed with npm into the recipe's folder; `binaries` are paths inside its
 * folder. A binary may be a script (a file of `wrappers`, written into the folder) for a package whose entry must be
 * run by an executable from another package, such as a Node.js of a given version; the folder is renamed once
 * installed, so a script finds its neighbours from its own resolved path.
 */
export const npmPackages = (
  name: string,
  version: string,
  packages: string[],
  binaries: Record<string, string>,
  purpose: string,
  wrappers: Record<string, string> = {},
): Recipe => ({
  name,
  version,
  purpose,
  async install(dir) {
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `platform-tool-${name}`, private: true }));
    await run(["npm", "install", "--no-audit", "--no-fund", "--save-exact", ...packages], { cwd: dir });
    for (const [file, script] of Object.entries(wrappers)) writeFileSync(join(dir, file), script, { mode: 0o755 });
    return Object.fromEntries(Object.entries(binaries).map(([bin, path]) => [bin, join(dir, path)]));
  },
});

/**
 * Installs `recipe` unless its version is already in the cache under `home`; links its executables into
 * `<home>/bin`. Returns whether it installed anything.
 */
export async function ensure(recipe: Recipe, home: string): Promise<boolean> {
  const dir = join(home, recipe.name, recipe.version);
  const marker = join(dir, ".installed.json");
  if (existsSync(marker)) {
    const binaries: Record<string, string> = await Bun.file(marker).json();
    if (Object.values(binaries).every((path) => existsSync(path))) {
      link(home, binaries);
      return false;
    }
  }
  // Built in a scratch folder and moved into place whole, so an interrupted install never looks finished.
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  try {
    const provided = await recipe.install(scratch);
    rmSync(dir, { recursive: true, force: true });
    renameSync(scratch, dir);
    const binaries = Object.fromEntries(Object.entries(provided).map(([bin, path]) => [bin, path.startsWith(scratch) ? dir + path.slice(scratch.length) : path]));
    writeFileSync(marker, JSON.stringify(binaries, null, 2));
    link(home, binaries);
    return true;
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}

function link(home: string, binaries: Record<string, string>): void {
  mkdirSync(join(home, "bin"), { recursive: true });
  for (const [name, target] of Object.entries(binaries)) {
    const path = join(home, "bin", name);
    rmSync(path, { force: true });
    symlinkSync(target, path);
  }
}
