/** One server per port and per data dir: a second is refused at once, with the reason, and the first goes on. */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { platform, serve, sourceCommand } from "./support/cli.ts";
import { tempDir } from "./support/temp.ts";

const dir = tempDir();
afterAll(() => dir.remove());
const quietSetup = { PLATFORM_VAULT__SETUP_PORT: "0" };

/** Runs `serve` to its exit, which must come by itself. */
async function refused(args: string[]) {
  const proc = platform(["serve", ...args], { env: quietSetup });
  const [stderr, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  return { stderr, code };
}

test("a second server on a port in use exits non-zero saying so; the first keeps every connection", async () => {
  const first = await serve(join(dir.path, "one"), { env: quietSetup });
  try {
    const port = new URL(first.url).port;
    const second = await refused(["--host", "127.0.0.1", "--port", port, "--data-dir", join(dir.path, "two")]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`cannot listen on 127.0.0.1:${port}`);
    expect(second.stderr).toContain("EADDRINUSE");
    // Nothing split: every request reaches the first server, whose data dir is the only one served.
    for (let i = 0; i < 10; i++) expect((await fetch(`${first.url}/health`)).status).toBe(200);
    expect(existsSync(join(dir.path, "two", "platform.lock"))).toBe(false);
  } finally {
    expect(await first.stop()).toBe(0);
  }
});

test("an address this machine does not have is refused with the reason", async () => {
  // 192.0.2.1 is TEST-NET-1: documentation only, never a local address.
  const { code, stderr } = await refused(["--host", "192.0.2.1", "--port", "0", "--data-dir", join(dir.path, "nowhere")]);
  expect(code).toBe(1);
  expect(stderr).toContain("cannot listen on 192.0.2.1:0");
});

test("a second server on a data dir in use is refused at once, naming the dir and the other process; a dead owner's lock is taken over", async () => {
  const dataDir = join(dir.path, "shared");
  const first = await serve(dataDir, { env: quietSetup });
  try {
    const second = await refused(["--host", "127.0.0.1", "--port", "0", "--data-dir", dataDir]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`data dir ${dataDir} is in use by another platform server (pid ${first.proc.pid})`);
    expect((await fetch(`${first.url}/health`)).status).toBe(200);
  } finally {
    expect(await first.stop("SIGKILL")).not.toBe(0);
  }
  // Killed, the first left its lock behind: it is stale, and the next server takes over.
  expect(existsSync(join(dataDir, "platform.lock"))).toBe(true);
  const next = await serve(dataDir, { env: quietSetup });
  expect((await fetch(`${next.url}/health`)).status).toBe(200);
  expect(await next.stop()).toBe(0);
  expect(existsSync(join(dataDir, "platform.lock"))).toBe(false);
});

test("a lock naming a live process that is not the owner it says (a reused pid) is stale", async () => {
  const dataDir = join(dir.path, "reused");
  const first = await serve(dataDir, { env: quietSetup });
  await first.stop();
  // This test process is alive, but it did not start when the lock says its holder did.
  writeFileSync(join(dataDir, "platform.lock"), JSON.stringify({ pid: process.pid, started: "1" }));
  const next = await serve(dataDir, { env: quietSetup });
  expect(await next.stop()).toBe(0);
});

test("start-up says which URLs are live and how to stop: JSON when stderr is no terminal", async () => {
  const server = await serve(join(dir.path, "urls"), { env: quietSetup });
  try {
    const line = JSON.parse(server.lines.find((l) => l.includes('"message":"listening"'))!);
    const base = server.url;
    expect(line).toMatchObject({ stop: expect.stringContaining("SIGTERM") });
    expect(line.urls).toMatchObject({
      health: `${base}/health`,
      "MCP server vault": `${base}/mcp/vault`,
      "catalog API docs": `${base}/v2/docs`,
      "vault setup page (link works once)": expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/login\?once=/),
    });
    for (const url of [line.urls.health, line.urls["catalog API docs"]]) expect((await fetch(url)).status).toBe(200);
  } finally {
    await server.stop();
  }
});

test("at a terminal, start-up prints a block for a person and the logs read as pretty lines", async () => {
  // `script` gives the server a real terminal; its output comes back on our pipe.
  const dataDir = join(dir.path, "terminal");
  const command = `exec ${sourceCommand.join(" ")} serve --host 127.0.0.1 --port 0 --data-dir ${dataDir}`;
  const proc = Bun.spawn(["script", "-qfc", command, "/dev/null"], { env: { ...process.env, ...quietSetup }, stdout: "pipe", stderr: "pipe" });
  const reader = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("to stop it gracefully")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  proc.kill("SIGTERM");
  await proc.exited;
  expect(text).toMatch(/Platform is listening on http:\/\/127\.0\.0\.1:\d+ \(production; data in /);
  expect(text).toMatch(/ {2}health +http:\/\/127\.0\.0\.1:\d+\/health/);
  expect(text).toMatch(/\d\d:\d\d:\d\d\.\d{3} INFO  vault setup page/);
  expect(text).not.toContain('{"level"');
});

test("a data dir that cannot be used is named with the reason; nothing starts", async () => {
  const file = join(dir.path, "not-a-dir");
  writeFileSync(file, "");
  const { code, stderr } = await refused(["--host", "127.0.0.1", "--port", "0", "--data-dir", file]);
  expect(code).toBe(1);
  expect(stderr).toBe(`platform serve: cannot use data dir ${file}: it is not a directory; choose another with --data-dir or PLATFORM_DATA_DIR\n`);
  // Under /proc nothing can be made, not even by root.
  const nowhere = await refused(["--host", "127.0.0.1", "--port", "0", "--data-dir", "/proc/platform-data"]);
  expect(nowhere.code).toBe(1);
  expect(nowhere.stderr).toStartWith("platform serve: cannot use data dir /proc/platform-data: ");
});

test("in production the data dir is the owner's alone (0700) and the database, keys and logs are 0600", async () => {
  const dataDir = join(dir.path, "private");
  mkdirSync(dataDir, { mode: 0o755 });
  const server = await serve(dataDir, { env: quietSetup });
  try {
    // A decision writes the audit log; a failed vault call writes the vault's audit rows and its keys exist already.
    await fetch(`${server.url}/rpc`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"jsonrpc":"2.0","id":1,"method":"task.send","params":{"type":"health"}}' });
    await server.waitForLine((line) => line.includes('"component":"access"') && line.includes('"route":"/rpc"'));
  } finally {
    expect(await server.stop()).toBe(0);
  }
  const mode = (path: string) => statSync(join(dataDir, path)).mode & 0o777;
  expect(mode(".")).toBe(0o700);
  for (const file of ["platform.db", "audit.jsonl", "vault-keys/master.key", "catalog-jwt.key"]) expect([file, mode(file)]).toEqual([file, 0o600]);
  for (const file of readdirSync(dataDir).filter((f) => f.startsWith("platform.db"))) expect([file, mode(file)]).toEqual([file, 0o600]);
});
