/** The playbook language server with a real LSP client, over stdio (`platform lsp browser`) and TCP (start_lsp_server). */
import { expect, test } from "bun:test";
import { connect } from "node:net";
import type { Readable, Writable } from "node:stream";
import { createMessageConnection, StreamMessageReader, StreamMessageWriter, type MessageConnection } from "vscode-jsonrpc/node";
import {
  CompletionRequest,
  DidOpenTextDocumentNotification,
  HoverRequest,
  InitializedNotification,
  InitializeRequest,
  PublishDiagnosticsNotification,
  type PublishDiagnosticsParams,
} from "vscode-languageserver-protocol";
import { spawn } from "node:child_process";
import { repoRoot, sourceCommand } from "../support/cli.ts";
import { call, startBrowserApp } from "./support.ts";

const playbook = `name: Checkout
base_url: http://shop.test
steps:
  - action: navigate
    url: file:///etc/passwd
  - action: click
  - action: teleport
  - action: fill
    selector: "#q"
    value: shoes
    colour: red
  - action: 
`;

async function session(input: Readable, output: Writable) {
  const connection = createMessageConnection(new StreamMessageReader(input), new StreamMessageWriter(output));
  const diagnostics = Promise.withResolvers<PublishDiagnosticsParams>();
  connection.onNotification(PublishDiagnosticsNotification.type, (params) => diagnostics.resolve(params));
  connection.listen();
  const init = await connection.sendRequest(InitializeRequest.type, { processId: null, rootUri: null, capabilities: {} });
  await connection.sendNotification(InitializedNotification.type, {});
  await connection.sendNotification(DidOpenTextDocumentNotification.type, { textDocument: { uri: "file:///checkout.yaml", languageId: "yaml", version: 1, text: playbook } });
  return { connection, init, diagnostics: diagnostics.promise };
}

async function exercise(connection: MessageConnection, diagnostics: Promise<PublishDiagnosticsParams>) {
  const { diagnostics: found } = await diagnostics;
  expect(found.map((d) => [d.range.start.line, d.message])).toEqual([
    [4, "url must be http or https, not file:"],
    [5, "click needs selector (a Playwright selector: CSS, text=..., role=button[name=...], or a test id)"],
    [6, expect.stringMatching(/^Unknown action teleport; one of navigate, click/)],
    [10, "fill has no field colour; it takes selector, value"],
    [11, expect.stringMatching(/^Step 5 has no action/)],
  ]);
  const document = { uri: "file:///checkout.yaml" };
  const actions = await connection.sendRequest(CompletionRequest.type, { textDocument: document, position: { line: 11, character: 12 } });
  const labels = (Array.isArray(actions) ? actions : actions!.items).map((item) => item.label);
  expect(labels).toEqual(expect.arrayContaining(["navigate", "click", "assert_text", "accessibility"]));
  const fields = await connection.sendRequest(CompletionRequest.type, { textDocument: document, position: { line: 9, character: 4 } });
  const fieldLabels = (Array.isArray(fields) ? fields : fields!.items).map((item) => item.label);
  expect(fieldLabels).toEqual(expect.arrayContaining(["name", "timeout_ms"]));
  expect(fieldLabels).not.toContain("selector"); // already given in this step
  const hover = await connection.sendRequest(HoverRequest.type, { textDocument: document, position: { line: 3, character: 14 } });
  expect((hover!.contents as { value: string }).value).toStartWith("**navigate**: Open a URL");
}

test("over stdio: diagnostics on the lines they concern, completion of actions and fields, hover", async () => {
  const child = spawn(sourceCommand[0]!, [...sourceCommand.slice(1), "lsp", "browser"], { cwd: repoRoot, stdio: ["pipe", "pipe", "inherit"] });
  try {
    const { connection, init, diagnostics } = await session(child.stdout, child.stdin);
    expect(init.serverInfo?.name).toBe("platform-playbook");
    await exercise(connection, diagnostics);
    connection.dispose();
  } finally {
    child.kill();
  }
}, 30_000);

test("over TCP, started by the start_lsp_server tool (and told how to start it over stdio)", async () => {
  const app = await startBrowserApp();
  try {
    const client = await app.mcp();
    expect(await call(client, "start_lsp_server", {})).toMatchObject({ transport: "stdio", command: expect.arrayContaining(["lsp", "browser"]) });
    const { host, port } = await call<{ host: string; port: number }>(client, "start_lsp_server", { tcp: true, port: 0 });
    const socket = connect(port, host);
    await new Promise((resolve) => socket.once("connect", resolve));
    const { connection, diagnostics } = await session(socket, socket);
    await exercise(connection, diagnostics);
    connection.dispose();
    socket.destroy();
  } finally {
    await app.close();
  }
}, 30_000);

test("platform lsp browser --tcp --port 0 says where it listens and serves clients there", async () => {
  const child = spawn(sourceCommand[0]!, [...sourceCommand.slice(1), "lsp", "browser", "--tcp", "--port", "0"], { cwd: repoRoot, stdio: ["ignore", "ignore", "pipe"] });
  try {
    const line = await new Promise<string>((resolve) => child.stderr.once("data", (chunk: Buffer) => resolve(chunk.toString().split("\n")[0]!)));
    const { host, port } = JSON.parse(line) as { host: string; port: number };
    const socket = connect(port, host);
    await new Promise((resolve) => socket.once("connect", resolve));
    const { connection, diagnostics } = await session(socket, socket);
    await exercise(connection, diagnostics);
    connection.dispose();
    socket.destroy();
  } finally {
    child.kill("SIGTERM");
  }
}, 30_000);
