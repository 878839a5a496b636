/** The vault's MCP server beyond its tools' behaviour: output schemas, the services as resources, and the call-service prompt. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { githubToken, githubUpstream, startVault, type Harness } from "./harness.ts";

let h: Harness;
const github = githubUpstream();
let client: Client;

beforeAll(async () => {
  h = await startVault({ PLATFORM_VAULT__TRUST_LOCAL_MCP: "true" });
  await h.capability.vault.addService(
    { name: "gh", template: "github", credential: { token: githubToken }, base_url: `http://127.0.0.1:${github.port}`, allow_addresses: ["loopback"] },
    { name: "setup", services: ["*"] },
  );
  client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${h.base}/mcp/vault`)));
});
afterAll(async () => {
  await client.close();
  await h.close();
  github.stop(true);
});

test("every tool declares an output schema, and the structured results fit them", async () => {
  const { tools } = await client.listTools();
  expect(tools.filter((t) => !t.outputSchema).map((t) => t.name)).toEqual([]);
  // The SDK client checks each structuredContent against the listed schema; a mismatch would throw here.
  const call = await client.callTool({ name: "api_call", arguments: { service: "gh", method: "GET", path: "/user" } });
  expect(call.structuredContent).toMatchObject({ status: 200, bodyEncoding: "utf8" });
  expect((await client.callTool({ name: "check", arguments: { service: "gh" } })).structuredContent).toMatchObject({ service: "gh", ok: true });
  const listed = (await client.callTool({ name: "services", arguments: {} })).structuredContent as { services: { name: string }[] };
  expect(listed.services.map((s) => s.name)).toEqual(["gh"]);
});

test("the services are resources, with names completed, and never carry the credential", async () => {
  const { resources } = await client.listResources();
  expect(resources.map((r) => r.uri)).toEqual(["vault://services", "vault://services/gh"]);
  const one = (await client.readResource({ uri: "vault://services/gh" })).contents[0] as { text: string };
  expect(JSON.parse(one.text)).toMatchObject({ name: "gh", template: "github", allow_methods: expect.any(Array) });
  const all = (await client.readResource({ uri: "vault://services" })).contents[0] as { text: string };
  for (const text of [one.text, all.text]) expect(text).not.toContain(githubToken);
  expect((await client.readResource({ uri: "vault://services/nope" }).catch((e) => e)).code).toBe(-32002);
  const completed = await client.complete({ ref: { type: "ref/resource", uri: "vault://services/{name}" }, argument: { name: "name", value: "g" } });
  expect(completed.completion.values).toEqual(["gh"]);
});

test("the call-service prompt sets up calls through the vault; an unknown service is invalid params", async () => {
  const { messages } = await client.getPrompt({ name: "call-service", arguments: { service: "gh", goal: "read my profile" } });
  expect(messages[0]!.content).toMatchObject({ type: "text", text: expect.stringContaining('api_call tool with service "gh"') });
  expect(messages[1]!.content).toMatchObject({ type: "resource", resource: { uri: "vault://services/gh" } });
  expect(JSON.stringify(messages)).not.toContain(githubToken);
  const error = await client.getPrompt({ name: "call-service", arguments: { service: "nope", goal: "x" } }).catch((e) => e);
  expect(error.code).toBe(-32602);
  const completed = await client.complete({ ref: { type: "ref/prompt", name: "call-service" }, argument: { name: "service", value: "" } });
  expect(completed.completion.values).toEqual(["gh"]);
});
