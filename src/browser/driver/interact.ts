/**
 * The interaction operations an assistant drives a page with, as Playwright MCP offers them: navigate, snapshot
 * (Playwright's aria snapshot in its AI mode, whose refs the other operations accept), click, type, keys,
 * options, hover, waits, tabs, history, console and network logs, screenshots and traces. Runs in the worker.
 */
import type { Locator, Page } from "playwright-core";
import { BrowserServiceError } from "../errors.ts";
import type {
  ActionResult,
  ClickInput,
  ConsoleInput,
  HoverInput,
  NavigateInput,
  NavigateResult,
  NetworkInput,
  PressKeyInput,
  ScreenshotInput,
  SelectInput,
  SnapshotResult,
  TabsInput,
  TabsResult,
  Target,
  TraceStartInput,
  TypeInput,
  WaitForInput,
} from "../model.ts";
import type { DriverSession } from "./session.ts";

const staticTypes = new Set(["image", "font", "stylesheet", "script", "media", "manifest"]);

/** The element a target names. A ref must be in the latest snapshot now; a selector may still appear (until the action's timeout). */
export async function locate(page: Page, { ref, selector, element }: Target): Promise<Locator> {
  if (ref) {
    const found = page.getByRef(ref);
    if (!(await found.count()))
      throw BrowserServiceError.notFound(`No element ${ref}${element ? ` (${element})` : ""} in the latest snapshot of this page; take a new snapshot`, { ref });
    return found;
  }
  if (selector) return page.locator(selector);
  throw BrowserServiceError.validation(`Say which element${element ? ` (${element})` : ""}: give a ref from the latest snapshot or a selector`);
}

/** The aria snapshot with refs; a password box shows that it holds a value, never the value. */
export async function snapshotOf(session: DriverSession): Promise<SnapshotResult> {
  const page = session.page;
  const [snapshot, title] = await Promise.all([page.ariaSnapshot({ mode: "ai" }), page.title()]);
  return { url: page.url(), title, snapshot: await maskPasswords(page, snapshot), tabs: session.tabs.length };
}

async function maskPasswords(page: Page, snapshot: string): Promise<string> {
  const values = await page
    .locator("input[type=password]")
    .evaluateAll((inputs) => inputs.map((input) => (input as unknown as { value: string }).value).filter((value) => value.length > 0));
  let masked = snapshot;
  for (const value of values) masked = masked.split(value).join("••••••");
  return masked;
}

async function acted(session: DriverSession, action: string, wantSnapshot: boolean | undefined, detail?: string): Promise<ActionResult> {
  const page = session.page;
  if (wantSnapshot) {
    const { url, title, snapshot } = await snapshotOf(session);
    return { status: "success", action, url, title, detail, snapshot };
  }
  return { status: "success", action, url: page.url(), title: await page.title(), detail };
}

export async function navigate(session: DriverSession, { url, wait_until = "load" }: NavigateInput): Promise<NavigateResult> {
  session.policy.check(url);
  const page = session.page;
  const started = performance.now();
  const response = await page.goto(url, { waitUntil: wait_until });
  return {
    status: "success",
    url: page.url(),
    title: await page.title(),
    status_code: response?.status() ?? null,
    load_time_ms: Math.round(performance.now() - started),
  };
}

export async function screenshot(session: DriverSession, input: ScreenshotInput) {
  if (input.url) await navigate(session, { url: input.url });
  const page = session.page;
  const bytes =
    input.ref || input.selector
      ? await (await locate(page, input)).screenshot({ animations: "disabled" })
      : await page.screenshot({ fullPage: input.full_page ?? false, animations: "disabled" });
  return { bytes: new Uint8Array(bytes), url: page.url(), title: await page.title() };
}

/** A smaller JPEG of the current view, for an assistant whose image budget the full screenshot exceeds. */
export async function compactScreenshot(session: DriverSession, { quality }: { quality: number }) {
  return { bytes: new Uint8Array(await session.page.screenshot({ type: "jpeg", quality, scale: "css", animations: "disabled" })) };
}

export const snapshot = (session: DriverSession) => snapshotOf(session);

export async function click(session: DriverSession, input: ClickInput) {
  const target = await locate(session.page, input);
  if (input.double_click) await target.dblclick({ button: input.button });
  else await target.click({ button: input.button });
  return acted(session, input.double_click ? "double_click" : "click", input.snapshot, input.element);
}

