/**
 * The exploratory test: a same-origin crawl from a start URL within a depth and a page cap, several pages at once
 * (browser.crawl_concurrency). On every page it notes console errors, uncaught exceptions, failed requests, links
 * that lead nowhere, forms and their unlabelled fields, missing navigation and slow loads.
 */
import type { Page, Request, Response } from "playwright-core";
import type { ExploratoryInput, Finding } from "../model.ts";
import type { DriverSession, RunContext } from "../driver/session.ts";
import { bySeverity, checkCancelled, type RunOutcome } from "./outcome.ts";

// In-page code runs in the browser; its DOM is typed loosely here.
declare const document: any;

interface PageFacts {
  title: string;
  links: { href: string; text: string }[];
  forms: { action: string; method: string; fields: { name: string; type: string; labelled: boolean; selector: string }[]; hasSubmit: boolean }[];
  navigation: number;
}

interface Visit {
  url: string;
  depth: number;
  status: number | null;
  load_ms: number;
  links: number;
  forms: number;
  error?: string;
}

const external = 50;

export async function exploratory(session: DriverSession, input: ExploratoryInput, run: RunContext): Promise<RunOutcome> {
  const { max_depth = 3, max_pages = 10, include_forms = true, include_navigation = true, check_errors = true } = input;
  const start = new URL(input.url);
  const origin = start.origin;
  const findings: Finding[] = [];
  const visits: Visit[] = [];
  const seen = new Set<string>([key(start)]);
  const referrers = new Map<string, string>();
  const externalLinks = new Map<string, string>();
  const queue: { url: string; depth: number }[] = [{ url: start.href, depth: 0 }];
  const { crawlConcurrency, slowPageMs } = session.settings;
  run.progress({ category: "exploratory", phase: "start", message: `Crawling ${origin} (depth ${max_depth}, up to ${max_pages} pages)`, data: { url: start.href } });

  const visit = async (page: Page, target: { url: string; depth: number }) => {
    const problems: Finding[] = [];
    const onConsole = (message: { type(): string; text(): string }) => {
      // Chromium also logs each failed resource load; those are reported once, as failed requests.
      if (message.type() === "error" && !message.text().startsWith("Failed to load resource"))
        problems.push(finding("console-error", "errors", "medium", "Console error", message.text(), target.url, "Find the script that logs this error and fix its cause."));
    };
    const onPageError = (error: Error) =>
      problems.push(finding("uncaught-exception", "errors", "high", "Uncaught exception", `${error.name}: ${error.message}`, target.url, "Handle the exception or fix the code that throws it."));
    const onRequestFailed = (request: Request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) return;
      problems.push(finding("failed-request", "errors", "medium", "Request failed", `${request.method()} ${request.url()}: ${request.failure()?.errorText ?? "failed"}`, target.url, "Serve the resource or remove the reference to it.", { request: request.url() }));
    };
    const onResponse = (response: Response) => {
      const request = response.request();
      if (response.status() < 400 || (request.isNavigationRequest() && request.frame() === page.mainFrame())) return;
      problems.push(finding("failed-request", "errors", "medium", `Request answered ${response.status()}`, `${request.method()} ${response.url()} answered ${response.status()}`, target.url, "Serve the resource or remove the reference to it.", { request: response.url(), status: response.status() }));
    };
    if (check_errors) {
      page.on("console", onConsole);
      page.on("pageerror", onPageError);
      page.on("requestfailed", onRequestFailed);
      page.on("response", onResponse);
    }
    const started = performance.now();
    const record: Visit = { url: target.url, depth: target.depth, status: null, load_ms: 0, links: 0, forms: 0 };
    try {
      const response = await page.goto(target.url, { waitUntil: "load" });
      record.load_ms = Math.round(performance.now() - started);
      record.status = response?.status() ?? null;
      if ((record.status ?? 0) >= 400) {
        const from = referrers.get(key(new URL(target.url)));
        problems.push(
          from
            ? finding("broken-link", "navigation", "high", `Broken link (${record.status})`, `A link on ${from} leads to ${target.url}, which answers ${record.status}`, from, "Fix the link's target or remove the link.", { target: target.url, status: record.status })
            : finding("page-error", "errors", "high", `Page answered ${record.status}`, `${target.url} answered ${record.status}`, target.url, "Make the page answer successfully."),
        );
      } else {
        const facts: PageFacts = await page.evaluate(collectFacts);
        record.links = facts.links.length;
        record.forms = facts.forms.length;
        for (const link of facts.links) {
          const href = new URL(link.href);
          if (href.protocol !== "http:" && href.protocol !== "https:") continue;
          if (href.origin !== origin) {
            if (include_navigation && externalLinks.size < external && session.policy.permits(href)) externalLinks.set(href.href.split("#")[0]!, target.url);
            continue;
          }
          const id = key(href);
          if (seen.has(id) || target.depth + 1 > max_depth || seen.size >= max_pages) continue;
          seen.add(id);
          referrers.set(id, target.url);
          queue.push({ url: href.href.split("#")[0]!, depth: target.depth + 1 });
        }
        if (include_forms) problems.push(...formFindings(facts, target.url));
        if (include_navigation && facts.navigation === 0 && target.depth === 0)
          problems.push(finding("missing-navigation", "navigation", "low", "No navigation landmark", `${target.url} has no <nav> element or navigation role`, target.url, "Wrap the site's main links in a <nav> with an accessible name."));
        if (record.load_ms > slowPageMs)
          problems.push(finding("slow-page", "performance", "medium", "Slow page", `${target.url} took ${record.load_ms} ms to load (limit ${slowPageMs} ms)`, target.url, "Reduce what the page loads before its load event.", { load_ms: record.load_ms }));
      }
    } catch (error) {
      record.error = (error as Error).message.split("\n")[0];
      const from = referrers.get(key(new URL(target.url)));
      problems.push(finding(from ? "broken-link" : "page-error", from ? "navigation" : "errors", "high", "Page could not be loaded", `${target.url}: ${record.error}`, from ?? target.url, "Make the page load, or fix the link to it.", { target: target.url }));
    } finally {
      page.removeAllListeners();
    }
    visits.push(record);
    findings.push(...problems);
    run.progress({ category: "exploratory", phase: "page", message: `${target.url}: ${record.status ?? record.error} in ${record.load_ms} ms, ${problems.length} finding(s)`, data: { ...record, findings: problems.length, visited: visits.length } });
  };

  const pages = await session.runPages(Math.min(crawlConcurrency, max_pages));
  // Workers take pages from the queue; a worker that finds it empty waits while others may still add to it.
  let active = 0;
  const wake = new Set<() => void>();
  const worker = async (page: Page) => {
    for (;;) {
      checkCancelled(run.signal);
      const next = queue.shift();
      if (!next) {
        if (active === 0) break;
        const { promise, resolve } = Promise.withResolvers<void>();
        wake.add(resolve);
        await promise;
        continue;
      }
      active++;
      try {
        await visit(page, next);
      } finally {
        active--;
        for (const resolve of wake) resolve();
        wake.clear();
      }
    }
  };
  try {
    await Promise.all(pages.map(worker));
  } finally {
    await session.releaseRunPages(pages);
  }

  if (include_navigation && externalLinks.size) {
    run.progress({ category: "exploratory", phase: "links", message: `Checking ${externalLinks.size} link(s) to other sites` });
    await Promise.all([...externalLinks].map(async ([url, from]) => {
      const status = await session.context.request.head(url, { timeout: 5000, maxRedirects: 5 }).then((r) => r.status(), (e: Error) => e.message.split("\n")[0]!);
      if (typeof status === "string" || status >= 400)
        findings.push(finding("broken-link", "navigation", "high", "Broken link to another site", `A link on ${from} leads to ${url}: ${status}`, from, "Fix the link's target or remove the link.", { target: url, status }));
    }));
  }
  visits.sort((a, b) => a.depth - b.depth || a.url.localeCompare(b.url));
  run.progress({ category: "exploratory", phase: "done", message: `${visits.length} page(s), ${findings.length} finding(s)`, data: bySeverity(findings) });
  return {
    url: start.href,
    findings,
    screenshots: [],
    summary: {
      pages_visited: visits.length,
      max_depth,
      max_pages,
      external_links_checked: include_navigation ? externalLinks.size : 0,
      by_severity: bySeverity(findings),
      pages: visits,
    },
  };
}

