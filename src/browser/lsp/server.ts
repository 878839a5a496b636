/**
 * The playbook language server (LSP over JSON-RPC), for editors opening playbook files: diagnostics as you type,
 * completion of actions and fields, hover docs. Served over stdio (`platform lsp browser`) or TCP
 * (`--tcp --port N`, or the start_lsp_server tool); each TCP client gets its own connection.
 */
import { createServer, type Server } from "node:net";
import type { Readable, Writable } from "node:stream";
import {
  CompletionItemKind,
  createConnection,
  DiagnosticSeverity,
  StreamMessageReader,
  StreamMessageWriter,
  TextDocuments,
  TextDocumentSyncKind,
} from "vscode-languageserver/node";
import { TextDocument } from "vscode-languageserver-textdocument";
import { version } from "../../version.ts";
import { complete, diagnose, hover } from "./analysis.ts";

/** Serves one client on a pair of streams until it disconnects. */
export function serveLanguage(input: Readable, output: Writable): Promise<void> {
  const connection = createConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
  const documents = new TextDocuments(TextDocument);
  const closed = Promise.withResolvers<void>();
  connection.onInitialize(() => ({
    serverInfo: { name: "platform-playbook", version },
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: [":", " ", "-"] },
      hoverProvider: true,
    },
  }));
  const publish = (document: TextDocument) =>
    void connection.sendDiagnostics({
      uri: document.uri,
      diagnostics: diagnose(document.getText()).map((problem) => ({ range: problem.range, message: problem.message, severity: DiagnosticSeverity.Error, source: "playbook" })),
    });
  documents.onDidOpen(({ document }) => publish(document));
  documents.onDidChangeContent(({ document }) => publish(document));
  connection.onCompletion(({ textDocument, position }) => {
    const document = documents.get(textDocument.uri);
    if (!document) return [];
    return complete(document.getText(), position.line, position.character).map((item) => ({
      label: item.label,
      kind: item.kind === "action" ? CompletionItemKind.EnumMember : CompletionItemKind.Property,
      detail: item.detail,
    }));
  });
  connection.onHover(({ textDocument, position }) => {
    const document = documents.get(textDocument.uri);
    const text = document && hover(document.getText(), position.line, position.character);
    return text ? { contents: { kind: "markdown", value: text } } : null;
  });
  connection.onExit(() => closed.resolve());
  connection.onShutdown(() => {});
  documents.listen(connection);
  connection.listen();
  input.once("close", () => closed.resolve());
  input.once("end", () => closed.resolve());
  return closed.promise;
}

/** Listens on TCP; resolves with the server once it listens (port 0 picks a free one). */
export function listenLanguage(port: number, host = "127.0.0.1"): Promise<Server> {
  const server = createServer((socket) => void serveLanguage(socket, socket).finally(() => socket.destroy()));
  const { promise, resolve, reject } = Promise.withResolvers<Server>();
  server.once("error", reject);
  server.listen(port, host, () => resolve(server));
  return promise;
}
