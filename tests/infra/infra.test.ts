import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { requireTool } from "../support/tools.ts";
import { startInfra, textOf, type InfraHarness } from "./support.ts";

let h: InfraHarness;
beforeAll(async () => {
  h = await startInfra();
  h.fixture("basic");
});
afterAll(() => h.close());

type Run = { binary: { name: string; path: string }; exit_code: number; result: Record<string, any>; plan?: { id: string; sha256: string }; log_file: string; output: string };

test("version runs the tofu the install script built, and says so", async () => {
  const run = await h.ok<Run>("infra", { path: "basic", action: "version" });
  expect(run.binary).toEqual({ name: "tofu", path: requireTool("tofu") });
  expect(run.result.terraform_version).toMatch(/^1\.12\./);
  const version = await h.ok<{ binary: { name: string; version: string }; providers: unknown[] }>("infra_version", { path: "basic" });
  expect(version.binary).toMatchObject({ name: "tofu", version: expect.stringMatching(/^1\.12\./) });
});

test("infra_version reads the providers a lock file selects; the list tells backends and initialisation apart", async () => {
  h.write({
    "locked/main.tf": 'terraform {\n  backend "s3" {\n    bucket = "state"\n    key    = "app.tfstate"\n  }\n}\n',
    "locked/.terraform.lock.hcl":
      'provider "registry.opentofu.org/hashicorp/aws" {\n  version     = "5.31.0"\n  constraints = "~> 5.0"\n  hashes = [\n    "h1:abc=",\n  ]\n}\n',
  });
  const version = await h.ok<{ providers: unknown[] }>("infra_version", { path: "locked" });
  expect(version.providers).toEqual([{ source: "registry.opentofu.org/hashicorp/aws", version: "5.31.0", constraints: "~> 5.0" }]);
  const { workspaces } = await h.ok<{ workspaces: { path: string; initialised: boolean; backend: string }[] }>("infra_workspace_list");
  expect(workspaces.find((w) => w.path === "locked")).toMatchObject({ initialised: true, backend: "s3" });
  expect(workspaces.find((w) => w.path === "basic")).toMatchObject({ backend: "local" });
});

test("a workspace must be initialised before it is planned", async () => {
  h.fixture("basic", "fresh");
  expect(await h.fails("infra", { path: "fresh", action: "plan" })).toContain("[NOT_INITIALISED] workspace fresh is not initialised");
  expect(existsSync(join(h.root, "fresh/.terraform"))).toBe(false);
});

test("init, validate and plan run real tofu on a local module; variables reach the plan through a file", async () => {
  const init = await h.ok<Run>("infra", { path: "basic", action: "init" });
  expect(init.result.messages.join("\n")).toContain("successfully initialized");
  const validate = await h.ok<Run>("infra", { path: "basic", action: "validate" });
  expect(validate.result).toMatchObject({ valid: true, error_count: 0 });

  const progress: string[] = [];
  const result = await h.call("infra", { path: "basic", action: "plan", vars: { name: "platform", copies: 3 } }, { onprogress: (p) => progress.push(p.message ?? "") });
  expect(result.isError).toBeFalsy();
  const plan = result.structuredContent as Run;
  expect(plan.result.summary).toEqual({ add: 4, change: 0, remove: 0, import: 0 });
  expect(plan.result.changes.map((c: { address: string }) => c.address).sort()).toEqual([
    "module.counter.terraform_data.counter[0]",
    "module.counter.terraform_data.counter[1]",
    "module.counter.terraform_data.counter[2]",
    "terraform_data.greeting",
  ]);
  expect(progress.some((m) => m.includes("Plan: 4 to add"))).toBe(true);
  // The saved plan is the one the hash names, and it carries the variable's value.
  expect(plan.plan!.sha256).toMatch(/^[a-f0-9]{64}$/);
  const shown = await h.ok<Run>("infra", { path: "basic", action: "show", plan_id: plan.plan!.id });
  expect(shown.result.variables.name.value).toBe("platform");
  // The full log is kept; the variables never were on a command line.
  const log = readFileSync(plan.log_file, "utf8");
  expect(log).toContain("-var-file=");
  expect(log).not.toContain("platform\"");
});

test("validate answers an invalid configuration as a result with located diagnostics; show without a plan answers the state", async () => {
  h.write({ "invalid/main.tf": 'resource "terraform_data" "x" {\n  input = var.nope\n}\n' });
  await h.ok("infra", { path: "invalid", action: "init" });
  const validate = await h.ok<Run>("infra", { path: "invalid", action: "validate" });
  expect(validate.exit_code).toBe(1);
  expect(validate.result).toMatchObject({ valid: false, error_count: 1 });
  expect(validate.result.diagnostics).toEqual([
    expect.objectContaining({ severity: "error", summary: "Reference to undeclared input variable", file: "main.tf", line: 2 }),
  ]);
  // No state yet: tofu's own document, which says only its format.
  expect((await h.ok<Run>("infra", { path: "invalid", action: "show" })).result).toEqual({ format_version: expect.any(String) });
});

