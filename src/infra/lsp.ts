/**
 * A client of terraform-ls over stdio (vscode-jsonrpc with the LSP's own request types), held by the
 * language-server actor: absent until a tool needs it, starting, ready, or crashed; a crashed server is started
 * again by the next call. Documents are opened from disk and kept in step with it; positions are the LSP's
 * (0-based line and character).
 */
import { type ChildProcessByStdio, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createActor } from "xstate";
import type {
  CompletionItem,
  CompletionList,
  Diagnostic,
  Hover,
  InitializeResult,
  MarkupContent,
  ProtocolConnection,
  TextEdit,
} from "vscode-languageserver-protocol";
import { languageServerMachine } from "../../actors/language-server.machine.ts";
import { InfraError } from "./errors.ts";
import type { LanguageServerState } from "./model.ts";
import type { Hover as HoverView, LspDebug, LspStatus } from "./views.ts";

/** How long after parsing a document a publication of its diagnostics may still come. */
const quietMs = 1000;

/**
 * The protocol's libraries (vscode-languageserver-protocol, vscode-jsonrpc), loaded with the first start of the
 * server, not with the process: most processes never start terraform-ls.
 */
const loadProtocol = async () => {
  const [protocol, { createProtocolConnection }, { StreamMessageReader, StreamMessageWriter }] = await Promise.all([
    import("vscode-languageserver-protocol"),
    import("vscode-languageserver-protocol/node"),
    import("vscode-jsonrpc/node"),
  ]);
  return { protocol, connect: (child: ChildProcessByStdio<Writable, Readable, Readable>) => createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin)) };
};
let loaded: ReturnType<typeof loadProtocol> | undefined;

interface Session {
  child: ChildProcessByStdio<Writable, Readable, Readable>;
  connection: ProtocolConnection;
  /** The protocol's message types. */
  protocol: typeof import("vscode-languageserver-protocol");
  info: InitializeResult;
  /** Open documents: their version and the text the server has. */
  documents: Map<string, { version: number; text: string }>;
  /** The last diagnostics published for each document, with the text they were computed on. */
  diagnostics: Map<string, { text: string | undefined; diagnostics: Diagnostic[] }>;
  waiting: Set<(uri: string) => void>;
  exited: Promise<unknown>;
}

export interface LanguageServerOptions {
  /** The terraform-ls executable; undefined when it is not installed. */
  binary(): string | undefined;
  root: string;
  timeoutMs: number;
}

export class LanguageServer {
  readonly actor = createActor(languageServerMachine);
  #session?: Promise<Session>;
  /** The process of the current session; an old one that exits after a restart is no crash. */
  #child?: ChildProcessByStdio<Writable, Readable, Readable>;
  /** The server's last lines on stderr, for infra_lsp_debug. */
  readonly #stderr: string[] = [];
  /** The last requests: method, milliseconds, outcome. */
  readonly #trace: { method: string; ms: number; ok: boolean; at: string }[] = [];

  constructor(private readonly options: LanguageServerOptions) {
    this.actor.start();
  }

  get state(): LanguageServerState {
    return this.actor.getSnapshot().value as LanguageServerState;
  }

  get installed(): boolean {
    return this.options.binary() !== undefined;
  }

