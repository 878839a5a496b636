import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { capabilities } from "../src/capabilities.ts";
import type { CapabilityFactory } from "../src/capability.ts";
import { loadConfig } from "../src/config.ts";
import { createLogger } from "../src/log.ts";
import { startRuntime } from "../src/runtime.ts";
import { tempDir } from "./support/temp.ts";

const dir = tempDir();
afterAll(() => dir.remove());
const log = createLogger({ level: "error", write: () => {} });

async function guest(name: string, factories: CapabilityFactory[] = capabilities) {
  const config = loadConfig({ env: { PLATFORM_DATA_DIR: join(dir.path, name) } });
  return startRuntime(config, log, factories, { role: "guest", mcpServer: name });
}

test("a guest serving the vault server constructs the vault and what does not say where it registers, nothing else", async () => {
  const runtime = await guest("vault");
  try {
    expect(runtime.capabilities.map((c) => c.name)).toEqual(["platform", "vault"]);
    expect([...runtime.mcp.get("vault")!.tools.keys()]).toContain("check");
    expect(Object.keys(runtime.health.report().subsystems)).toEqual(["database", "cluster", "actors", "eventLoop", "vault"]);
  } finally {
    await runtime.close();
  }
});

test("a guest serving the platform server constructs no capability that declares other servers", async () => {
  const runtime = await guest("platform");
  try {
    expect(runtime.capabilities.map((c) => c.name)).toEqual(["platform"]);
    expect(runtime.mcp.names()).toEqual(["platform"]);
  } finally {
    await runtime.close();
  }
});

test("a factory runs in the guests of the servers it declares, and in no other", async () => {
  const constructed: string[] = [];
  const declared: CapabilityFactory = ({ mcp }) => {
    constructed.push("declared");
    mcp.server("extra");
    return { name: "declared" };
  };
  declared.mcpServers = ["extra"];
  for (const name of ["extra", "platform"]) await (await guest(name, [declared])).close();
  expect(constructed).toEqual(["declared"]);
});

test("the owner constructs every capability", async () => {
  const config = loadConfig({ env: { PLATFORM_DATA_DIR: join(dir.path, "owner"), PLATFORM_VAULT__SETUP_ENABLED: "false" } });
  const runtime = await startRuntime(config, log);
  try {
    expect(runtime.capabilities.map((c) => c.name)).toEqual(["platform", "authz", "a2a", "vault", "catalog", "chat", "infra", "browser"]);
  } finally {
    await runtime.close();
  }
});
