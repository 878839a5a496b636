/**
 * End to end on the real runtime: an A2A server guarded by this capability's enforcer and identified through
 * the mTLS front, called by A2A clients presenting SVIDs issued from the development CA.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Type } from "@sinclair/typebox";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { A2AClient } from "../../src/a2a/client.ts";
import { AgentCard } from "../../src/a2a/card.ts";
import { A2AServer } from "../../src/a2a/http.ts";
import { TaskManager } from "../../src/a2a/service.ts";
import { authzCapability, securityOf } from "../../src/authz/capability.ts";
import type { CapabilityFactory } from "../../src/capability.ts";
import { loadConfig } from "../../src/config.ts";
import { issueToFolder } from "../../src/identity/issue.ts";
import { FileSvidSource, svidIdentityProvider } from "../../src/identity/svid.ts";
import { type RunningRuntime, startRuntime } from "../../src/runtime.ts";
import { buildApp } from "../../src/server.ts";
import { defineTool, textResult } from "../../src/mcp/define.ts";
import { tempDir } from "../support/temp.ts";
import { planner, quiet, reporter, self } from "./support.ts";

const dir = tempDir();
const runs: (string | undefined)[] = [];
let runtime: RunningRuntime;
let app: ReturnType<typeof buildApp>["app"];
let mtlsUrl = "";
const sources: FileSvidSource[] = [];

const echoAgent: CapabilityFactory = (rt) => {
  const security = securityOf(rt);
  const server = new A2AServer({
    agentCard: () => AgentCard.fromConfig({ name: "echo", description: "echoes", url: mtlsUrl, spiffeId: self }),
    taskManager: new TaskManager({ actors: rt.actors, db: rt.database.db, log: quiet }),
    authzEnforcer: security.enforcer,
    identify: security.identify,
    log: quiet,
  });
  server.registerTaskHandler("echo", (task, { callerId }) => {
    runs.push(callerId);
    task.result = { echoed: task.payload };
    return task;
  });
  return { name: "echo-agent", http: server.plugin };
};

/** An MCP server whose one tool says who the runtime verified the caller to be. */
const whoamiServer: CapabilityFactory = ({ mcp }) => {
  mcp.server("whoami").tool(
    defineTool({
      name: "whoami",
      description: "The verified caller.",
      input: Type.Object({}),
      handler: async (_args, { caller }) => textResult(caller ?? "nobody"),
    }),
  );
  return { name: "whoami" };
};

beforeAll(async () => {
  const policyDir = join(dir.path, "policies");
  mkdirSync(policyDir);
  copyFileSync(join(import.meta.dir, "../../policies/authz.rego"), join(policyDir, "authz.rego"));
  const data = JSON.parse(readFileSync(join(import.meta.dir, "../../policies/data.json"), "utf8"));
  data.authz.capabilities[planner] = ["task.send"];
  writeFileSync(join(policyDir, "data.json"), JSON.stringify(data));
  const config = loadConfig({
    env: {
      PLATFORM_DATA_DIR: join(dir.path, "data"),
      PLATFORM_ENV: "development",
      PLATFORM_IDENTITY__MTLS__ENABLED: "true",
      PLATFORM_IDENTITY__MTLS__HOST: "127.0.0.1",
      PLATFORM_IDENTITY__MTLS__PORT: "0",
      PLATFORM_AUTHORIZATION__POLICY_DIR: policyDir,
    },
  });
  mkdirSync(config.data_dir);
  runtime = await startRuntime(config, quiet, [authzCapability, echoAgent, whoamiServer]);
  app = buildApp(runtime).app.listen({ hostname: "127.0.0.1", port: 0 });
  const health = runtime.health.report().subsystems.authorization as unknown as { mtls: { port: number } };
  mtlsUrl = `https://127.0.0.1:${health.mtls.port}`;
});

afterAll(async () => {
  for (const source of sources) source.close();
  await app.stop(true);
  await runtime.close();
  dir.remove();
});

async function identityOf(spiffeId: string) {
  const out = join(dir.path, "svids", spiffeId.split("/").at(-1)!);
  await issueToFolder(runtime.config, spiffeId, out, 3600);
  const source = new FileSvidSource({ certFile: join(out, "svid.pem"), keyFile: join(out, "svid.key"), bundleFile: join(out, "bundle.pem") });
  sources.push(source);
  return svidIdentityProvider(source);
}