export async function type(session: DriverSession, input: TypeInput) {
  const target = await locate(session.page, input);
  if (input.slowly) await target.pressSequentially(input.text);
  else await target.fill(input.text);
  if (input.submit) await target.press("Enter");
  return acted(session, "type", input.snapshot, input.element);
}

export async function pressKey(session: DriverSession, input: PressKeyInput) {
  await session.page.keyboard.press(input.key);
  return acted(session, "press_key", input.snapshot, input.key);
}

export async function selectOption(session: DriverSession, input: SelectInput) {
  const chosen = await (await locate(session.page, input)).selectOption(input.values);
  return acted(session, "select_option", input.snapshot, `selected ${chosen.join(", ")}`);
}

export async function hover(session: DriverSession, input: HoverInput) {
  await (await locate(session.page, input)).hover();
  return acted(session, "hover", input.snapshot, input.element);
}

export async function waitFor(session: DriverSession, input: WaitForInput) {
  const page = session.page;
  const timeout = input.timeout_ms;
  const started = performance.now();
  if (input.selector) await page.locator(input.selector).first().waitFor({ state: input.state, timeout });
  else if (input.text) await page.getByText(input.text).first().waitFor({ state: "visible", timeout });
  else if (input.text_gone) await page.getByText(input.text_gone).first().waitFor({ state: "hidden", timeout });
  else throw BrowserServiceError.validation("Say what to wait for: text, text_gone or selector");
  return { status: "success" as const, url: page.url(), title: await page.title(), waited_ms: Math.round(performance.now() - started) };
}

export async function tabs(session: DriverSession, input: TabsInput): Promise<TabsResult> {
  if (input.action === "new") {
    const page = await session.context.newPage();
    if (input.url) {
      session.policy.check(input.url);
      await page.goto(input.url);
    }
  } else if (input.action === "select") {
    session.select(required(input.index, "index"));
  } else if (input.action === "close") {
    const page = input.index === undefined ? session.page : session.select(input.index);
    await page.close();
  }
  const list = await Promise.all(
    session.tabs.map(async (page, index) => ({ index, url: page.url(), title: await page.title(), current: index === session.currentIndex })),
  );
  return { tabs: list };
}

export async function goBack(session: DriverSession, input: { snapshot?: boolean }) {
  const response = await session.page.goBack();
  return acted(session, "back", input.snapshot, response ? undefined : "there was no earlier page");
}

export async function goForward(session: DriverSession, input: { snapshot?: boolean }) {
  const response = await session.page.goForward();
  return acted(session, "forward", input.snapshot, response ? undefined : "there was no later page");
}

export function consoleMessages(session: DriverSession, input: ConsoleInput) {
  const log = session.log().console;
  const wanted = input.level ?? "all";
  const levelOf = (level: string) => (level === "warn" ? "warning" : level === "error" ? "error" : "info");
  const messages = log.entries.filter((message) => wanted === "all" || levelOf(message.level) === wanted);
  const dropped = log.dropped;
  if (input.clear) log.clear();
  return Promise.resolve({ messages, dropped });
}

export function networkRequests(session: DriverSession, input: NetworkInput) {
  const log = session.log().network;
  const requests = log.entries
    .filter((entry) => input.include_static || !staticTypes.has(entry.resource_type))
    .filter((entry) => !input.failed_only || entry.failure !== undefined || (entry.status ?? 0) >= 400)
    .map(({ started: _started, ...entry }) => entry);
  const dropped = log.dropped;
  if (input.clear) log.clear();
  return Promise.resolve({ requests, dropped });
}

export async function traceStart(session: DriverSession, input: TraceStartInput) {
  if (session.tracing) throw BrowserServiceError.validation("A trace is already being recorded in this session; stop it first");
  await session.context.tracing.start({ screenshots: input.screenshots ?? true, snapshots: input.snapshots ?? true, sources: false });
  session.tracing = true;
  return { status: "success" as const, tracing: true };
}

export async function traceStop(session: DriverSession, { path }: { path: string }) {
  if (!session.tracing) throw BrowserServiceError.validation("No trace is being recorded in this session; start one with start_trace");
  await session.context.tracing.stop({ path });
  session.tracing = false;
  return { status: "success" as const, tracing: false };
}

export async function storageState(session: DriverSession) {
  return session.context.storageState();
}

function required<T>(value: T | undefined, name: string): T {
  if (value === undefined) throw BrowserServiceError.validation(`${name} is required for this action`);
  return value;
}
