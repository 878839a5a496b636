/**
 * One owning process per data dir. The process that owns a data dir (`serve`) restores and runs its actors; two
 * owners would both run them. The lock is a file made exclusively (O_EXCL) holding the owner's pid and the start
 * time the kernel gives that process, so a lock left by a process that died is recognised as stale and taken
 * over (a reused pid has another start time), like PostgreSQL's postmaster.pid.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from "node:fs";
import { join } from "node:path";

export class DataDirInUse extends Error {
  override name = "DataDirInUse";
}

export interface DataDirLock {
  release(): void;
}

interface Holder {
  pid: number;
  started: string | null;
}

export function lockDataDir(dataDir: string): DataDirLock {
  const path = join(dataDir, "platform.lock");
  const me: Holder = { pid: process.pid, started: startTimeOf(process.pid) };
  // Twice at most: the second attempt follows the removal of a stale lock (a racer may win it; then we refuse).
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(path, "wx", 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      const holder = readHolder(path);
      if (holder && alive(holder))
        throw new DataDirInUse(
          `data dir ${dataDir} is in use by another platform server (pid ${holder.pid}); stop it, or give this one its own --data-dir`,
        );
      rmSync(path, { force: true });
      continue;
    }
    writeSync(fd, JSON.stringify(me));
    closeSync(fd);
    return {
      release() {
        // Only our own lock: after a takeover it may be someone else's.
        if (readHolder(path)?.pid === me.pid) rmSync(path, { force: true });
      },
    };
  }
  throw new DataDirInUse(`data dir ${dataDir} is being taken by another platform server at the same moment`);
}

function readHolder(path: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(path, "utf8")) as Holder;
    return Number.isInteger(holder.pid) ? holder : undefined;
  } catch {
    return undefined; // unreadable or half-written: treated as stale
  }
}

function alive({ pid, started }: Holder): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: it exists, under another user.
    if ((error as NodeJS.ErrnoException).code !== "EPERM") return false;
  }
  // The pid is taken: by the holder itself only if the process started when the holder did.
  return started === null || startTimeOf(pid) === started;
}

/** The process's start time in clock ticks since boot (Linux /proc), or null where there is no /proc. */
function startTimeOf(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces and parentheses): the start time is the 20th.
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}
