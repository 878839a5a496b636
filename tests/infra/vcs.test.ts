import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadConfig } from "../../src/config.ts";
import { createLogger } from "../../src/log.ts";
import { tokenSource } from "../../src/infra/vcs-token.ts";
import { vaultCapability, type VaultCapability } from "../../src/vault/capability.ts";
import { stores, storesForFile } from "../support/stores.ts";
import { tempDir } from "../support/temp.ts";
import { startGitHost, type GitHost } from "./git-host.ts";
import { fixtures, startInfra, type InfraHarness } from "./support.ts";

const token = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2";
const scratch = tempDir();
const fixture = storesForFile();
let host: GitHost;

const read = (dir: string) => Object.fromEntries(readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => [join(e.parentPath, e.name).slice(dir.length + 1), readFileSync(join(e.parentPath, e.name), "utf8")]));

beforeAll(() => {
  host = startGitHost(scratch.path, token);
  host.repository("acme", "infra", read(join(fixtures, "basic")), { staging: { "staging.tf": 'resource "terraform_data" "staging" {\n  input = "s"\n}\n' } });
});
afterAll(() => {
  host.stop();
  scratch.remove();
});

describe.each(stores)("on %s", (kind) => {
  let h: InfraHarness;
  const logLines: string[] = [];
  beforeAll(async () => {
    h = await startInfra({
      env: { PLATFORM_VCS__API_BASE: host.url, PLATFORM_VAULT__SETUP_ENABLED: "false", ...(await fixture.fresh(kind)).env },
      alongside: [vaultCapability],
      log: createLogger({ level: "debug", write: (line) => logLines.push(line) }),
    });
    // The token lives in the vault, as an operator would put it there.
    const vault = (h.runtime.capabilities.find((c) => c.name === "vault") as VaultCapability).vault;
    await vault.addService({ name: "github", template: "github", credential: { token } }, { name: "operator", services: ["*"] });
  });
  afterAll(() => h.close());

  test("the token is read from the vault, or VCS_TOKEN when the vault has none", async () => {
    expect(await tokenSource(h.runtime.database.db, h.runtime.config, {})).toMatchObject({ source: "vault", token });
    const empty = loadConfig({ env: { PLATFORM_DATA_DIR: join(scratch.path, "elsewhere"), PLATFORM_VCS__VAULT_SERVICE: "gitlab" } });
    expect(await tokenSource(h.runtime.database.db, { ...h.runtime.config, vcs: empty.vcs }, { VCS_TOKEN: "from-env" })).toEqual({ source: "VCS_TOKEN", token: "from-env" });
    expect(await tokenSource(h.runtime.database.db, { ...h.runtime.config, vcs: empty.vcs }, {})).toEqual({ source: "none" });
  });

  test("list and read a repository's configuration through the REST API, without cloning", async () => {
    const listed = await h.ok<{ ref: string; files: { path: string }[] }>("vcs_list_iac_files", { repo: "acme/infra" });
    expect(listed.ref).toBe("main");
    expect(listed.files.map((f) => f.path)).toEqual(["main.tf", "modules/counter/main.tf"]);
    const onStaging = await h.ok<{ files: { path: string }[] }>("vcs_list_iac_files", { repo: "acme/infra", ref: "staging", pattern: "staging.*" });
    expect(onStaging.files.map((f) => f.path)).toEqual(["staging.tf"]);
    const config = await h.ok<{ configurations: Record<string, unknown>[] }>("vcs_get_iac_config", { repo: "acme/infra" });
    expect(config.configurations).toEqual([
      expect.objectContaining({ path: ".", required_version: ">= 1.6", modules: [{ name: "counter", source: "./modules/counter" }], resources: 1 }),
      expect.objectContaining({ path: "modules/counter", resources: 1 }),
    ]);
    expect(await h.fails("vcs_get_iac_config", { repo: "acme/missing" })).toContain("[NOT_FOUND]");
    expect(await h.fails("vcs_list_iac_files", { repo: "not a repo" })).toContain("[INVALID_ARGUMENT]");
  });

  test("a shallow clone over HTTP with the token in a header, never in the URL or on disk", async () => {
    const cloned = await h.ok<{ path: string; commit: string; shallow: boolean }>("vcs_clone_repo", { repo: "acme/infra" });
    expect(cloned).toMatchObject({ path: "repos/infra", shallow: true });
    const dir = join(h.root, "repos/infra");
    expect(readFileSync(join(dir, "main.tf"), "utf8")).toContain("terraform_data");
    expect(existsSync(join(dir, ".git/shallow"))).toBe(true);
    // Every git request carried the token as a header; nothing in the clone holds it.
    const gitRequests = host.seen.filter((r) => r.path.startsWith("/git/"));
    expect(gitRequests.length).toBeGreaterThan(0);
    expect(gitRequests.every((r) => r.authorization?.startsWith("Basic "))).toBe(true);
    expect(readFileSync(join(dir, ".git/config"), "utf8")).toContain(`url = ${host.url}/git/acme/infra.git`);
    for (const file of readdirSync(join(dir, ".git"), { recursive: true }).map(String)) {
      const path = join(dir, ".git", file);
      if (statSync(path).isFile()) expect(readFileSync(path).includes(token)).toBe(false);
    }
    const logs = readdirSync(join(h.dataDir, "infra/runs"), { recursive: true }).map(String).filter((f) => f.endsWith(".log"));
    expect(logs.length).toBeGreaterThan(0);
    for (const log of logs) expect(readFileSync(join(h.dataDir, "infra/runs", log), "utf8")).not.toContain(token);
    expect(logLines.some((line) => line.includes("vcs_clone_repo"))).toBe(true);
    expect(logLines.filter((line) => line.includes(token))).toEqual([]);
  });

  test("a second clone is refused unless forced; a branch clones that branch", async () => {
    expect(await h.fails("vcs_clone_repo", { repo: "acme/infra" })).toContain("[ALREADY_EXISTS]");
    await h.ok("vcs_clone_repo", { repo: "acme/infra", branch: "staging", force: true });
    expect(existsSync(join(h.root, "repos/infra/staging.tf"))).toBe(true);
    expect(await h.fails("vcs_clone_repo", { repo: "acme/infra", path: "../outside" })).toContain("[INVALID_PATH]");
    expect(await h.fails("vcs_clone_repo", { repo: "acme/infra", branch: "nope", path: "other" })).toContain("[VCS_FAILED] git clone failed");
    expect(existsSync(join(h.root, "other"))).toBe(false);
  });

  test("prepare clones and readies each configuration, initialising it with real tofu", async () => {
    const prepared = await h.ok<{ workspaces: { path: string; score: number; initialised: boolean; init?: { ok: boolean } }[] }>("vcs_prepare_workspace", {
      repo: "acme/infra",
      path: "prepared",
      init: true,
    });
    expect(prepared.workspaces.map((w) => [w.path, w.initialised, w.init?.ok])).toEqual([
      ["prepared", true, true],
      ["prepared/modules/counter", true, true],
    ]);
    expect(prepared.workspaces[0]!.score).toBe(100);
    expect(await h.ok("infra", { path: "prepared", action: "validate" })).toMatchObject({ result: { valid: true } });
  });
});

test("a wrong token is answered 401 and said so", async () => {
  const other = await startInfra({ env: { PLATFORM_VCS__API_BASE: host.url } });
  try {
    const text = await other.fails("vcs_list_iac_files", { repo: "acme/infra" });
    expect(text).toContain("[VCS_FAILED]");
    expect(text).toContain("401");
  } finally {
    await other.close();
  }
});