test("every tool lists its output schema; the infra tool's names the actions its input offers", async () => {
  const { tools } = await h.client.listTools();
  expect(tools).toHaveLength(21);
  expect(tools.filter((t) => t.outputSchema?.type !== "object").map((t) => t.name)).toEqual([]);
  const infra = tools.find((t) => t.name === "infra")!;
  const actions = (schema: unknown) => (schema as { properties: { action: { anyOf: { const: string }[] } } }).properties.action.anyOf.map((a) => a.const);
  expect(actions(infra.outputSchema)).toEqual(actions(infra.inputSchema));
});

test("graph and providers answer parsed results", async () => {
  const graph = await h.ok<Run>("infra", { path: "basic", action: "graph" });
  expect(graph.result.dot).toContain("digraph");
  const providers = await h.ok<Run>("infra", { path: "basic", action: "providers" });
  expect(providers.result.tree).toContain("module.counter");
});

test("fmt lists the files that differ with their diff, and rewrites them only when asked", async () => {
  h.write({ "ugly/main.tf": 'resource "terraform_data" "u" {\ninput="x"\n}\n' });
  const check = await h.ok<Run>("infra", { path: "ugly", action: "fmt" });
  expect(check.result).toMatchObject({ written: false, formatted: false, files: ["main.tf"] });
  expect(check.result.diff).toContain('+  input = "x"');
  expect(readFileSync(join(h.root, "ugly/main.tf"), "utf8")).toContain('input="x"');
  await h.ok("infra", { path: "ugly", action: "fmt", write: true });
  expect(readFileSync(join(h.root, "ugly/main.tf"), "utf8")).toBe('resource "terraform_data" "u" {\n  input = "x"\n}\n');
  expect((await h.ok<Run>("infra", { path: "ugly", action: "fmt" })).result).toMatchObject({ formatted: true, files: [] });
});

test("a failing plan answers its exit code, the tail of stderr and the log", async () => {
  h.write({ "broken/main.tf": 'resource "terraform_data" "x" {\n  input = var.missing\n}\n' });
  await h.ok("infra", { path: "broken", action: "init" });
  const text = await h.fails("infra", { path: "broken", action: "plan" });
  expect(text).toContain("[RUN_FAILED] tofu plan failed with exit code 1");
  expect(text).toContain("Reference to undeclared input variable");
  expect(text).toContain('"logFile"');
  const [listed] = (await h.ok<{ workspaces: { path: string; state: string; lastRun: { outcome: string } }[] }>("infra_workspace_list")).workspaces.filter(
    (w) => w.path === "broken",
  );
  expect(listed).toMatchObject({ state: "failed", lastRun: { outcome: "failed" } });
});

test("paths outside the root, NUL bytes and symlinks out are refused", async () => {
  expect(await h.fails("infra", { path: "../", action: "validate" })).toContain("[INVALID_PATH]");
  expect(await h.fails("infra", { path: "/etc", action: "validate" })).toContain("outside the workspace root");
  expect(await h.fails("infra", { path: "a\u0000b", action: "validate" })).toContain("NUL byte");
  symlinkSync("/etc", join(h.root, "escape"));
  expect(await h.fails("infra", { path: "escape", action: "validate" })).toContain("through a symlink");
});

test("unknown actions and apply are refused while apply is off", async () => {
  const unknown = await h.call("infra", { path: "basic", action: "destroy-everything" });
  expect(unknown.isError).toBe(true);
  const apply = await h.call("infra", { path: "basic", action: "apply" });
  expect(apply.isError).toBe(true);
  expect(textOf(apply)).toContain("action");
  const { tools } = await h.client.listTools();
  const schema = tools.find((t) => t.name === "infra")!.inputSchema as unknown as { properties: { action: { anyOf: { const: string }[] } } };
  expect(schema.properties.action.anyOf.map((a) => a.const)).toEqual(["init", "validate", "fmt", "plan", "show", "graph", "providers", "version"]);
});

test("the environment check names the tools and never a token", async () => {
  const env = await h.ok<{ ready: boolean; tools: Record<string, { installed: boolean; path?: string }>; allow_apply: boolean }>("infra_environment_check");
  expect(env.ready).toBe(true);
  expect(env.tools.tofu).toMatchObject({ installed: true, path: requireTool("tofu") });
  expect(env.allow_apply).toBe(false);
});

