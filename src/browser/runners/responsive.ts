/**
 * The responsive test: the page at each viewport (given sizes or Playwright device names; mobile, tablet and
 * desktop by default), each in its own context holding the session's cookies. Per viewport it looks for
 * horizontal overflow, elements beyond the screen's edges, tap targets under 24x24 CSS px (WCAG 2.5.8), text
 * under 12 px, and takes a screenshot; once, for a missing viewport meta tag.
 */
import { devices } from "playwright-core";
import { BrowserServiceError } from "../errors.ts";
import type { Finding, ResponsiveInput, Viewport } from "../model.ts";
import type { DriverSession, RunContext } from "../driver/session.ts";
import { bySeverity, checkCancelled, type RunOutcome, type RunnerScreenshot } from "./outcome.ts";

declare const document: any;
declare const window: any;

export const defaultViewports: Viewport[] = [
  { name: "mobile", width: 375, height: 667, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  { name: "tablet", width: 768, height: 1024, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
  { name: "desktop", width: 1440, height: 900 },
];

interface Layout {
  viewportMeta: boolean;
  scrollWidth: number;
  innerWidth: number;
  /** Elements past the edge of the page's layout width (which a phone widens when there is no viewport meta). */
  offscreen: { selector: string; left: number; right: number }[];
  smallTargets: { selector: string; width: number; height: number }[];
  smallText: { selector: string; size: number; text: string }[];
}

export function resolveViewport(given: Viewport | string): Viewport {
  if (typeof given !== "string") return { name: given.name ?? `${given.width}x${given.height}`, ...given };
  const preset = defaultViewports.find((v) => v.name === given);
  if (preset) return preset;
  const device = devices[given];
  if (!device) throw BrowserServiceError.validation(`No device named ${given}; use mobile, tablet, desktop, a Playwright device name such as "iPhone 13", or {width, height}`);
  return { name: given, ...device.viewport, deviceScaleFactor: device.deviceScaleFactor, isMobile: device.isMobile, hasTouch: device.hasTouch };
}

export async function responsive(session: DriverSession, input: ResponsiveInput, run: RunContext): Promise<RunOutcome> {
  const viewports = (input.viewports ?? defaultViewports).map(resolveViewport);
  const findings: Finding[] = [];
  const screenshots: RunnerScreenshot[] = [];
  const perViewport: Record<string, unknown>[] = [];
  let metaChecked = false;
  run.progress({ category: "responsive", phase: "start", message: `Checking ${input.url} at ${viewports.length} viewport(s)`, data: { viewports: viewports.map((v) => v.name) } });
  for (const viewport of viewports) {
    checkCancelled(run.signal);
    const name = viewport.name!;
    const context = await session.runContext({
      viewport: { width: viewport.width, height: viewport.height },
      deviceScaleFactor: viewport.deviceScaleFactor ?? 1,
      isMobile: viewport.isMobile ?? false,
      hasTouch: viewport.hasTouch ?? false,
    });
    try {
      const page = await context.newPage();
      await page.goto(input.url, { waitUntil: "load" });
      const layout: Layout = await page.evaluate(measure, viewport.width);
      const found: Finding[] = [];
      const at = (rule: string, severity: Finding["severity"], title: string, description: string, recommendation: string, selectors?: string[], data?: Record<string, unknown>): Finding => ({
        rule, category: "responsive", severity, title, description, url: page.url(), viewport: name, recommendation, ...(selectors ? { selectors } : {}), ...(data ? { data } : {}),
      });
      if (!metaChecked && !layout.viewportMeta)
        found.push(at("missing-viewport-meta", "high", "No viewport meta tag", "The page has no <meta name=viewport>, so phones lay it out at desktop width and shrink it", 'Add <meta name="viewport" content="width=device-width, initial-scale=1">.'));
      metaChecked = true;
      if (layout.scrollWidth > layout.innerWidth + 1)
        found.push(at("horizontal-overflow", "high", "Page scrolls sideways", `The page is ${layout.scrollWidth}px wide on a ${layout.innerWidth}px wide screen`, "Let content wrap or shrink: avoid fixed widths wider than the screen.", undefined, { scrollWidth: layout.scrollWidth, innerWidth: layout.innerWidth }));
      if (layout.offscreen.length)
        found.push(at("element-offscreen", "medium", "Elements beyond the screen's edge", `${layout.offscreen.length} element(s) extend past the ${layout.innerWidth}px viewport`, "Constrain the elements' width (max-width: 100%) or let them wrap.", layout.offscreen.map((e) => e.selector), { elements: layout.offscreen }));
      if (layout.smallTargets.length)
        found.push(at("small-tap-target", "medium", "Tap targets under 24x24 px", `${layout.smallTargets.length} control(s) are smaller than 24x24 CSS px (WCAG 2.5.8)`, "Make controls at least 24x24 CSS px, or space them so a 24px circle around each touches no other.", layout.smallTargets.map((e) => e.selector), { elements: layout.smallTargets }));
      if (layout.smallText.length)
        found.push(at("small-text", "low", "Text under 12px", `${layout.smallText.length} text element(s) use a font under 12px`, "Use at least 12px (16px for body text).", layout.smallText.map((e) => e.selector), { elements: layout.smallText }));
      const bytes = await page.screenshot({ fullPage: false, animations: "disabled" });
      screenshots.push({ name: `responsive-${name.replace(/[^A-Za-z0-9._-]+/g, "-")}`, bytes: new Uint8Array(bytes), url: page.url(), viewport: name, width: viewport.width, height: viewport.height });
      findings.push(...found);
      perViewport.push({ name, width: viewport.width, height: viewport.height, findings: found.length, scroll_width: layout.scrollWidth });
      run.progress({ category: "responsive", phase: "viewport", message: `${name} (${viewport.width}x${viewport.height}): ${found.length} finding(s)`, data: { viewport: name, findings: found.length } });
    } finally {
      await context.close().catch(() => {});
    }
  }
  run.progress({ category: "responsive", phase: "done", message: `${findings.length} finding(s) at ${viewports.length} viewport(s)`, data: bySeverity(findings) });
  return { url: input.url, findings, screenshots, summary: { viewports: perViewport, by_severity: bySeverity(findings) } };
}

/**
 * Runs in the page: what overflows, what is too small to tap or to read. Widths are measured against the
 * screen's, not the window's: a phone lays a page without a viewport meta tag out wider, then shrinks it.
 */
function measure(screenWidth: number): Layout {
  const selectorOf = (element: any): string => {
    const parts: string[] = [];
    for (let node = element; node && node.nodeType === 1 && parts.length < 4; node = node.parentElement) {
      if (node.id) {
        parts.unshift(`#${node.id}`);
        break;
      }
      const siblings = node.parentElement ? [...node.parentElement.children].filter((c: any) => c.tagName === node.tagName) : [];
      parts.unshift(siblings.length > 1 ? `${node.tagName.toLowerCase()}:nth-of-type(${siblings.indexOf(node) + 1})` : node.tagName.toLowerCase());
    }
    return parts.join(" > ");
  };
  const visible = (element: any) => {
    const style = window.getComputedStyle(element);
    const rect = element.getBoundingClientRect();
    return style.visibility !== "hidden" && style.display !== "none" && rect.width > 0 && rect.height > 0;
  };
  const viewportMeta = Boolean(document.querySelector('meta[name="viewport"]'));
  // Without a viewport meta tag a phone lays everything out wider; that one defect is reported on its own.
  const innerWidth = viewportMeta ? Math.min(window.innerWidth, screenWidth) : window.innerWidth;
  const all = [...document.body.querySelectorAll("*")].filter(visible);
  const offscreen = all
    .filter((element: any) => {
      const rect = element.getBoundingClientRect();
      return (rect.right > innerWidth + 1 || rect.left < -1) && ![...element.children].some((child: any) => visible(child) && child.getBoundingClientRect().right > innerWidth + 1);
    })
    .slice(0, 20)
    .map((element: any) => ({ selector: selectorOf(element), left: Math.round(element.getBoundingClientRect().left), right: Math.round(element.getBoundingClientRect().right) }));
  const interactive = 'a[href], button, input:not([type="hidden"]), select, textarea, [role="button"], [role="link"], [onclick]';
  const smallTargets = [...document.querySelectorAll(interactive)]
    .filter(visible)
    // Links inside a sentence are exempt (WCAG 2.5.8's inline exception).
    .filter((element: any) => !(element.tagName === "A" && element.closest("p")))
    .filter((element: any) => {
      const rect = element.getBoundingClientRect();
      return rect.width < 24 || rect.height < 24;
    })
    .slice(0, 20)
    .map((element: any) => ({ selector: selectorOf(element), width: Math.round(element.getBoundingClientRect().width), height: Math.round(element.getBoundingClientRect().height) }));
  const smallText = all
    .filter((element: any) => [...element.childNodes].some((node: any) => node.nodeType === 3 && node.textContent.trim()))
    .map((element: any) => ({ element, size: parseFloat(window.getComputedStyle(element).fontSize) }))
    .filter(({ size }: { size: number }) => size < 12)
    .slice(0, 20)
    .map(({ element, size }: { element: any; size: number }) => ({ selector: selectorOf(element), size, text: element.textContent.trim().slice(0, 60) }));
  return {
    viewportMeta,
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: Math.min(window.innerWidth, screenWidth),
    offscreen,
    smallTargets,
    smallText,
  };
}
