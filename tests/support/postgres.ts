/**
 * Throwaway PostgreSQL servers for tests: Debian's server, installed by the project's tool script, initialised in
 * a temp folder (initdb) and listening on a free loopback port. Never a mock. Each test file starts one (lazily,
 * on first use) and every runtime in it gets a database of its own; the server and its folder are removed after.
 */
import { afterAll } from "bun:test";
import { chownSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { requireTool } from "./tools.ts";
import { tempDir } from "./temp.ts";

export interface PostgresServer {
  port: number;
  /** The URL of the `postgres` database, for administration. */
  adminUrl: string;
  /** A new, empty database's URL. */
  database(): Promise<string>;
  /** Stops the server (fast shutdown: sessions are ended, nothing committed is lost). */
  stop(): Promise<void>;
  /** Starts it again on the same port and data, after `stop`. */
  start(): Promise<void>;
  /** Stops it for good and removes its folder. */
  remove(): Promise<void>;
}

const user = "platform";
let databases = 0;

/** One server for the calling test file, started on first use and removed when the file's tests are done. */
export function postgresForFile(): () => Promise<PostgresServer> {
  let server: Promise<PostgresServer> | undefined;
  afterAll(async () => {
    if (server) await (await server).remove();
  });
  return () => (server ??= startPostgres());
}

export async function startPostgres(): Promise<PostgresServer> {
  const initdb = requireTool("initdb");
  const postgres = requireTool("postgres");
  const dir = tempDir();
  const data = join(dir.path, "data");
  // PostgreSQL refuses to run as root: as root (CI, containers), the server runs as the package's postgres user.
  const asUser = process.getuid?.() === 0 ? ownedBy("postgres", dir.path) : [];
  const init = Bun.spawn([...asUser, initdb, "-D", data, "-A", "trust", "-U", user, "-E", "UTF8", "--locale=C", "--no-sync"], { stdout: "pipe", stderr: "pipe" });
  if ((await init.exited) !== 0) throw new Error(`initdb failed: ${await new Response(init.stderr).text()}`);
  const port = await freePort();
  let proc: ReturnType<typeof Bun.spawn> | undefined;
  const start = async () => {
    proc = Bun.spawn(
      [
        ...asUser,
        postgres,
        "-D", data,
        "-p", String(port),
        "-k", dir.path,
        "-c", "listen_addresses=127.0.0.1",
        // A throwaway server: durability costs time and proves nothing here.
        "-c", "fsync=off",
        "-c", "full_page_writes=off",
        "-c", "max_connections=300",
      ],
      { stdout: "ignore", stderr: "pipe" },
    );
    await readyOn(proc.stderr as ReadableStream<Uint8Array>, proc.exited);
  };
  await start();
  const adminUrl = `postgres://${user}@127.0.0.1:${port}/postgres`;
  return {
    port,
    adminUrl,
    async database() {
      const name = `test_${process.pid}_${++databases}`;
      const admin = new Bun.SQL(adminUrl, { max: 1 });
      try {
        await admin.unsafe(`CREATE DATABASE ${name}`);
      } finally {
        await admin.close();
      }
      return `postgres://${user}@127.0.0.1:${port}/${name}`;
    },
    async stop() {
      proc?.kill("SIGINT");
      await proc?.exited;
      proc = undefined;
    },
    start,
    async remove() {
      proc?.kill("SIGINT");
      await proc?.exited;
      dir.remove();
    },
  };
}

/** The command prefix that runs a program as `name`, with `dir` made theirs. */
function ownedBy(name: string, dir: string): string[] {
  const id = (flag: string) => Number(Bun.spawnSync(["id", flag, name]).stdout.toString().trim());
  chownSync(dir, id("-u"), id("-g"));
  mkdirSync(join(dir, "data"), { recursive: true });
  chownSync(join(dir, "data"), id("-u"), id("-g"));
  // setpriv execs the program itself (runuser would stay its parent and keep signals from it).
  return [requireTool("setpriv"), `--reuid=${id("-u")}`, `--regid=${id("-g")}`, "--init-groups"];
}

/** A port nothing listens on now: the kernel's pick for a socket bound to port 0, which is closed again. */
async function freePort(): Promise<number> {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

/** Resolves when the server logs that it accepts connections; rejects with its log if it exits first. */
async function readyOn(stderr: ReadableStream<Uint8Array>, exited: Promise<number>): Promise<void> {
  const decoder = new TextDecoder();
  let log = "";
  const reader = stderr.getReader();
  const ready = (async () => {
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      log += decoder.decode(read.value, { stream: true });
      if (log.includes("database system is ready to accept connections")) {
        // Keep draining, so a chatty server never blocks on a full pipe.
        void (async () => {
          while (!(await reader.read()).done);
        })();
        return;
      }
    }
    throw new Error(`postgres exited before it was ready:\n${log}`);
  })();
  const early = exited.then((code) => Promise.reject(new Error(`postgres exited with ${code}:\n${log}`)));
  early.catch(() => {}); // once it is ready, a later exit is the test's own doing
  await Promise.race([ready, early]);
}