describe("with apply allowed", () => {
  let a: InfraHarness;
  beforeAll(async () => {
    a = await startInfra({ env: { PLATFORM_INFRA__ALLOW_APPLY: "true", PLATFORM_INFRA__CANCEL_GRACE_MS: "3000" } });
    a.write({
      "apply/main.tf": 'resource "terraform_data" "a" {\n  input = "x"\n}\noutput "id" {\n  value = terraform_data.a.id\n}\n',
      "slow/main.tf": 'resource "terraform_data" "slow" {\n  provisioner "local-exec" {\n    command = "sleep 60"\n  }\n}\n',
    });
    await a.ok("infra", { path: "apply", action: "init" });
    await a.ok("infra", { path: "slow", action: "init" });
  });
  afterAll(() => a.close());

  const plan = async (path: string, destroy = false) => (await a.ok<Run>("infra", { path, action: "plan", destroy })).plan!;

  test("apply takes only a saved plan with its hash", async () => {
    const saved = await plan("apply");
    expect(await a.fails("infra", { path: "apply", action: "apply" })).toContain("needs plan_id");
    expect(await a.fails("infra", { path: "apply", action: "apply", plan_id: saved.id, plan_sha256: "0".repeat(64) })).toContain("[PLAN_REJECTED]");
    expect(await a.fails("infra", { path: "apply", action: "destroy", plan_id: saved.id, plan_sha256: saved.sha256 })).toContain("does not destroy");
    const applied = await a.ok<Run>("infra", { path: "apply", action: "apply", plan_id: saved.id, plan_sha256: saved.sha256 });
    expect(applied.result.applied).toEqual([{ address: "terraform_data.a", action: "create" }]);
    expect(existsSync(join(a.root, "apply/terraform.tfstate"))).toBe(true);
    // Used once: the same plan is gone.
    expect(await a.fails("infra", { path: "apply", action: "apply", plan_id: saved.id, plan_sha256: saved.sha256 })).toContain("[NOT_FOUND]");
    const destroy = await plan("apply", true);
    const destroyed = await a.ok<Run>("infra", { path: "apply", action: "destroy", plan_id: destroy.id, plan_sha256: destroy.sha256 });
    expect(destroyed.result.applied).toEqual([{ address: "terraform_data.a", action: "delete" }]);
  });

  test("one run at a time: a second caller is told which action runs; MCP cancellation stops the run", async () => {
    const saved = await plan("slow");
    const controller = new AbortController();
    const { promise: provisioning, resolve } = Promise.withResolvers<void>();
    const first = a.call("infra", { path: "slow", action: "apply", plan_id: saved.id, plan_sha256: saved.sha256 }, {
      signal: controller.signal,
      onprogress: (p) => p.message?.includes("Provisioning with 'local-exec'") && resolve(),
    });
    first.catch(() => {}); // rejected by the client's own abort below
    await provisioning;
    const busy = await a.fails("infra", { path: "slow", action: "validate" });
    expect(busy).toContain("[BUSY] workspace slow is busy running apply");
    controller.abort();
    const settled = await a.capability.infra.workspaces.settled("slow");
    expect(settled).toMatchObject({ state: "idle", lastRun: { action: "apply", outcome: "cancelled" } });
    expect(readFileSync(settled.lastRun!.logFile, "utf8")).toContain("Interrupt received");
  });

  test("a run past its time limit is stopped and said to be", async () => {
    const saved = await plan("slow");
    const text = await a.fails("infra", { path: "slow", action: "apply", plan_id: saved.id, plan_sha256: saved.sha256, timeout_seconds: 1 });
    expect(text).toContain("[TIMEOUT]");
    expect((await a.capability.infra.workspaces.settled("slow")).state).toBe("failed");
  });
});

test("plan hashes are sha256 of the saved file", async () => {
  const run = await h.ok<Run>("infra", { path: "basic", action: "plan" });
  const file = join(h.dataDir, "infra/plans", `${run.plan!.id}.tfplan`);
  expect(createHash("sha256").update(readFileSync(file)).digest("hex")).toBe(run.plan!.sha256);
});

test("without tofu or terraform, a run names the missing tool and the environment check says what is there", async () => {
  const bare = await startInfra({ env: { PLATFORM_INFRA__BINARY: "/nonexistent/tofu" } });
  try {
    bare.fixture("basic");
    expect(await bare.fails("infra", { path: "basic", action: "init" })).toContain("[TOOL_MISSING] tofu is not installed: infra.binary is /nonexistent/tofu");
    const env = await bare.ok<{ ready: boolean; tools: Record<string, { installed: boolean }> }>("infra_environment_check");
    expect(env.ready).toBe(false);
    expect(env.tools.tofu!.installed).toBe(false);
    expect(env.tools.git!.installed).toBe(true);
  } finally {
    await bare.close();
  }
});