const key = (url: URL) => `${url.origin}${url.pathname}${url.search}`;

function finding(rule: string, category: string, severity: Finding["severity"], title: string, description: string, url: string, recommendation: string, data?: Record<string, unknown>): Finding {
  return { rule, category, severity, title, description, url, recommendation, ...(data ? { data } : {}) };
}

function formFindings(facts: PageFacts, url: string): Finding[] {
  const found: Finding[] = [];
  for (const form of facts.forms) {
    for (const field of form.fields.filter((f) => !f.labelled))
      found.push({ ...finding("form-missing-label", "forms", "medium", "Form field without a label", `The ${field.type} field ${field.name || field.selector} has no label`, url, "Give the field a <label for>, an aria-label or aria-labelledby."), selectors: [field.selector] });
    if (!form.hasSubmit)
      found.push(finding("form-without-submit", "forms", "low", "Form without a submit button", `The form posting to ${form.action} has no submit button`, url, "Add a <button type=submit> so the form works without a script."));
  }
  return found;
}

/** Runs in the page: its links, forms (fields and whether each has a label) and navigation landmarks. */
function collectFacts(): PageFacts {
  const selectorOf = (element: any): string => {
    if (element.id) return `#${element.id}`;
    const name = element.getAttribute("name");
    return name ? `${element.tagName.toLowerCase()}[name="${name}"]` : element.tagName.toLowerCase();
  };
  const labelled = (field: any) =>
    Boolean(field.labels?.length || field.getAttribute("aria-label") || field.getAttribute("aria-labelledby") || field.getAttribute("title"));
  return {
    title: document.title,
    links: [...document.querySelectorAll("a[href]")].map((a: any) => ({ href: a.href, text: (a.textContent ?? "").trim().slice(0, 100) })),
    forms: [...document.querySelectorAll("form")].map((form: any) => ({
      action: form.action,
      method: (form.method || "get").toLowerCase(),
      hasSubmit: Boolean(form.querySelector('button:not([type]), button[type="submit"], input[type="submit"], input[type="image"]')),
      fields: [...form.querySelectorAll("input, select, textarea")]
        .filter((field: any) => !["hidden", "submit", "button", "reset", "image"].includes(field.type))
        .map((field: any) => ({ name: field.name, type: field.type, labelled: labelled(field), selector: selectorOf(field) })),
    })),
    navigation: document.querySelectorAll('nav, [role="navigation"]').length,
  };
}
