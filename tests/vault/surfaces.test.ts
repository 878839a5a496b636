/**
 * The credential, sent back by the upstream in every escaped form docs/vault.md promises to remove, reaches no
 * surface an agent reads and nothing that is stored: MCP, /vault/v1, an A2A task's result and its SSE stream, the
 * task as stored, and a command's output.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { a2aCapability } from "../../src/a2a/capability.ts";
import { authzCapability } from "../../src/authz/capability.ts";
import { vaultCapability, type VaultCapability } from "../../src/vault/capability.ts";
import { call, openAuthorization, readEvents, rpc } from "../a2a/support.ts";
import { startApp, type RunningApp } from "../support/app.ts";
import { decodedEverything, escapedForms, githubToken, githubUpstream } from "./harness.ts";
import { failOnStalls } from "../support/loop.ts";

failOnStalls();

let running: RunningApp;
let vault: VaultCapability["vault"];
const github = githubUpstream();
const operator = { name: "setup", services: ["*"] };

beforeAll(async () => {
  running = await startApp([authzCapability, a2aCapability, vaultCapability], {
    env: { ...openAuthorization, PLATFORM_VAULT__SETUP_PORT: "0", PLATFORM_VAULT__TRUST_LOCAL_MCP: "true" },
  });
  vault = (running.runtime.capabilities.find((c) => c.name === "vault") as VaultCapability).vault;
  await vault.addService(
    { name: "gh", template: "github", credential: { token: githubToken }, base_url: `http://127.0.0.1:${github.port}`, allow_addresses: ["loopback"], commands: ["echo"] },
    operator,
  );
});
afterAll(async () => {
  await running.close();
  github.stop(true);
});

/** The text holds the token in no form, decoded as far as can be; and it did hold redaction markers. */
function clean(text: string) {
  const decoded = decodedEverything(text);
  expect(decoded).not.toContain(githubToken);
  expect(text).toContain("[REDACTED:gh]");
}

test("the upstream really sends every form (the stand-in's own check)", async () => {
  const raw = await fetch(`http://127.0.0.1:${github.port}/escaped`, { headers: { authorization: `Bearer ${githubToken}` } }).then((r) => r.text());
  const decoded = decodedEverything(raw);
  expect(decoded.split(githubToken).length - 1).toBeGreaterThanOrEqual(escapedForms(githubToken).length);
});

test("MCP: api_call's result, text and structured content", async () => {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running.base}/mcp/vault`)));
  try {
    const result = await client.callTool({ name: "api_call", arguments: { service: "gh", method: "GET", path: "/escaped" } });
    expect(result.isError).toBeFalsy();
    clean(JSON.stringify(result));
  } finally {
    await client.close();
  }
});

test("/vault/v1/api_call: body and headers", async () => {
  const { role_id } = await vault.roles.createRole({ name: "surfaces", services: ["gh"] });
  const { token } = await vault.roles.login({ role_id, secret_id: (await vault.roles.createSecretId("surfaces")).secret_id });
  const res = await fetch(`${running.base}/vault/v1/api_call`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-vault-token": token },
    body: JSON.stringify({ service: "gh", method: "GET", path: "/escaped" }),
  });
  expect(res.status).toBe(200);
  clean(await res.text());
});

test("A2A: the task's result, its SSE stream, and the task as stored", async () => {
  const sent = (await rpc(running.base, call("task.send", { type: "api_call", payload: { service: "gh", method: "GET", path: "/escaped" }, blocking: false }))).body.result;
  const events = await readEvents(await fetch(`${running.base}/tasks/${sent.id}/stream`), (event) => JSON.parse(event.data).final === true);
  const status = (await rpc(running.base, call("task.status", { id: sent.id }))).body.result;
  expect(status.state).toBe("completed");
  clean(JSON.stringify(status));
  clean(events.map((event) => event.data).join("\n"));
  await running.runtime.actors.committed();
  // Every file of the database: the task row, the actor snapshots, the write-ahead log.
  for (const file of readdirSync(running.dataDir).filter((f) => f.startsWith("platform.db")))
    expect(decodedEverything(readFileSync(join(running.dataDir, file)).toString("latin1"))).not.toContain(githubToken);
});

test("exec: a command's output", async () => {
  const result = await vault.exec({ service: "gh", command: "echo", args: escapedForms(githubToken) }, operator);
  clean(result.stdout);
});
