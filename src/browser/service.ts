/**
 * The browser server's logic, free of any wire format: one method per operation, serving the MCP tool, the REST
 * route and the WebSocket command alike. It picks the caller's session, checks URLs against the host rules,
 * resolves vault passwords, keeps screenshots and traces as files, and stores every test result.
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../config.ts";
import type { LoginCredentials } from "./credentials.ts";
import type { ArgsOf, OperationName, ResultOf } from "./driver/operations.ts";
import { BrowserServiceError } from "./errors.ts";
import type {
  ClickInput,
  ConsoleInput,
  HoverInput,
  LoginInput,
  NavigateInput,
  NetworkInput,
  PressKeyInput,
  AccessibilityInput,
  ExploratoryInput,
  ProgressUpdate,
  ResponsiveInput,
  SecurityInput,
  TestKind,
  TestResult,
  ScreenshotInput,
  SelectInput,
  TabsInput,
  TraceStartInput,
  TypeInput,
  WaitForInput,
} from "./model.ts";
import type { BrowserPool } from "./pool.ts";
import type { NamedSessions } from "./storage.ts";
import { newResultId, type Results } from "./results.ts";
import { readPlaybook, validatePlaybook } from "./playbook/validate.ts";
import { render, type ReportFormat } from "./reports/render.ts";
import type { RunOutcome } from "./runners/outcome.ts";
import type { UrlPolicy } from "./url-policy.ts";

/** Who is calling, and how to reach them while the call runs. */
export interface CallContext {
  /** The caller's own session: `mcp:<session>`, `ws:<client>` or `rest`; a `session` name in the input overrides it. */
  owner: string;
  signal?: AbortSignal;
  onProgress?(update: ProgressUpdate): void;
}

type Session = { session?: string };

/** An image for a caller that shows pictures (an assistant): the screenshot, or a smaller JPEG of the view. */
export interface Image {
  data: Uint8Array;
  mimeType: "image/png" | "image/jpeg";
}

export interface BrowserServiceOptions {
  config: Config["browser"];
  artifactsDir: string;
  pool: BrowserPool;
  policy: UrlPolicy;
  named: NamedSessions;
  credentials: LoginCredentials;
  results: Results;
  /** The Chromium being driven, for connectivity reports. */
  executable(): string;
}


/**
 * How long the driver may stay silent on a step before it is taken for stalled: well past the step's own
 * timeout, so that Playwright's TimeoutError (which names what it waited for) comes first.
 */
const stallDeadline = (stepTimeoutMs: number) => Math.round(stepTimeoutMs * 1.5) + 1000;

export class BrowserService {
  readonly config: Config["browser"];
  readonly artifactsDir: string;

  constructor(private readonly options: BrowserServiceOptions) {
    this.config = options.config;
    this.artifactsDir = options.artifactsDir;
  }

  get pool(): BrowserPool {
    return this.options.pool;
  }

  async connectivity(input: Session, context: CallContext) {
    const checked = await this.#run(context, input, "connectivity", undefined as never);
    const session = this.options.pool.sessionOf(context.owner, input.session)!;
    return {
      status: "success" as const,
      browser: { version: this.options.pool.browserVersion(session.id) ?? "", executable: this.options.executable(), user_agent: checked.user_agent },
      session: { id: session.id, name: session.name, state: session.state },
      round_trip_ms: checked.round_trip_ms,
    };
  }

  navigate(input: NavigateInput, context: CallContext) {
    this.options.policy.check(input.url);
    return this.#run(context, input, "navigate", input);
  }

