/**
 * The workspace root and the paths inside it. Every path a tool is given is resolved here: a relative path from
 * the root, an absolute one only when it lies inside. `..` out of the root, NUL bytes and symlinks whose target
 * lies outside are refused before anything is read or written.
 */
import { existsSync, lstatSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import type { Config } from "../config.ts";
import { InfraError } from "./errors.ts";

/** The configured root; else the original server's /mnt/workspace when it exists; else `<data_dir>/workspace`. */
export const workspaceRootOf = (config: Config, mounted = "/mnt/workspace"): string =>
  resolve(config.infra.workspace_root || (existsSync(mounted) ? mounted : join(config.data_dir, "workspace")));

export class WorkspacePaths {
  constructor(readonly root: string) {}

  /**
   * The absolute path `path` names inside the root (`""` and `.` are the root itself). It need not exist; the
   * part of it that does must not lead outside through a symlink.
   */
  resolve(path: string): string {
    if (path.includes("\0")) throw new InfraError("INVALID_PATH", "the path contains a NUL byte");
    const absolute = resolve(this.root, path);
    if (!this.#inside(this.root, absolute))
      throw new InfraError("INVALID_PATH", `${JSON.stringify(path)} lies outside the workspace root; give a path relative to it`);
    const real = realExisting(absolute);
    if (!this.#inside(realExisting(this.root), real))
      throw new InfraError("INVALID_PATH", `${JSON.stringify(path)} leads outside the workspace root through a symlink`);
    return absolute;
  }

  /** `path` relative to the root, with forward slashes; `.` for the root. */
  relative(absolute: string): string {
    return relative(this.root, absolute).split(sep).join("/") || ".";
  }

  /** Resolves a path that must exist. */
  existing(path: string, what = "path"): string {
    const absolute = this.resolve(path);
    if (!existsSync(absolute)) throw new InfraError("NOT_FOUND", `${what} ${JSON.stringify(path)} does not exist in the workspace root`);
    return absolute;
  }

  #inside(root: string, path: string): boolean {
    const rel = relative(root, path);
    return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
  }
}

/**
 * The real path of `path`'s longest existing prefix, with the rest appended: symlinks resolved as far as they
 * exist. A dangling symlink on the way is refused, since writing through it would create its target.
 */
function realExisting(path: string): string {
  let existing = path;
  const rest: string[] = [];
  while (!lstatSync(existing, { throwIfNoEntry: false })) {
    const parent = dirname(existing);
    if (parent === existing) break;
    rest.unshift(basename(existing));
    existing = parent;
  }
  try {
    return join(realpathSync(existing), ...rest);
  } catch {
    throw new InfraError("INVALID_PATH", `${existing} is a symlink whose target does not exist`);
  }
}
