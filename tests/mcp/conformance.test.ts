/**
 * The MCP conformance suite (@modelcontextprotocol/conformance, on its own Node.js 22) against the platform's MCP
 * host over Streamable HTTP. Scenarios that need nothing but a server pass against the platform's own server; the
 * ones that call fixtures by name (test_simple_text, test://static-text, ...) pass against a server offering them,
 * hosted the same way (tests/fixtures/conformance.ts). docs/mcp.md says which scenarios do not apply and why.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { platformCapability } from "../../src/platform/tools.ts";
import { conformanceCapability } from "../fixtures/conformance.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { tempDir } from "../support/temp.ts";
import { requireTool } from "../support/tools.ts";

/** Scenarios about the server alone, whatever it offers. */
const serverScenarios = ["server-initialize", "ping", "logging-set-level", "tools-list", "resources-list", "prompts-list", "server-sse-multiple-streams", "dns-rebinding-protection"];

/** Scenarios about a feature the host does not have: a tool cannot ask the client to sample or elicit. */
const notApplicable = ["tools-call-sampling", "tools-call-elicitation", "elicitation-sep1034-defaults", "elicitation-sep1330-enums"];

/**
 * Warnings the suite's version gives for a reason of its own: server-sse-polling 0.1.16 asks as a 2025-03-26 client,
 * and priming events are sent only to clients of 2025-11-25 and later (older ones cannot read an event without
 * data); the suite itself was corrected to ask as 2025-11-25 later. tests/mcp/streamable.test.ts checks both.
 */
const knownWarnings = ["server-sse-polling/server-sse-priming-event", "server-sse-polling/server-sse-retry-field"];

interface Check {
  id: string;
  status: "SUCCESS" | "FAILURE" | "WARNING" | "INFO" | "SKIPPED";
  errorMessage?: string;
}

let running: RunningApp;
const out = tempDir();

beforeAll(async () => {
  running = await startApp([platformCapability, conformanceCapability]);
});
afterAll(async () => {
  await running.close();
  out.remove();
});

/**
 * Runs the scenarios of the suite against `path` (each of `scenarios`, or the whole suite); returns each scenario's
 * checks, read from the results it writes into `dir`.
 */
async function suite(path: string, dir: string, scenarios?: string[]): Promise<Map<string, Check[]>> {
  const run = async (selection: string[]) => {
    const child = Bun.spawn([requireTool("mcp-conformance"), "server", "--url", `${running.base}${path}`, ...selection, "-o", dir], { stdout: "pipe", stderr: "pipe" });
    const [output, errors] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    return output + errors;
  };
  const outputs = await Promise.all(scenarios ? scenarios.map((scenario) => run(["--scenario", scenario])) : [run(["--suite", "all"])]);
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(dir)) {
    const scenario = entry.replace(/^server-/, "").replace(/-\d{4}-\d{2}-\d{2}T[\d-]+Z$/, "");
    results.set(scenario, await Bun.file(join(dir, entry, "checks.json")).json());
  }
  if (!results.size) throw new Error(`the conformance suite wrote no results:\n${outputs.join("\n")}`);
  return results;
}

/** `scenario/check: status: message` for every check that is neither a success nor information. */
const problems = (results: Map<string, Check[]>, scenarios: string[]) =>
  scenarios.flatMap((scenario) => {
    const checks = results.get(scenario);
    if (!checks) return [`${scenario}: not run`];
    return checks
      .filter((c) => c.status !== "SUCCESS" && c.status !== "INFO" && !knownWarnings.includes(`${scenario}/${c.id}`))
      .map((c) => `${scenario}/${c.id}: ${c.status}: ${c.errorMessage ?? ""}`);
  });

let platform: Map<string, Check[]>;
let fixtures: Map<string, Check[]>;

test("the suite runs against the platform's server and the fixtures' server", async () => {
  [platform, fixtures] = await Promise.all([suite("/mcp", join(out.path, "platform"), serverScenarios), suite("/mcp/conformance", join(out.path, "fixtures"))]);
  expect(fixtures.size).toBeGreaterThanOrEqual(30);
}, 60_000);

test("every scenario about the server alone passes against the platform's own server", () => {
  expect(problems(platform, serverScenarios)).toEqual([]);
});

test("every scenario about a feature the host has passes, fixtures included", () => {
  const applicable = [...fixtures.keys()].filter((scenario) => !notApplicable.includes(scenario));
  expect(applicable).toEqual(expect.arrayContaining(["completion-complete", "tools-call-with-progress", "resources-subscribe", "prompts-get-with-image", "json-schema-2020-12", "server-sse-polling"]));
  expect(problems(fixtures, applicable)).toEqual([]);
});

test("the scenarios listed as not applicable fail only for the feature the host lacks", () => {
  for (const scenario of notApplicable) {
    const failures = fixtures.get(scenario)!.filter((c) => c.status === "FAILURE");
    expect(failures.length).toBeGreaterThan(0);
    expect(failures.map((c) => c.errorMessage).join(" ")).toMatch(/sampling|elicitation|Unknown tool/i);
  }
});