/** The audit trail on disk, where the background writer puts it. */
function auditTrail(): Record<string, unknown>[] {
  const path = join(runtime.config.data_dir, "audit.jsonl");
  if (!existsSync(path)) return [];
  return readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l));
}

test("a caller with an SVID the policy permits runs task.send over mTLS", async () => {
  const client = new A2AClient({ identityProvider: await identityOf(planner), maxRetries: 0 });
  const task = await client.sendTask(mtlsUrl, "echo", { hello: "world" });
  expect(task.state).toBe("completed");
  expect(task.result).toEqual({ echoed: { hello: "world" } });
  expect(runs).toEqual([planner]);
  await client.close();
});

test("another caller is denied with a JSON-RPC unauthorized error, audited, and the handler never runs", async () => {
  const client = new A2AClient({ identityProvider: await identityOf(reporter), maxRetries: 0 });
  const before = runs.length;
  const error = await client.sendTask(mtlsUrl, "echo", { hello: "world" }).then(() => undefined, (e: Error) => e);
  expect(error?.message).toContain("Unauthorized: task.send denied (denied: action not permitted for caller (task.send))");
  expect(runs.length).toBe(before);
  const auditId = (error as unknown as { data?: { auditId?: string } }).data?.auditId;
  // The record is written in the background; check again each turn of the event loop until it is there.
  const { promise, resolve } = Promise.withResolvers<Record<string, unknown>>();
  const poll = () => {
    const found = auditTrail().find((r) => r.caller_spiffe_id === reporter && r.action === "task.send");
    if (found) resolve(found);
    else setImmediate(poll);
  };
  poll();
  const record = await promise;
  expect(record).toMatchObject({ decision: "denied", callee_spiffe_id: null, reason: "denied: action not permitted for caller (task.send)" });
  if (auditId) expect(record.audit_id).toBe(auditId);
  await client.close();
});

test("a forged identity header on the plain listener is not an identity", async () => {
  const before = runs.length;
  const response = await fetch(`http://127.0.0.1:${app.server!.port}/rpc`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-spiffe-id": planner, "x-forwarded-client-cert": `URI=${planner}` },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "task.send", params: { type: "echo", payload: {} } }),
  });
  const body = (await response.json()) as { error?: { message: string } };
  expect(body.error?.message).toContain("no verified SPIFFE identity");
  expect(runs.length).toBe(before);
});

test("outbound: the client's enforcer refuses before anything is sent", async () => {
  const before = runs.length;
  const client = new A2AClient({ identityProvider: await identityOf(reporter), authzEnforcer: securityOf(runtime).enforcer, maxRetries: 0 });
  await expect(client.sendTask(mtlsUrl, "echo", {})).rejects.toThrow(/task.send to spiffe:\/\/platform.local\/platform refused: denied/);
  expect(runs.length).toBe(before);
  await client.close();
});

test("MCP over mTLS hands tools the SVID's SPIFFE id as the caller; plain HTTP with a forged header gets nobody", async () => {
  const tls = (await identityOf(planner)).clientTls();
  const overMtls = new Client({ name: "test", version: "1.0.0" });
  await overMtls.connect(
    new StreamableHTTPClientTransport(new URL(`${mtlsUrl}/mcp/whoami`), {
      fetch: (url, init) => fetch(url, { ...init, tls } as RequestInit),
    }),
  );
  const plain = new Client({ name: "test", version: "1.0.0" });
  await plain.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${app.server!.port}/mcp/whoami`), {
      requestInit: { headers: { "x-spiffe-id": planner, "x-forwarded-client-cert": `URI=${planner}` } },
    }),
  );
  try {
    expect(await overMtls.callTool({ name: "whoami", arguments: {} })).toMatchObject({ content: [{ text: planner }] });
    expect(await plain.callTool({ name: "whoami", arguments: {} })).toMatchObject({ content: [{ text: "nobody" }] });
  } finally {
    await overMtls.close();
    await plain.close();
  }
});
