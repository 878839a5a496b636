/**
 * A session host: one Chromium process and the driver thread that runs Playwright against it, seen from the
 * server's thread. Every call carries a deadline: a driver that does not answer in time is taken for stalled,
 * and the host ends it (thread and browser) so that its session can be restarted; other sessions, each with
 * their own host, never wait on it.
 */
import { randomUUID } from "node:crypto";
import type { Logger } from "../log.ts";
import { launchChromium, type RunningChromium } from "./chromium.ts";
import type { ArgsOf, OperationName, ResultOf } from "./driver/operations.ts";
import type { DriverMessage, DriverSettings, HostMessage, StorageState } from "./driver/protocol.ts";
import { BrowserServiceError, type ErrorBody, internalBody } from "./errors.ts";
import type { ProgressUpdate } from "./model.ts";

/** Where the build puts the driver inside the executable (scripts/build.ts adds it as an entry point). */
export const driverEntry = "browser/driver/worker";

const driverUrl = () =>
  import.meta.url.includes("/$bunfs/") ? `/$bunfs/root/${driverEntry}.js` : new URL("./driver/worker.ts", import.meta.url).href;

export interface HostOptions {
  executable: string;
  launchTimeoutMs: number;
  settings: DriverSettings;
  storageState?: StorageState;
  log: Logger;
}

export interface CallOptions {
  /** How long the driver may take to answer before it is taken for stalled. */
  timeoutMs: number;
  signal?: AbortSignal;
  onProgress?(update: ProgressUpdate): void;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  onProgress?(update: ProgressUpdate): void;
}

export class SessionHost {
  readonly #pending = new Map<number, Pending>();
  readonly #ended = Promise.withResolvers<string>();
  #nextId = 1;
  #closed = false;
  #closedReply?: () => void;
  browserVersion = "";
  userAgent = "";

  private constructor(
    private readonly chromium: RunningChromium,
    private readonly worker: Worker,
    private readonly log: Logger,
  ) {
    void chromium.exited.then((reason) => this.#end(reason));
    worker.addEventListener("error", (event) => this.#end(`the driver failed: ${event.message}`));
    worker.addEventListener("close", () => this.#end("the driver thread ended"));
  }

  /** Launches Chromium, starts the driver and connects it; throws a BrowserServiceError when any step fails. */
  static async launch({ executable, launchTimeoutMs, settings, storageState, log }: HostOptions): Promise<SessionHost> {
    const chromium = await launchChromium(executable, launchTimeoutMs);
    const worker = new Worker(driverUrl());
    const host = new SessionHost(chromium, worker, log);
    const connected = Promise.withResolvers<void>();
    const timer = setTimeout(() => connected.reject(BrowserServiceError.browser(`The driver did not connect within ${launchTimeoutMs} ms`)), launchTimeoutMs);
    void host.ended.then((reason) => connected.reject(BrowserServiceError.browser(`The browser could not be started: ${reason}`)));
    host.#onConnected = (version, userAgent) => {
      host.browserVersion = version;
      host.userAgent = userAgent;
      connected.resolve();
    };
    host.#onFatal = (error) => connected.reject(BrowserServiceError.from(error));
    worker.onmessage = ({ data }: MessageEvent<DriverMessage>) => host.#receive(data);
    host.#post({ type: "connect", endpoint: chromium.endpoint, settings, storageState });
    try {
      await connected.promise;
      return host;
    } catch (error) {
      await host.kill();
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  #onConnected?: (version: string, userAgent: string) => void;
  #onFatal?: (error: ErrorBody) => void;

  get pid(): number {
    return this.chromium.pid;
  }

  /** Resolves with the reason once the browser or the driver is gone (after close() too). */
  get ended(): Promise<string> {
    return this.#ended.promise;
  }

  get alive(): boolean {
    return !this.#closed;
  }

  call<K extends OperationName>(operation: K, args: ArgsOf<K>, { timeoutMs, signal, onProgress }: CallOptions): Promise<ResultOf<K>> {
    if (this.#closed) return Promise.reject(BrowserServiceError.browser("The session's browser has gone away"));
    const id = this.#nextId++;
    const { promise, resolve, reject } = Promise.withResolvers<ResultOf<K>>();
    const timer = setTimeout(() => {
      this.#pending.delete(id);
      reject(BrowserServiceError.timeout(`The browser did not finish ${operation} within ${timeoutMs} ms; its session is restarted`, { operation, timeoutMs }));
      this.#end(`${operation} stood still for ${timeoutMs} ms`);
    }, timeoutMs);
    const cancel = () => this.#post({ type: "cancel", id });
    signal?.addEventListener("abort", cancel, { once: true });
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
      this.#pending.delete(id);
    };
    this.#pending.set(id, {
      resolve: (value) => (settle(), resolve(value as ResultOf<K>)),
      reject: (error) => (settle(), reject(error)),
      onProgress,
    });
    this.#post({ type: "call", id, operation, args });
    return promise;
  }

  /** Lets the driver close its context, then ends the browser and the thread. */
  async close(): Promise<void> {
    if (this.#closed) return;
    const replied = Promise.withResolvers<void>();
    this.#closedReply = replied.resolve;
    this.#post({ type: "close" });
    const timer = setTimeout(replied.resolve, 2000);
    await replied.promise;
    clearTimeout(timer);
    await this.kill();
  }

  /** Ends the browser and the thread at once. */
  async kill(): Promise<void> {
    this.#end("the session was closed");
    this.worker.terminate();
    await this.chromium.kill();
  }

  #receive(message: DriverMessage): void {
    switch (message.type) {
      case "connected":
        this.#onConnected?.(message.browserVersion, message.userAgent);
        break;
      case "progress":
        this.#pending.get(message.id)?.onProgress?.(message.update);
        break;
      case "result":
        this.#pending.get(message.id)?.resolve(message.value);
        break;
      case "failure":
        this.#pending.get(message.id)?.reject(this.#error(message.error));
        break;
      case "fatal":
        this.#onFatal?.(message.error);
        this.#end(message.error.message);
        break;
      case "closed":
        this.#closedReply?.();
        break;
    }
  }

  /** An internal fault is logged here with an id; the caller gets the id, not the fault. */
  #error(body: ErrorBody): BrowserServiceError {
    if (body.type !== "InternalError") return BrowserServiceError.from(body);
    const id = randomUUID();
    this.log.error("browser driver fault", { errorId: id, message: body.message, stack: body.details?.stack });
    return BrowserServiceError.from(internalBody(id));
  }

  #post(message: HostMessage): void {
    if (!this.#closed) this.worker.postMessage(message);
  }

  #end(reason: string): void {
    if (this.#closed) return;
    this.#closed = true;
    const error = BrowserServiceError.browser(`The session's browser stopped: ${reason}`, { reason });
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
    this.#ended.resolve(reason);
    // A stalled or failed driver is not asked for anything more.
    this.worker.terminate();
    void this.chromium.kill();
  }
}
