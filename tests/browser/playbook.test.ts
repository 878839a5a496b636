/** Playbooks in JSON and YAML: checked whole before running, run step by step, failures with screenshots. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestResult } from "../../src/browser/model.ts";
import { password, startSite, type Site } from "./site.ts";
import { call, failure, startBrowserApp, type BrowserApp } from "./support.ts";

let app: BrowserApp;
let site: Site;
beforeAll(async () => {
  site = startSite();
  app = await startBrowserApp({ PLATFORM_BROWSER__WARM_SESSIONS: "1", PLATFORM_BROWSER__ACTION_TIMEOUT_MS: "2000" });
});
afterAll(async () => {
  await app?.close();
  site?.stop();
});

test("every problem is reported with its step before anything runs", async () => {
  const before = (await app.capability.browser.results()).length;
  const bad = {
    base_url: site.origin,
    steps: [
      { action: "navigate", url: "file:///etc/passwd" },
      { action: "click" },
      { action: "teleport", to: "mars" },
      { action: "fill", selector: "#name", value: 3 },
      { action: "wait_for" },
      { action: "assert_title", title: "x", colour: "red" },
    ],
  };
  const response = await fetch(`${app.base}/playbook/execute`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ playbook: bad }) });
  expect(response.status).toBe(400);
  const body = (await response.json()) as { error: { type: string; message: string; details: { problems: { step?: number; field?: string; message: string }[] } } };
  expect(body.error).toMatchObject({ type: "ValidationError", message: "The playbook has 6 problem(s); nothing ran" });
  expect(body.error.details.problems.map((p) => [p.step, p.field])).toEqual([
    [0, "url"],
    [1, "selector"],
    [2, "action"],
    [3, "value"],
    [4, "selector"],
    [5, "colour"],
  ]);
  expect(body.error.details.problems[0]!.message).toBe("url must be http or https, not file:");
  expect(body.error.details.problems[2]!.message).toStartWith("Unknown action teleport; one of navigate, click,");
  expect((await app.capability.browser.results()).length).toBe(before);
  const client = await app.mcp();
  expect(await failure(client, "run_playbook", { playbook: "steps: [ {action: navigate" })).toMatch(/^\[ValidationError\] The playbook has 1 problem/);
});

test("a YAML playbook signs in, checks the page, takes a screenshot and runs axe; a step marked continue_on_error fails without stopping it", async () => {
  const yaml = `
name: Sign in
base_url: ${site.origin}
steps:
  - action: navigate
    url: /login
  - { action: fill, selector: "input[name=email]", value: ada@example.com }
  - { action: fill, selector: "input[name=password]", value: "${password}" }
  - { action: click, selector: "button[type=submit]", name: Submit the form }
  - { action: assert_url, url: /account }
  - { action: assert_title, title: Your account, exact: true }
  - { action: assert_text, text: "Welcome, ada@example.com" }
  - { action: screenshot, name: account }
  - { action: navigate, url: /a11y-ok }
  - { action: accessibility, standard: WCAG2.2-AA }
  - { action: navigate, url: /form }
  - { action: select, selector: "#size", values: [Large] }
  - { action: check, selector: "#name", checked: true, continue_on_error: true }
  - { action: wait_for, selector: "#tip" }
`;
  const client = await app.mcp();
  const result = await call<TestResult>(client, "run_playbook", { playbook: yaml });
  expect(result.steps!.map((s) => s.status)).toEqual([...Array(12).fill("passed"), "failed", "passed"]);
  expect(result.steps![3]).toMatchObject({ description: "Submit the form", action: "click" });
  expect(result.steps![12]!.error).toContain("Not a checkbox or radio button");
  expect(result.screenshots.map((s) => s.name)).toEqual(["account", "step-13-failed"]);
  expect(result).toMatchObject({ test: "playbook", status: "error", summary: { name: "Sign in", passed: 13, failed: 1, skipped: 0 } });
});

test("a failed step stops the run with a screenshot; later steps are skipped; JUnit lists each step", async () => {
  const playbook = { base_url: site.origin, steps: [{ action: "navigate", url: "/" }, { action: "assert_title", title: "Checkout" }, { action: "click", selector: "text=Next page" }] };
  const response = await fetch(`${app.base}/playbook/execute`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ playbook }) });
  const result = (await response.json()) as TestResult;
  expect(result.steps!.map((s) => [s.status, s.error])).toEqual([
    ["passed", undefined],
    ["failed", 'The title is "Fixture shop", expected to contain "Checkout"'],
    ["skipped", undefined],
  ]);
  expect(result.steps![1]!.screenshot).toBe("step-2-failed");
  const shot = await fetch(`${app.base}/results/${result.id}/screenshots/step-2-failed`);
  expect(shot.headers.get("content-type")).toBe("image/png");
  const junit = await fetch(`${app.base}${result.reports.junit}`).then((r) => r.text());
  expect(junit).toContain('tests="3" failures="1"');
  expect(junit).toContain("<skipped/>");
  const check = await fetch(`${app.base}/playbook/validate`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ playbook }) });
  expect(await check.json()).toEqual({ valid: true, problems: [] });
});
