/** The setup page end to end in a real headless Chromium: one-time link, add a service, check it, remove it. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Browser } from "playwright-core";
import { launchChromium, type RunningChromium } from "../support/chromium.ts";
import { repoRoot } from "../support/cli.ts";
import { githubToken, githubUpstream, startVault, type Harness } from "./harness.ts";

let chrome: RunningChromium;
let browser: Browser;
let h: Harness;
const github = githubUpstream();
const artifacts = join(repoRoot, ".test-artifacts");

beforeAll(async () => {
  chrome = await launchChromium();
  browser = chrome.browser;
  h = await startVault();
  mkdirSync(artifacts, { recursive: true });
}, 600_000);
afterAll(async () => {
  await chrome?.close();
  await h?.close();
  github.stop(true);
});

test("without the one-time link there is no session; the link works once", async () => {
  const page = await (await browser.newContext()).newPage();
  const url = h.capability.setupLink()!;
  expect(new URL(url).hostname).toBe("127.0.0.1");
  expect((await page.goto(url.replace(/once=.*/, "")))?.status()).toBe(401);
  expect((await page.goto(url.split("/login")[0]!))?.status()).toBe(401);
  await page.context().close();
}, 30_000);

let session: Awaited<ReturnType<Browser["newContext"]>>;

test("an operator adds a service from a template, checks it and removes it", async () => {
  session = await browser.newContext();
  const page = await session.newPage();
  await page.goto(h.capability.setupLink()!);
  await expect(page.getByRole("heading", { name: "Credential vault setup" }).isVisible()).resolves.toBe(true);

  await page.getByLabel("Template").selectOption("custom");
  await page.getByRole("button", { name: "Next" }).click();
  await page.getByLabel("Name", { exact: true }).fill("octo");
  await page.getByLabel("Base URL").fill(`http://127.0.0.1:${github.port}`);
  await page.getByLabel("Injection").selectOption("bearer");
  await page.getByLabel("Probe path (GET)").fill("/user");
  await page.getByLabel("Token").fill(githubToken);
  await page.getByLabel("Allow loopback addresses").check();
  await page.getByRole("button", { name: "Add service" }).click();
  await expect(page.getByRole("status").textContent()).resolves.toContain("Added octo");

  const row = page.locator('tr[data-service="octo"]');
  await row.getByRole("button", { name: "Check" }).click();
  await expect(page.getByRole("status").textContent()).resolves.toBe("octo: working");
  await expect(page.locator('tr[data-service="octo"] td.working').isVisible()).resolves.toBe(true);
  expect(await page.content()).not.toContain(githubToken);
  await page.screenshot({ path: join(artifacts, "vault-setup.png"), fullPage: true });

  // A second use of the link is refused: it was one-time.
  const other = await (await browser.newContext()).newPage();
  expect((await other.goto(h.capability.setupLink()!))?.status()).toBe(401);
  await other.context().close();

  await page.locator('tr[data-service="octo"]').getByRole("button", { name: "Remove" }).click();
  await expect(page.getByRole("status").textContent()).resolves.toBe("Removed octo");
  expect(await page.locator('tr[data-service="octo"]').count()).toBe(0);
}, 60_000);

test("a refused form comes back with what was typed and why; the credential fields come back empty", async () => {
  const page = await session.newPage();
  await page.goto(h.capability.setupLink()!.split("/login")[0]! + "/add?template=custom");
  await page.getByLabel("Name", { exact: true }).fill("octo2");
  await page.getByLabel("Base URL").fill("ftp://127.0.0.1/files");
  await page.getByLabel("Injection").selectOption("header");
  await page.getByLabel("Header or parameter name").fill("X-Octo-Key");
  await page.getByLabel("Probe path (GET)").fill("/user");
  await page.getByLabel("Token").fill(githubToken);
  await page.getByLabel("Allow loopback addresses").check();
  await page.getByRole("button", { name: "Add service" }).click();

  await expect(page.getByRole("alert").textContent()).resolves.toContain("base_url must be http or https");
  expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("octo2");
  expect(await page.getByLabel("Base URL").inputValue()).toBe("ftp://127.0.0.1/files");
  expect(await page.getByLabel("Injection").inputValue()).toBe("header");
  expect(await page.getByLabel("Header or parameter name").inputValue()).toBe("X-Octo-Key");
  expect(await page.getByLabel("Probe path (GET)").inputValue()).toBe("/user");
  expect(await page.getByLabel("Allow loopback addresses").isChecked()).toBe(true);
  expect(await page.getByLabel("Token").inputValue()).toBe("");
  expect(await page.content()).not.toContain(githubToken);

  // Put right, with the credential typed again, it goes through.
  await page.getByLabel("Base URL").fill(`http://127.0.0.1:${github.port}`);
  await page.getByLabel("Token").fill(githubToken);
  await page.getByRole("button", { name: "Add service" }).click();
  await expect(page.getByRole("status").textContent()).resolves.toBe("Added octo2");
  await h.capability.vault.removeService("octo2", { name: "t", services: ["*"] });
  await page.close();
}, 30_000);

test("a form post without the session's CSRF token, or without a session, changes nothing", async () => {
  const base = h.capability.setupLink()!.split("/login")[0]!;
  const form = { name: "forged", template: "github", cred_token: "x".repeat(40) };
  // Even with the session cookie, a post that lacks the page's CSRF token is refused.
  const withCookie = await session.request.post(`${base}/services`, { form: { ...form, csrf: "guessed" } });
  expect(await withCookie.text()).toContain("CSRF check failed");
  const stranger = await browser.newContext();
  expect((await stranger.request.post(`${base}/services`, { form })).status()).toBe(401);
  await stranger.close();
  expect((await h.capability.vault.services({ name: "t", services: ["*"] })).map((s) => s.name)).not.toContain("forged");
  await session.close();
}, 30_000);
