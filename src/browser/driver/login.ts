/**
 * fill_login_form in the driver: finds the username and password fields and the submit button when no
 * selectors are given, fills them, submits, and reports what the page shows afterwards. The password is typed
 * and forgotten: it is in no result, no log and, when it came from the vault, no trace.
 */
import type { Locator, Page } from "playwright-core";
import { BrowserServiceError } from "../errors.ts";
import type { LoginResult } from "../model.ts";
import type { DriverSession } from "./session.ts";

export interface LoginArgs {
  username: string;
  password: string;
  /** Where the password came from; a vault password is never typed while a trace records. */
  source: "text" | "vault";
  username_selector?: string;
  password_selector?: string;
  submit_selector?: string;
  url?: string;
}

const usernameCandidates = [
  'input[autocomplete="username"]',
  'input[type="email"]',
  'input[name*="user" i]',
  'input[id*="user" i]',
  'input[name*="email" i]',
  'input[name*="login" i]',
  'input[type="text"]',
  "input:not([type])",
].join(", ");
const submitCandidates = 'button[type="submit"], input[type="submit"], button:not([type])';
const messageCandidates = '[role="alert"], [aria-live="assertive"], [aria-live="polite"], .error, .alert, .errors, .flash';

export async function login(session: DriverSession, args: LoginArgs): Promise<LoginResult> {
  if (args.source === "vault" && session.tracing)
    throw BrowserServiceError.validation("A trace is recording in this session and would keep the vault password; stop the trace first");
  const page = session.page;
  if (args.url) {
    session.policy.check(args.url);
    await page.goto(args.url);
  }
  const password = args.password_selector ? page.locator(args.password_selector).first() : page.locator('input[type="password"]').filter({ visible: true }).first();
  if (!(await password.count()))
    throw BrowserServiceError.notFound(`No password field on ${page.url()}${args.password_selector ? ` matches ${args.password_selector}` : ""}`, { url: page.url() });
  const form = password.locator("xpath=ancestor::form[1]");
  const scope: Page | Locator = (await form.count()) ? form : page;
  const username = args.username_selector
    ? page.locator(args.username_selector).first()
    : scope.locator(usernameCandidates).filter({ visible: true }).first();
  if (!(await username.count())) throw BrowserServiceError.notFound(`No username field on ${page.url()}`, { url: page.url() });
  const submit = args.submit_selector ? page.locator(args.submit_selector).first() : scope.locator(submitCandidates).filter({ visible: true }).first();
  const hasSubmit = (await submit.count()) > 0;
  if (args.submit_selector && !hasSubmit) throw BrowserServiceError.notFound(`No submit button matches ${args.submit_selector}`);

  const fields = { username: await describe(username), password: await describe(password), submit: hasSubmit ? await describe(submit) : null };
  await username.fill(args.username);
  await password.fill(args.password);
  if (hasSubmit) await submit.click();
  else await password.press("Enter");
  await page.waitForLoadState("load");

  const gone = !(await page.locator('input[type="password"]').filter({ visible: true }).count());
  const messages = (await page.locator(messageCandidates).filter({ visible: true }).allInnerTexts())
    .map((text) => text.trim())
    .filter(Boolean)
    .map((text) => text.split(args.password).join("••••••").slice(0, 300))
    .slice(0, 10);
  return {
    status: gone ? "success" : "warning",
    url: page.url(),
    title: await page.title(),
    fields,
    password_source: args.source,
    login_form_gone: gone,
    messages,
  };
}

/** A short selector-like name of an element, for the caller to see which field was used. */
function describe(locator: Locator): Promise<string> {
  return locator.evaluate((element) => {
    const tag = element.tagName.toLowerCase();
    if (element.id) return `${tag}#${element.id}`;
    const name = element.getAttribute("name");
    if (name) return `${tag}[name="${name}"]`;
    const type = element.getAttribute("type");
    return type ? `${tag}[type="${type}"]` : tag;
  });
}
