/** The 25 resources: served over REST and MCP, the prompts as MCP prompts, and every example in them run for real. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TestResult } from "../../src/browser/model.ts";
import { documents } from "../../src/browser/resources/registry.ts";
import { startSite, type Site } from "./site.ts";
import { startBrowserApp, type BrowserApp } from "./support.ts";

let app: BrowserApp;
let site: Site;
beforeAll(async () => {
  site = startSite();
  app = await startBrowserApp({ PLATFORM_BROWSER__WARM_SESSIONS: "1" });
});
afterAll(async () => {
  await app?.close();
  site?.stop();
});

test("the registry index lists 25 resources at their paths (spec 2.8.0); each is served over REST and MCP", async () => {
  const index = (await fetch(`${app.base}/resources/index.json`).then((r) => r.json())) as { spec_version: string; resources: { id: string; path: string }[] };
  expect(index.spec_version).toBe("2.8.0");
  expect(index.resources).toHaveLength(25);
  expect(index.resources.map((r) => r.path)).toEqual(
    expect.arrayContaining([
      "index.json",
      "tools/cli/install.json",
      "tools/state-management/storage-state.json",
      "quickstarts/hybrid/e2e-api.json",
      "examples/dashboard/analytics-dashboard.json",
      "docs/patterns.json",
      "prompts/debug-assistant.json",
    ]),
  );
  const client = await app.mcp();
  const listed = (await client.listResources()).resources.map((r) => r.uri);
  for (const { path, id } of index.resources) {
    const served = (await fetch(`${app.base}/resources/${path}`).then((r) => r.json())) as { id?: string };
    if (path !== "index.json") expect(served.id).toBe(id);
    expect(listed).toContain(`browser://resources/${path}`);
  }
  const read = await client.readResource({ uri: "browser://resources/docs/troubleshooting.json" });
  expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id: "troubleshooting", category: "documentation" });
  expect((await fetch(`${app.base}/resources/nope.json`)).status).toBe(404);
  const prompt = await client.getPrompt({ name: "debug-assistant", arguments: { url: "http://shop.test/" } });
  expect((prompt.messages[0]!.content as { text: string }).text).toStartWith("Find out why http://shop.test/ fails (not given)");
});

test("every example in every resource runs", async () => {
  const client = await app.mcp();
  const fill = (value: unknown) => JSON.parse(JSON.stringify(value).replaceAll("{{origin}}", site.origin));
  let ran = 0;
  for (const document of documents) {
    for (const example of document.examples) {
      const where = `${document.id}: ${example.title}`;
      if (example.kind === "playbook") {
        const result = (await client.callTool({ name: "run_playbook", arguments: { playbook: fill(example.playbook) } })) as CallToolResult;
        expect([where, result.isError ?? false]).toEqual([where, false]);
        const steps = (result.structuredContent as TestResult).steps!;
        expect([where, steps.map((s) => s.error ?? s.status)]).toEqual([where, steps.map(() => "passed")]);
      } else if (example.kind === "tool") {
        const result = (await client.callTool({ name: example.tool, arguments: fill(example.arguments) })) as CallToolResult;
        expect([where, result.isError ? (result.content[0] as { text: string }).text : "ok"]).toEqual([where, "ok"]);
      } else {
        const response = await fetch(`${app.base}${example.path}`, {
          method: example.method,
          headers: { "content-type": "application/json", accept: "application/json" },
          body: example.body ? JSON.stringify(fill(example.body)) : undefined,
        });
        expect([where, response.status]).toEqual([where, 200]);
        const body = (await response.json()) as { valid?: boolean };
        if (example.path === "/playbook/validate") expect([where, body.valid]).toEqual([where, true]);
      }
      ran++;
    }
  }
  expect(ran).toBeGreaterThanOrEqual(40);
}, 120_000);