  async screenshot(input: ScreenshotInput, context: CallContext) {
    if (input.url) this.options.policy.check(input.url);
    const shot = await this.#run(context, input, "screenshot", input);
    const dir = join(this.artifactsDir, "screenshots");
    mkdirSync(dir, { recursive: true });
    await Bun.write(join(dir, `${input.name}.png`), shot.bytes);
    const result = {
      status: "success" as const,
      screenshot: { name: input.name, timestamp: new Date().toISOString(), file: `/screenshots/${input.name}`, bytes: shot.bytes.byteLength },
      page: { url: shot.url, title: shot.title },
    };
    return { result, image: await this.#image(shot.bytes, input, context) };
  }

  /** The file of a saved screenshot, if there is one by that name. */
  screenshotFile(name: string) {
    return this.#artifact("screenshots", `${name}.png`);
  }

  traceFile(name: string) {
    return this.#artifact("traces", `${name}.zip`);
  }

  async login(input: LoginInput, context: CallContext) {
    if (input.url) this.options.policy.check(input.url);
    const password = await this.options.credentials.resolve(input.password, context.owner);
    return this.#run(context, input, "login", { ...input, password: password.value, source: password.source });
  }

  snapshot(input: Session, context: CallContext) {
    return this.#run(context, input, "snapshot", undefined as never);
  }

  click(input: ClickInput, context: CallContext) {
    return this.#run(context, input, "click", input);
  }

  type(input: TypeInput, context: CallContext) {
    return this.#run(context, input, "type", input);
  }

  pressKey(input: PressKeyInput, context: CallContext) {
    return this.#run(context, input, "press_key", input);
  }

  selectOption(input: SelectInput, context: CallContext) {
    return this.#run(context, input, "select_option", input);
  }

  hover(input: HoverInput, context: CallContext) {
    return this.#run(context, input, "hover", input);
  }

  waitFor(input: WaitForInput, context: CallContext) {
    return this.#run(context, input, "wait_for", input, stallDeadline(Math.max(input.timeout_ms ?? 0, this.config.navigation_timeout_ms)));
  }

  tabs(input: TabsInput, context: CallContext) {
    if (input.url) this.options.policy.check(input.url);
    return this.#run(context, input, "tabs", input);
  }

  back(input: Session & { snapshot?: boolean }, context: CallContext) {
    return this.#run(context, input, "back", input);
  }

  forward(input: Session & { snapshot?: boolean }, context: CallContext) {
    return this.#run(context, input, "forward", input);
  }

  consoleMessages(input: ConsoleInput, context: CallContext) {
    return this.#run(context, input, "console", input);
  }

  networkRequests(input: NetworkInput, context: CallContext) {
    return this.#run(context, input, "network", input);
  }

  async closeSession(input: Session, context: CallContext) {
    const closed = await this.options.pool.close(context.owner, input.session);
    return { status: "success" as const, closed, session: input.session ?? context.owner };
  }

  async traceStart(input: TraceStartInput, context: CallContext) {
    return this.#run(context, input, "trace_start", input);
  }

  async traceStop(input: Session & { name?: string }, context: CallContext) {
    const name = input.name ?? `trace-${new Date().toISOString().replace(/[:.]/g, "-")}`;
    const dir = join(this.artifactsDir, "traces");
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${name}.zip`);
    await this.#run(context, input, "trace_stop", { path });
    return { status: "success" as const, tracing: false, file: `/traces/${name}`, bytes: Bun.file(path).size };
  }

  // --- tests ---

  exploratory(input: ExploratoryInput, context: CallContext) {
    return this.#test("exploratory", input, context);
  }

  accessibility(input: AccessibilityInput, context: CallContext) {
    return this.#test("accessibility", input, context);
  }

  responsive(input: ResponsiveInput, context: CallContext) {
    return this.#test("responsive", input, context);
  }

  security(input: SecurityInput, context: CallContext) {
    return this.#test("security", input, context);
  }

  /** Runs a test in the caller's session (its cookies included) and stores the result. */
  async #test<K extends Exclude<TestKind, "playbook">>(test: K, input: ArgsOf<K> & Session & { url: string }, context: CallContext): Promise<TestResult> {
    this.options.policy.check(input.url);
    const startedAt = new Date();
    const outcome = (await this.#run(context, input, test, input, this.config.run_timeout_ms)) as RunOutcome;
    return this.storeOutcome(test, startedAt, outcome);
  }

  async validatePlaybook(source: unknown) {
    const read = await readPlaybook(source);
    const problems = read.problems.length ? read.problems : validatePlaybook(read.value).problems;
    return { valid: problems.length === 0, problems };
  }

  /** Checks the whole playbook first (every problem with its step), then runs it and stores the result. */
  async playbook(input: Session & { playbook: unknown }, context: CallContext): Promise<TestResult> {
    const read = await readPlaybook(input.playbook);
    const { playbook, problems } = read.problems.length ? { playbook: undefined, problems: read.problems } : validatePlaybook(read.value);
    if (!playbook) throw BrowserServiceError.validation(`The playbook has ${problems.length} problem(s); nothing ran`, { problems });
    for (const step of playbook.steps)
      if (step.action === "navigate") this.options.policy.check(new URL(step.url as string, playbook.base_url).href);
    const startedAt = new Date();
    const outcome = await this.#run(context, input, "playbook", { playbook }, this.config.run_timeout_ms);
    return this.storeOutcome("playbook", startedAt, outcome);
  }

  storeOutcome(test: TestKind, startedAt: Date, outcome: RunOutcome): Promise<TestResult> {
    return this.options.results.save(newResultId(), test, startedAt, outcome);
  }

  result(id: string): Promise<TestResult> {
    return this.options.results.get(id);
  }

  results() {
    return this.options.results.list();
  }

  async resultScreenshot(id: string, name: string) {
    await this.options.results.get(id);
    return this.options.results.screenshot(id, name);
  }

  async report(id: string, format: ReportFormat) {
    const result = await this.options.results.get(id);
    return render(result, format, async (name) => {
      const file = this.options.results.screenshot(id, name);
      return (await file.exists()) ? file.bytes() : undefined;
    });
  }

  // --- named sessions ---

  namedSessions() {
    const live = new Set(this.options.pool.views().flatMap((view) => (view.name ? [view.name] : [])));
    return this.options.named.list(live);
  }

  async deleteNamedSession(name: string) {
    await this.options.pool.close("", name, "its stored state was deleted");
    if (!(await this.options.named.delete(name))) throw BrowserServiceError.notFound(`No named session ${name}`, { name });
  }

  // --- helpers ---

  /** Runs one driver operation in the caller's session, with a stall deadline past the step's own timeout. */
  #run<K extends OperationName>(context: CallContext, input: Session, operation: K, args: ArgsOf<K>, timeoutMs = this.#stepDeadline()): Promise<ResultOf<K>> {
    if (context.signal?.aborted) return Promise.reject(BrowserServiceError.browser("The operation was cancelled", { cancelled: true }));
    return this.options.pool.run(context.owner, input.session, operation, args, { timeoutMs, signal: context.signal, onProgress: context.onProgress });
  }

  #stepDeadline(): number {
    return stallDeadline(Math.max(this.config.action_timeout_ms, this.config.navigation_timeout_ms));
  }

  async #image(png: Uint8Array, input: Session, context: CallContext): Promise<Image | undefined> {
    if (png.byteLength <= this.config.max_image_bytes) return { data: png, mimeType: "image/png" };
    for (const quality of [70, 40]) {
      const { bytes } = await this.#run(context, input, "compact_screenshot", { quality });
      if (bytes.byteLength <= this.config.max_image_bytes) return { data: bytes, mimeType: "image/jpeg" };
    }
    return undefined;
  }

  #artifact(kind: string, file: string) {
    return Bun.file(join(this.artifactsDir, kind, file));
  }
}
