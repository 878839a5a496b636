/**
 * `platform mcp install` from source, run by a Bun out of npx's cache (laid out as `npx -y bun@<version>` leaves
 * it): what it writes points at a Bun that stays, keeps working once that cache is deleted, and quotes a data dir
 * holding spaces and quotes for the shell; `--print` shows it all and writes nothing.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join } from "node:path";
import { runPlatform, sourceCommand } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { expectWorkingInstall, installedIn } from "./assistant.ts";
import { githubToken } from "./harness.ts";

const root = tempDir();
const cache = join(root.path, "npm-cache");
const npxBun = join(cache, "_npx", "5f2a9c1e", "node_modules", "bun", "bin", "bun.exe");
const project = join(root.path, `it's a "project"`);
const dataDir = join(root.path, `data with 'quotes' and $HOME`);
const entry = sourceCommand[1]!;
/** The PATH npx gives what it runs: its cache's bin folder first. */
const npxPath = (rest: string) => [join(cache, "_npx", "5f2a9c1e", "node_modules", ".bin"), rest].join(":");
const lastingBun = Bun.which("bun")!;

beforeAll(async () => {
  mkdirSync(dirname(npxBun), { recursive: true });
  mkdirSync(join(dirname(npxBun), "..", "..", ".bin"), { recursive: true });
  copyFileSync(process.execPath, npxBun);
  chmodSync(npxBun, 0o755);
  symlinkSync(npxBun, join(dirname(npxBun), "..", "..", ".bin", "bun"));
  mkdirSync(project, { recursive: true });
  const added = await runPlatform(["vault", "service", "add", "gh", "--template", "github", "--data-dir", dataDir, "--log-level", "error"], { stdin: JSON.stringify({ token: githubToken }) });
  expect(added.code).toBe(0);
});
afterAll(() => root.remove());

const installFromNpx = (args: string[], path: string) => runPlatform(["mcp", "install", "--data-dir", dataDir, ...args], { command: [npxBun, entry], cwd: project, env: { PATH: path } });

test("--print shows the command and both files as they would be, and writes nothing", async () => {
  const printed = await installFromNpx(["--print"], npxPath(`${dirname(lastingBun)}:/usr/bin:/bin`));
  expect(printed.code).toBe(0);
  const { command, files } = JSON.parse(printed.stdout) as { command: string[]; files: { path: string; changed: boolean; content: any }[] };
  // Not the Bun in npx's cache, though it runs this: the same version found on PATH past the cache.
  expect(command).toEqual([lastingBun, entry]);
  expect(files.map((f) => [f.path, f.changed])).toEqual([
    [join(project, ".mcp.json"), true],
    [join(project, ".claude", "settings.json"), true],
  ]);
  expect(files[0]!.content.mcpServers.vault).toMatchObject({ command: lastingBun, args: [entry, "mcp", "vault", "--data-dir", dataDir] });
  expect(files[1]!.content.hooks.PostToolUse[0].hooks[0].command).toStartWith(`${lastingBun} ${entry} hook post-tool --data-dir '`);
  expect(readdirSync(project)).toEqual([]);
});

test("installed through npx, the server and hooks still work once npx's cache is deleted, through sh and bash", async () => {
  const installed = await installFromNpx([], npxPath(`${dirname(lastingBun)}:/usr/bin:/bin`));
  expect(installed.code).toBe(0);
  expect(installed.stdout).toContain(`updated ${join(project, ".mcp.json")}`);
  rmSync(cache, { recursive: true, force: true });
  const { server, hooks } = installedIn(project);
  expect(JSON.stringify([server, hooks])).not.toContain("_npx");
  await expectWorkingInstall(project, { service: "gh", credential: githubToken });
}, 30_000);

test("with no lasting Bun on PATH, the command fetches the same version through npx; with neither, install says why", async () => {
  const onlyNpx = join(root.path, "only-npx");
  mkdirSync(onlyNpx, { recursive: true });
  symlinkSync(Bun.which("npx")!, join(onlyNpx, "npx"));
  // The cache is back for this run: the Bun running install lives there.
  mkdirSync(dirname(npxBun), { recursive: true });
  copyFileSync(process.execPath, npxBun);
  chmodSync(npxBun, 0o755);
  const viaNpx = await installFromNpx(["--print"], npxPath(onlyNpx));
  expect(JSON.parse(viaNpx.stdout).command).toEqual(["npx", "-y", `bun@${Bun.version}`, entry]);

  const before = readFileSync(join(project, ".mcp.json"), "utf8");
  const stranded = await installFromNpx([], npxPath(join(root.path, "empty")));
  expect(stranded.code).toBe(2);
  expect(stranded.stderr).toContain(`Bun runs from a package runner's cache here (${npxBun}), and no Bun ${Bun.version} or npx is on PATH`);
  expect(readFileSync(join(project, ".mcp.json"), "utf8")).toBe(before);
});
