/**
 * The driver's view of one session: its browser, one isolated context, the context's tabs, and what each tab
 * logged (console messages, network requests) for the assistant to read back. Runs in the worker thread.
 */
import type { Browser, BrowserContext, Page, Request } from "playwright-core";
import { BrowserServiceError } from "../errors.ts";
import type { ConsoleMessage, NetworkRequest, ProgressUpdate } from "../model.ts";
import { UrlPolicy } from "../url-policy.ts";
import type { DriverSettings, StorageState } from "./protocol.ts";

/** What each operation receives besides its arguments. */
export interface RunContext {
  signal: AbortSignal;
  progress(update: Omit<ProgressUpdate, "timestamp">): void;
}

const logLimit = 500;

/** A bounded log that says how many entries it let go. */
class Ring<T> {
  entries: T[] = [];
  dropped = 0;

  push(entry: T): void {
    this.entries.push(entry);
    if (this.entries.length > logLimit) {
      this.entries.shift();
      this.dropped++;
    }
  }

  clear(): void {
    this.entries = [];
    this.dropped = 0;
  }
}

interface TabLog {
  console: Ring<ConsoleMessage>;
  network: Ring<NetworkRequest & { started: number }>;
}

export class DriverSession {
  context!: BrowserContext;
  readonly policy: UrlPolicy;
  readonly #tabs: Page[] = [];
  readonly #logs = new WeakMap<Page, TabLog>();
  #current = 0;
  /** Pages test runs use in this context, kept between runs; never tabs. */
  #runPages: Page[] = [];
  #openingRunPage = false;
  tracing = false;

  constructor(
    readonly browser: Browser,
    readonly settings: DriverSettings,
  ) {
    this.policy = new UrlPolicy(settings.hostRules);
  }

  /** Replaces the context with a fresh one, holding `storageState` when given; the old one's tabs close. */
  async openContext(storageState?: StorageState): Promise<void> {
    const old = this.context;
    this.#tabs.length = 0;
    this.#runPages = [];
    this.#current = 0;
    this.tracing = false;
    this.context = await this.newContext({ storageState: storageState as never });
    this.context.on("page", (page) => this.#adopt(page));
    await this.context.newPage();
    await old?.close().catch(() => {});
  }

  /** A context with the session's timeouts and host rules, for the session itself or a test's own viewport. */
  async newContext(options: Parameters<Browser["newContext"]>[0] = {}): Promise<BrowserContext> {
    const context = await this.browser.newContext({ ignoreHTTPSErrors: false, ...options });
    context.setDefaultTimeout(this.settings.actionTimeoutMs);
    context.setDefaultNavigationTimeout(this.settings.navigationTimeoutMs);
    if (!this.policy.open)
      await context.route("**/*", (route) => (this.policy.permits(new URL(route.request().url())) ? route.fallback() : route.abort("blockedbyclient")));
    return context;
  }

  /**
   * `count` pages for a test run in the session's own context, so the run carries the session's cookies (a test
   * can look behind a login). They are kept for the next run, which saves a renderer start per page, and are never
   * the session's tabs. Operations on a session run one at a time, so no tab can open while one is made.
   */
  async runPages(count: number): Promise<Page[]> {
    this.#runPages = this.#runPages.filter((page) => !page.isClosed());
    while (this.#runPages.length < count) {
      this.#openingRunPage = true;
      try {
        this.#runPages.push(await this.context.newPage());
      } finally {
        this.#openingRunPage = false;
      }
    }
    return this.#runPages.slice(0, count);
  }

  /** Leaves a run's pages blank, so nothing a page scheduled reaches the next run. */
  async releaseRunPages(pages: Page[]): Promise<void> {
    await Promise.all(pages.map((page) => page.goto("about:blank").catch(() => {})));
  }

  /**
   * A context of its own for a run that needs other settings (a viewport, a phone) or must leave no trace in the
   * session (a playbook), holding the session's cookies and local storage.
   */
  async runContext(options: Parameters<Browser["newContext"]>[0] = {}): Promise<BrowserContext> {
    return this.newContext({ ...options, storageState: (await this.context.storageState()) as never });
  }

  get page(): Page {
    const page = this.#tabs[this.#current];
    if (!page) throw BrowserServiceError.notFound("The session has no open tab; open one with the tabs tool (action new)");
    return page;
  }

  get tabs(): readonly Page[] {
    return this.#tabs;
  }

  get currentIndex(): number {
    return this.#current;
  }

  select(index: number): Page {
    if (!this.#tabs[index]) throw BrowserServiceError.notFound(`No tab ${index}; there are ${this.#tabs.length}`, { tabs: this.#tabs.length });
    this.#current = index;
    return this.#tabs[index]!;
  }

  log(page: Page = this.page): TabLog {
    return this.#logs.get(page)!;
  }

  #adopt(page: Page): void {
    if (this.#openingRunPage) return;
    this.#tabs.push(page);
    this.#current = this.#tabs.length - 1;
    const log: TabLog = { console: new Ring(), network: new Ring() };
    this.#logs.set(page, log);
    page.on("close", () => {
      const at = this.#tabs.indexOf(page);
      if (at >= 0) this.#tabs.splice(at, 1);
      this.#current = Math.max(0, Math.min(this.#current, this.#tabs.length - 1));
    });
    page.on("console", (message) => {
      const { url, lineNumber, columnNumber } = message.location();
      log.console.push({
        level: message.type(),
        text: message.text(),
        url: page.url(),
        location: url ? `${url}:${lineNumber + 1}:${columnNumber + 1}` : undefined,
        timestamp: new Date().toISOString(),
      });
    });
    page.on("pageerror", (error) =>
      log.console.push({ level: "error", text: `Uncaught ${error.name}: ${error.message}`, url: page.url(), timestamp: new Date().toISOString() }),
    );
    const entries = new WeakMap<Request, NetworkRequest & { started: number }>();
    page.on("request", (request) => {
      const entry = { method: request.method(), url: request.url(), resource_type: request.resourceType(), status: null, duration_ms: null, started: performance.now() };
      entries.set(request, entry);
      log.network.push(entry);
    });
    const finish = (request: Request, failure?: string) => {
      const entry = entries.get(request);
      if (!entry) return;
      entry.duration_ms = Math.round(performance.now() - entry.started);
      if (failure) entry.failure = failure;
    };
    page.on("response", (response) => {
      const entry = entries.get(response.request());
      if (entry) entry.status = response.status();
    });
    page.on("requestfinished", (request) => finish(request));
    page.on("requestfailed", (request) => finish(request, request.failure()?.errorText ?? "failed"));
  }
}
