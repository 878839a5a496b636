/**
 * The data dir, made ready before anything is written to it: created when missing, checked writable, and in
 * production private to the user who runs the server (0700; what is in it is 0600). A data dir that cannot be used
 * is reported with its path and the reason, not as the first failure of whatever wrote there first.
 */
import { accessSync, chmodSync, constants, mkdirSync, statSync } from "node:fs";
import { resolve } from "node:path";

export class DataDirUnusable extends Error {
  override name = "DataDirUnusable";
}

export function prepareDataDir(path: string, { production }: { production: boolean }): void {
  const where = `data dir ${path}${path === resolve(path) ? "" : ` (${resolve(path)})`}`;
  try {
    mkdirSync(path, { recursive: true, mode: production ? 0o700 : 0o777 });
    if (!statSync(path).isDirectory()) throw Object.assign(new Error("it is not a directory"), { code: "ENOTDIR" });
    accessSync(path, constants.W_OK | constants.X_OK);
    // A data dir made before, or by hand, is made private too: it holds the database and the keys.
    if (production) chmodSync(path, 0o700);
  } catch (error) {
    const { code, message } = error as NodeJS.ErrnoException;
    const why = code === "EACCES" || code === "EPERM" ? "permission denied" : code === "ENOTDIR" || code === "EEXIST" ? "it is not a directory" : code === "EROFS" ? "the file system is read-only" : message;
    throw new DataDirUnusable(`cannot use ${where}: ${why}; choose another with --data-dir or PLATFORM_DATA_DIR`);
  }
}