  /** The running server, started (or restarted after a crash) on demand. */
  start(): Promise<Session> {
    if (this.#session && (this.state === "ready" || this.state === "starting")) return this.#session;
    const binary = this.options.binary();
    if (!binary) throw InfraError.missingTool("terraform-ls", "run `bun run tools` or set infra.language_server");
    this.actor.send({ type: "START", at: Date.now() });
    this.#session = this.#spawn(binary);
    this.#session.catch(() => {});
    return this.#session;
  }

  async #spawn(binary: string): Promise<Session> {
    const child = spawn(binary, ["serve"], { stdio: ["pipe", "pipe", "pipe"], cwd: this.options.root });
    this.#child = child;
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      this.#stderr.push(...chunk.split("\n").filter(Boolean));
      this.#stderr.splice(0, Math.max(0, this.#stderr.length - 50));
    });
    const current = () => this.#child === child && this.state !== "absent";
    child.on("error", (error) => current() && this.actor.send({ type: "CRASH", error: error.message }));
    try {
      // The first time, the process starts while the libraries load.
      const { protocol, connect } = await (loaded ??= loadProtocol());
      const connection = connect(child);
      const session: Omit<Session, "info"> = { child, connection, protocol, documents: new Map(), diagnostics: new Map(), waiting: new Set(), exited };
      // Also when it exited while the libraries loaded: disposing the connection fails the requests still waiting.
      void exited.then(({ code, signal }) => {
        connection.dispose();
        if (current()) this.actor.send({ type: "CRASH", error: `terraform-ls exited (${signal ?? `code ${code}`})` });
      });
      // terraform-ls validates a whole module at a time, so it publishes for files nobody opened: those it read from disk.
      connection.onNotification(protocol.PublishDiagnosticsNotification.type, ({ uri, diagnostics }) => {
        session.diagnostics.set(uri, { text: session.documents.get(uri)?.text ?? readIfFile(uri), diagnostics });
        for (const waiter of session.waiting) waiter(uri);
      });
      connection.listen();
      const rootUri = pathToFileURL(this.options.root).href;
      const info = await this.#timed<InitializeResult>("initialize", () =>
        connection.sendRequest(protocol.InitializeRequest.type, {
          processId: process.pid,
          rootUri,
          workspaceFolders: [{ uri: rootUri, name: "workspace" }],
          capabilities: {
            textDocument: {
              completion: { completionItem: { snippetSupport: false, documentationFormat: ["markdown", "plaintext"] } },
              hover: { contentFormat: ["markdown", "plaintext"] },
              publishDiagnostics: { versionSupport: true },
              formatting: {},
              synchronization: { didSave: false },
            },
          },
          clientInfo: { name: "platform-infra" },
        }),
      );
      await connection.sendNotification(protocol.InitializedNotification.type, {});
      this.actor.send({ type: "READY", pid: child.pid ?? 0 });
      return { ...session, info };
    } catch (error) {
      child.kill("SIGKILL");
      this.actor.send({ type: "CRASH", error: (error as Error).message });
      throw error;
    }
  }

  /** Opens (or refreshes) the document at `path` with its text on disk; answers its URI. */
  async #sync(session: Session, path: string, text = readFileSync(path, "utf8")): Promise<string> {
    const uri = pathToFileURL(path).href;
    const open = session.documents.get(uri);
    if (!open) {
      session.documents.set(uri, { version: 1, text });
      await session.connection.sendNotification(session.protocol.DidOpenTextDocumentNotification.type, { textDocument: { uri, languageId: "terraform", version: 1, text } });
    } else if (open.text !== text) {
      const version = open.version + 1;
      session.documents.set(uri, { version, text });
      await session.connection.sendNotification(session.protocol.DidChangeTextDocumentNotification.type, { textDocument: { uri, version }, contentChanges: [{ text }] });
    }
    return uri;
  }

  async complete(path: string, line: number, character: number): Promise<CompletionItem[]> {
    const session = await this.start();
    const uri = await this.#sync(session, path);
    const result = await this.#timed<CompletionItem[] | CompletionList | null>("textDocument/completion", () =>
      session.connection.sendRequest(session.protocol.CompletionRequest.type, { textDocument: { uri }, position: { line, character } }),
    );
    return Array.isArray(result) ? result : (result?.items ?? []);
  }

  async hover(path: string, line: number, character: number): Promise<HoverView | null> {
    const session = await this.start();
    const uri = await this.#sync(session, path);
    const hover = await this.#timed<Hover | null>("textDocument/hover", () => session.connection.sendRequest(session.protocol.HoverRequest.type, { textDocument: { uri }, position: { line, character } }));
    if (!hover) return null;
    const contents = hover.contents;
    const text = typeof contents === "string" ? contents : Array.isArray(contents) ? contents.map((c) => (typeof c === "string" ? c : c.value)).join("\n") : (contents as MarkupContent).value;
    return { contents: text, ...(hover.range ? { range: hover.range } : {}) };
  }

  async format(path: string): Promise<TextEdit[]> {
    const session = await this.start();
    const uri = await this.#sync(session, path);
    const edits = await this.#timed<TextEdit[] | null>("textDocument/formatting", () =>
      session.connection.sendRequest(session.protocol.DocumentFormattingRequest.type, { textDocument: { uri }, options: { tabSize: 2, insertSpaces: true } }),
    );
    return edits ?? [];
  }

  /**
   * The diagnostics the server publishes for the document as it is on disk now. terraform-ls publishes for a file
   * only when its diagnostics change, so a file that never had any may get no publication: once the server has
   * parsed the document (it answers documentSymbol after that) and a short while has passed without one, the
   * answer is that there are none, and `published` says so.
   */
  async diagnostics(path: string): Promise<{ diagnostics: Diagnostic[]; published: boolean }> {
    const session = await this.start();
    const uri = pathToFileURL(path).href;
    const text = readFileSync(path, "utf8");
    const current = () => {
      const published = session.diagnostics.get(uri);
      return published?.text === text ? published.diagnostics : undefined;
    };
    const { promise, resolve } = Promise.withResolvers<Diagnostic[] | undefined>();
    const waiter = (published: string) => {
      const diagnostics = published === uri ? current() : undefined;
      if (diagnostics) resolve(diagnostics);
    };
    session.waiting.add(waiter);
    try {
      await this.#sync(session, path, text);
      const known = current();
      if (known) return { diagnostics: known, published: true };
      await this.#timed("textDocument/documentSymbol", () => session.connection.sendRequest(session.protocol.DocumentSymbolRequest.type, { textDocument: { uri } }));
      const quiet = setTimeout(() => resolve(current()), quietMs);
      const diagnostics = await promise;
      clearTimeout(quiet);
      return diagnostics ? { diagnostics, published: true } : { diagnostics: [], published: false };
    } finally {
      session.waiting.delete(waiter);
    }
  }

  status(): LspStatus {
    const { value, context } = this.actor.getSnapshot();
    return {
      installed: this.installed,
      state: value as LanguageServerState,
      pid: context.pid ?? null,
      restarts: context.restarts,
      uptime_seconds: context.startedAt && value === "ready" ? Math.round((Date.now() - context.startedAt) / 1000) : null,
      last_error: context.lastError ?? null,
    };
  }

  async debug(): Promise<LspDebug> {
    const session = this.state === "ready" ? await this.#session : undefined;
    return {
      ...this.status(),
      binary: this.options.binary() ?? null,
      root: this.options.root,
      server: session?.info.serverInfo ?? null,
      capabilities: session ? Object.keys(session.info.capabilities).sort() : [],
      open_documents: session ? [...session.documents.keys()] : [],
      recent_requests: [...this.#trace],
      stderr_tail: [...this.#stderr],
    };
  }

  /** Shuts the server down politely, then for good. */
  async stop(): Promise<void> {
    const session = this.#session && this.state === "ready" ? await this.#session.catch(() => undefined) : undefined;
    this.#session = undefined;
    this.#child = undefined;
    this.actor.send({ type: "STOP" });
    if (!session) return;
    try {
      await Promise.race([session.connection.sendRequest(session.protocol.ShutdownRequest.type), Bun.sleep(1000)]);
      await session.connection.sendNotification(session.protocol.ExitNotification.type);
    } catch {
      // already gone
    }
    const killer = setTimeout(() => session.child.kill("SIGKILL"), 1000);
    await session.exited;
    clearTimeout(killer);
    session.connection.dispose();
  }

  async #timed<T>(method: string, request: () => Promise<T>): Promise<T> {
    const started = performance.now();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new InfraError("LSP_FAILED", `terraform-ls did not answer ${method} within ${this.options.timeoutMs} ms`)), this.options.timeoutMs);
    });
    let ok = false;
    try {
      const result = await Promise.race([request(), timeout]);
      ok = true;
      return result;
    } catch (error) {
      if (error instanceof InfraError) throw error;
      throw new InfraError("LSP_FAILED", `terraform-ls failed ${method}: ${(error as Error).message}`);
    } finally {
      clearTimeout(timer);
      this.#trace.push({ method, ms: Math.round(performance.now() - started), ok, at: new Date().toISOString() });
      this.#trace.splice(0, Math.max(0, this.#trace.length - 20));
    }
  }
}

function readIfFile(uri: string): string | undefined {
  try {
    return readFileSync(fileURLToPath(uri), "utf8");
  } catch {
    return undefined; // a folder, or gone
  }
}

/** The text after LSP edits (0-based lines and UTF-16 characters, as JavaScript strings count them). */
export function applyEdits(text: string, edits: TextEdit[]): string {
  const lineStarts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === "\n") lineStarts.push(i + 1);
  const offset = ({ line, character }: { line: number; character: number }) =>
    line >= lineStarts.length ? text.length : Math.min(lineStarts[line]! + character, line + 1 < lineStarts.length ? lineStarts[line + 1]! : text.length);
  return [...edits]
    .sort((a, b) => offset(b.range.start) - offset(a.range.start))
    .reduce((result, edit) => result.slice(0, offset(edit.range.start)) + edit.newText + result.slice(offset(edit.range.end)), text);
}
