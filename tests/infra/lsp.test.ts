import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { requireTool } from "../support/tools.ts";
import { startInfra, type InfraHarness } from "./support.ts";

const ugly = 'resource "terraform_data" "u" {\ninput="x"\n    triggers_replace = [1]\n}\n';
const pretty = 'resource "terraform_data" "u" {\n  input            = "x"\n  triggers_replace = [1]\n}\n';

describe("with terraform-ls", () => {
  let h: InfraHarness;
  beforeAll(async () => {
    h = await startInfra({ env: { PLATFORM_INFRA__LANGUAGE_SERVER: requireTool("terraform-ls") } });
    h.fixture("basic");
    h.write({ "lsp/ugly.tf": ugly, "lsp/bad.tf": 'resource "terraform_data" "a" {\n  input = \n}\n' });
  });
  afterAll(() => h.close());

  test("the server starts on demand and answers completions and hovers at 0-based positions", async () => {
    expect(await h.ok("iac_lsp_status")).toMatchObject({ installed: true, state: "absent" });
    // Line 21 (0-based 20) is `resource "terraform_data" "greeting" {`; inside its body, the meta-arguments are offered.
    const completions = await h.ok<{ items: { label: string }[] }>("iac_complete", { path: "basic/main.tf", line: 21, character: 2 });
    expect(completions.items.map((i) => i.label)).toEqual(expect.arrayContaining(["count", "for_each", "lifecycle"]));
    const hover = await h.ok<{ hover: { contents: string } }>("iac_hover", { path: "basic/main.tf", line: 20, character: 12 });
    expect(hover.hover.contents).toContain('"terraform_data"');
    // A value's hover names its type and the range it covers; the `${` of an interpolation has none.
    const value = await h.ok<{ hover: { contents: string; range: { start: { line: number } } } }>("iac_hover", { path: "basic/main.tf", line: 1, character: 25 });
    expect(value.hover.contents).toBe("_string_");
    expect(value.hover.range.start.line).toBe(1);
    expect((await h.ok<{ hover: unknown }>("iac_hover", { path: "basic/main.tf", line: 17, character: 20 })).hover).toBeNull();
    expect(await h.ok("iac_lsp_status")).toMatchObject({ state: "ready", restarts: 0 });
  });

  test("diagnostics come from terraform-ls and follow the file on disk", async () => {
    const bad = await h.ok<{ used: string; valid: boolean; diagnostics: { range: { start: { line: number } }; message: string }[] }>("iac_validate_lsp", { path: "lsp/bad.tf" });
    expect(bad).toMatchObject({ used: "terraform-ls", valid: false });
    expect(bad.diagnostics[0]!.range.start.line).toBe(1);
    h.write({ "lsp/bad.tf": 'resource "terraform_data" "a" {\n  input = 1\n}\n' });
    expect(await h.ok("iac_validate_lsp", { path: "lsp/bad.tf" })).toMatchObject({ valid: true, diagnostics: [], published: true });
    // terraform-ls publishes nothing for a file that never had a problem: none, and it says it saw no publication.
    expect(await h.ok("iac_validate_lsp", { path: "basic/modules/counter/main.tf" })).toMatchObject({ used: "terraform-ls", valid: true, diagnostics: [] });
  });

  test("formatting answers the text and writes it only when asked", async () => {
    const preview = await h.ok<{ used: string; changed: boolean; written: boolean; formatted: string }>("iac_format_lsp", { path: "lsp/ugly.tf" });
    expect(preview).toMatchObject({ used: "terraform-ls", changed: true, written: false, formatted: pretty });
    expect(readFileSync(join(h.root, "lsp/ugly.tf"), "utf8")).toBe(ugly);
    await h.ok("iac_format_lsp", { path: "lsp/ugly.tf", write: true });
    expect(readFileSync(join(h.root, "lsp/ugly.tf"), "utf8")).toBe(pretty);
  });

  test("a crashed server is seen as crashed and started again by the next call", async () => {
    const { pid } = await h.ok<{ pid: number }>("iac_lsp_status");
    const lsp = h.capability.infra.lsp;
    const { promise: crashed, resolve } = Promise.withResolvers<void>();
    const subscription = lsp.actor.subscribe((s) => s.value === "crashed" && resolve());
    process.kill(pid, "SIGKILL");
    await crashed;
    subscription.unsubscribe();
    expect(await h.ok("iac_lsp_status")).toMatchObject({ state: "crashed", last_error: expect.stringContaining("SIGKILL") });
    await h.ok("iac_hover", { path: "basic/main.tf", line: 20, character: 12 });
    const debug = await h.ok<{ state: string; restarts: number; pid: number; server: { name: string }; recent_requests: { method: string }[] }>("infra_lsp_debug");
    expect(debug).toMatchObject({ state: "ready", restarts: 1, server: { name: "terraform-ls" } });
    expect(debug.pid).not.toBe(pid);
    expect(debug.recent_requests.map((r) => r.method)).toContain("textDocument/hover");
  });

  test("init restarts on request and reports the server's capabilities", async () => {
    const before = await h.ok<{ pid: number }>("iac_lsp_status");
    const started = await h.ok<{ state: string; pid: number; capabilities: string[] }>("infra_lsp_init", { restart: true });
    expect(started.state).toBe("ready");
    expect(started.pid).not.toBe(before.pid);
    expect(started.capabilities).toEqual(expect.arrayContaining(["completionProvider", "hoverProvider", "documentFormattingProvider"]));
  });

  test("positions are checked; a file outside the root is refused", async () => {
    expect((await h.call("iac_hover", { path: "basic/main.tf", line: -1, character: 0 })).isError).toBe(true);
    expect(await h.fails("iac_hover", { path: "../etc/hosts", line: 0, character: 0 })).toContain("[INVALID_PATH]");
  });
});

describe("without terraform-ls", () => {
  let h: InfraHarness;
  beforeAll(async () => {
    h = await startInfra({ env: { PLATFORM_INFRA__LANGUAGE_SERVER: "/nonexistent/terraform-ls" } });
    h.write({ "lsp/ugly.tf": ugly, "lsp/bad.tf": 'resource "terraform_data" "a" {\n  input = \n}\n' });
  });
  afterAll(() => h.close());

  test("formatting falls back to tofu fmt and validation to the HCL parser, and each says so", async () => {
    expect(await h.ok("iac_format_lsp", { path: "lsp/ugly.tf" })).toMatchObject({ used: "tofu fmt", changed: true, formatted: pretty });
    const bad = await h.ok<{ used: string; valid: boolean; diagnostics: { range: { start: { line: number } } }[] }>("iac_validate_lsp", { path: "lsp/bad.tf" });
    expect(bad).toMatchObject({ used: "hcl parser", valid: false });
    expect(bad.diagnostics[0]!.range.start.line).toBe(1);
  });

  test("completion names the missing tool", async () => {
    expect(await h.fails("iac_complete", { path: "lsp/ugly.tf", line: 0, character: 0 })).toContain("[TOOL_MISSING] terraform-ls is not installed");
    expect(await h.ok("iac_lsp_status")).toMatchObject({ installed: false, state: "absent" });
  });
});
