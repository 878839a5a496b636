/** The four test runners on local pages with known defects: the exact findings, progress, results and reports. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestResult } from "../../src/browser/model.ts";
import { startSite, type Site } from "./site.ts";
import { call, startBrowserApp, type BrowserApp } from "./support.ts";

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

const rules = (result: TestResult) => result.findings.map((f) => f.rule).sort();

test("accessibility: axe-core finds exactly the page's WCAG violations at the chosen level", async () => {
  const client = await app.mcp();
  const aa = await call<TestResult>(client, "run_accessibility_test", { url: site.url("/a11y") });
  expect(rules(aa)).toEqual(["button-name", "color-contrast", "html-has-lang", "image-alt", "label"]);
  expect(aa.status).toBe("error");
  const contrast = aa.findings.find((f) => f.rule === "color-contrast")!;
  expect(contrast).toMatchObject({ severity: "high", impact: "serious", wcag: ["1.4.3"], selectors: ["p"], html: '<p style="color:#aaa;background:#fff">Low contrast text</p>' });
  expect(contrast.recommendation).toContain("contrast");
  expect(contrast.help_url).toStartWith("https://dequeuniversity.com/rules/axe/");
  expect(aa.findings.find((f) => f.rule === "image-alt")).toMatchObject({ severity: "critical", wcag: ["1.1.1"], selectors: ["img"] });
  // Level A leaves out AA's contrast rule.
  const a = await call<TestResult>(client, "run_accessibility_test", { url: site.url("/a11y"), standard: "WCAG2.1-A" });
  expect(rules(a)).toEqual(["button-name", "html-has-lang", "image-alt", "label"]);
  const clean = await call<TestResult>(client, "run_accessibility_test", { url: site.url("/a11y-ok"), standard: "WCAG2.2-AA" });
  expect(clean).toMatchObject({ status: "success", findings: [], summary: { standard: "WCAG2.2-AA" } });
});

test("exploratory: a crawl within depth and page caps finds the broken link, errors, unlabelled field; progress is sent", async () => {
  const client = await app.mcp();
  const progress: string[] = [];
  const result = (
    await client.callTool({ name: "run_exploratory_test", arguments: { url: site.url("/crawl/"), max_depth: 2, max_pages: 20 } }, undefined, {
      onprogress: (p) => void progress.push(p.message ?? ""),
    })
  ).structuredContent as TestResult;
  const pages = (result.summary.pages as { url: string; depth: number; status: number }[]).map((p) => [p.url.replace(site.origin, ""), p.depth, p.status]);
  expect(pages).toEqual([
    ["/crawl/", 0, 200],
    ["/crawl/a", 1, 200],
    ["/crawl/b", 1, 200],
    ["/crawl/errors", 1, 200],
    ["/crawl/form", 1, 200],
    ["/crawl/missing", 1, 404],
    ["/crawl/deep", 2, 200],
  ]);
  expect(rules(result)).toEqual(["broken-link", "console-error", "failed-request", "form-missing-label", "uncaught-exception"]);
  expect(result.findings.find((f) => f.rule === "broken-link")).toMatchObject({ url: site.url("/crawl/"), data: { target: site.url("/crawl/missing"), status: 404 } });
  expect(result.findings.find((f) => f.rule === "form-missing-label")).toMatchObject({ selectors: ['input[name="phone"]'] });
  expect(result.findings.find((f) => f.rule === "uncaught-exception")!.description).toBe("TypeError: crawl exception");
  expect(result.findings.find((f) => f.rule === "failed-request")!.data).toMatchObject({ request: site.url("/crawl/nothing.png"), status: 404 });
  expect(progress.length).toBeGreaterThanOrEqual(8);
  expect(progress.some((m) => m.includes("/crawl/missing: 404"))).toBe(true);

  const capped = await call<TestResult>(client, "run_exploratory_test", { url: site.url("/crawl/"), max_depth: 3, max_pages: 3, check_errors: false, include_forms: false });
  expect(capped.summary.pages_visited).toBe(3);
  expect(rules(capped)).toEqual([]);
});

test("responsive: overflow, off-screen elements, small tap targets and text, no viewport meta; a screenshot per viewport", async () => {
  const client = await app.mcp();
  const result = await call<TestResult>(client, "run_responsive_test", { url: site.url("/responsive"), viewports: ["mobile", { name: "wide", width: 1280, height: 800 }] });
  const byViewport = (name: string) => result.findings.filter((f) => f.viewport === name).map((f) => f.rule).sort();
  expect(byViewport("mobile")).toEqual(["horizontal-overflow", "missing-viewport-meta", "small-tap-target", "small-text"]);
  expect(byViewport("wide")).toEqual(["small-tap-target", "small-text"]);
  expect(result.findings.find((f) => f.rule === "small-tap-target")).toMatchObject({ selectors: ["#tiny"] });
  expect(result.findings.find((f) => f.rule === "small-text")).toMatchObject({ selectors: ["#fine"] });
  expect(result.screenshots.map((s) => [s.viewport, s.width])).toEqual([["mobile", 375], ["wide", 1280]]);
  const shot = await fetch(`${app.base}${result.screenshots[0]!.file}`);
  expect(shot.headers.get("content-type")).toBe("image/png");
  const wide = await call<TestResult>(client, "run_responsive_test", { url: site.url("/responsive-wide"), viewports: ["mobile"] });
  expect(wide.findings.map((f) => [f.rule, f.selectors])).toEqual([["horizontal-overflow", undefined], ["element-offscreen", ["#banner"]]]);
  const device = await call<TestResult>(client, "run_responsive_test", { url: site.url("/responsive-ok"), viewports: ["iPhone 13", "desktop"] });
  expect(device).toMatchObject({ status: "success", findings: [] });
  expect(device.screenshots.map((s) => s.width)).toEqual([390, 1440]);
});

test("security: each weak header, cookie and form is one finding with a severity; a well-set page has none", async () => {
  const client = await app.mcp();
  const weak = await call<TestResult>(client, "run_security_test", { url: site.url("/secure-bad") });
  expect(weak.findings.map((f) => [f.rule, f.severity]).sort()).toEqual([
    ["cookie-missing-httponly", "low"],
    ["cookie-over-http", "medium"],
    ["cors-wildcard-credentials", "high"],
    ["missing-csp", "medium"],
    ["missing-frame-protection", "medium"],
    ["missing-referrer-policy", "low"],
    ["missing-x-content-type-options", "low"],
    ["password-over-http", "high"],
    ["version-disclosure", "low"],
    ["version-disclosure", "low"],
  ]);
  expect(weak.findings.filter((f) => f.rule === "version-disclosure").map((f) => f.data?.header).sort()).toEqual(["server", "x-powered-by"]);
  const strong = await call<TestResult>(client, "run_security_test", { url: site.url("/secure-good") });
  expect(strong).toMatchObject({ status: "success", findings: [] });
});

test("a cancelled test stops between pages, and its session goes on serving", async () => {
  const client = await app.mcp();
  const controller = new AbortController();
  let pages = 0;
  const call = client.callTool({ name: "run_exploratory_test", arguments: { url: site.url("/site/0"), max_depth: 10, max_pages: 50 } }, undefined, {
    signal: controller.signal,
    onprogress: (progress) => {
      if (progress.message?.includes(": 200 in ") && ++pages === 2) controller.abort();
    },
  });
  await expect(call).rejects.toThrow();
  const next = await client.callTool({ name: "navigate_to_url", arguments: { url: site.url("/next") } });
  expect(next.structuredContent).toMatchObject({ title: "Next page" });
  const stored = (await app.capability.browser.results()).filter((r) => r.url === site.url("/site/0"));
  expect(stored).toEqual([]);
});
