/** The platform's own MCP server over HTTP: the health tool with its output schema, health resources, subscriptions and the diagnose prompt. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import type { CapabilityFactory } from "../../src/capability.ts";
import type { HealthStatus } from "../../src/health.ts";
import { platformCapability } from "../../src/platform/tools.ts";
import { startApp, type RunningApp } from "../support/app.ts";

/** A subsystem whose status the test sets. */
let switchStatus: HealthStatus = "ok";
const switchCapability: CapabilityFactory = ({ health }) => {
  health.register("switch", () => ({ status: switchStatus }));
  return { name: "switch" };
};

let running: RunningApp;
let client: Client;

beforeAll(async () => {
  running = await startApp([platformCapability, switchCapability]);
  client = new Client({ name: "test", version: "1" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${running.base}/mcp`)));
});
afterAll(async () => {
  await client.close();
  await running.close();
});

test("the health tool declares its output schema, and its structured result fits it", async () => {
  const [tool] = (await client.listTools()).tools;
  expect(tool).toMatchObject({ name: "health", outputSchema: { type: "object", required: ["status", "version", "uptimeSeconds", "subsystems"] } });
  // The SDK client checks structuredContent against the listed schema itself.
  const result = await client.callTool({ name: "health", arguments: {} });
  expect(result.structuredContent).toMatchObject({ status: "ok", subsystems: { switch: { status: "ok" } } });
});

test("the report and each subsystem's part are resources; an unknown subsystem is not found", async () => {
  const { resources } = await client.listResources();
  expect(resources.map((r) => r.uri)).toEqual(expect.arrayContaining(["platform://health", "platform://health/database", "platform://health/switch"]));
  const whole = JSON.parse(((await client.readResource({ uri: "platform://health" })).contents[0] as { text: string }).text);
  expect(whole).toMatchObject({ status: "ok", subsystems: { actors: { status: "ok" } } });
  const part = (await client.readResource({ uri: "platform://health/switch" })).contents[0];
  expect(part).toEqual({ uri: "platform://health/switch", mimeType: "application/json", text: JSON.stringify({ status: "ok" }, null, 2) });
  expect((await client.readResource({ uri: "platform://health/nothing" }).catch((e) => e)).code).toBe(-32002);
  expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(["platform://health/{subsystem}"]);
});

test("subsystem names complete, in the template and in the diagnose prompt", async () => {
  const template = await client.complete({ ref: { type: "ref/resource", uri: "platform://health/{subsystem}" }, argument: { name: "subsystem", value: "sw" } });
  expect(template.completion.values).toEqual(["switch"]);
  const prompt = await client.complete({ ref: { type: "ref/prompt", name: "diagnose" }, argument: { name: "subsystem", value: "d" } });
  expect(prompt.completion.values).toEqual(["database"]);
});

test("the diagnose prompt carries the current report as an embedded resource; an unknown subsystem is invalid params", async () => {
  const { messages } = await client.getPrompt({ name: "diagnose", arguments: { subsystem: "switch" } });
  expect(messages[0]!.content).toMatchObject({ type: "text", text: expect.stringContaining("switch subsystem") });
  expect(messages[1]!.content).toEqual({ type: "resource", resource: { uri: "platform://health/switch", mimeType: "application/json", text: JSON.stringify({ status: "ok" }, null, 2) } });
  const error = await client.getPrompt({ name: "diagnose", arguments: { subsystem: "nothing" } }).catch((e) => e);
  expect(error.code).toBe(-32602);
  expect(error.message).toContain("no subsystem named nothing");
});

test("a subscriber to a subsystem's health hears when its status changes", async () => {
  const heard = Promise.withResolvers<string>();
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, ({ params }) => heard.resolve(params.uri));
  await client.subscribeResource({ uri: "platform://health/switch" });
  switchStatus = "degraded";
  expect(await heard.promise).toBe("platform://health/switch");
  const now = JSON.parse(((await client.readResource({ uri: "platform://health/switch" })).contents[0] as { text: string }).text);
  expect(now).toEqual({ status: "degraded" });
  await client.unsubscribeResource({ uri: "platform://health/switch" });
});

test("the health tool logs the subsystems that are not ok to a client listening at warning level", async () => {
  switchStatus = "degraded";
  const heard: unknown[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, ({ params }) => void heard.push(params));
  await client.setLoggingLevel("warning");
  await client.callTool({ name: "health", arguments: {} });
  expect(heard).toEqual([{ level: "warning", logger: "health", data: { status: "degraded", subsystems: { switch: { status: "degraded" } } } }]);
  switchStatus = "ok";
  await client.callTool({ name: "health", arguments: {} });
  expect(heard).toHaveLength(1);
});
