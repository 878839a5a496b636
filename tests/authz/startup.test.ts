import { afterAll, expect, test } from "bun:test";
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { authzCapability } from "../../src/authz/capability.ts";
import { loadConfig } from "../../src/config.ts";
import { startRuntime } from "../../src/runtime.ts";
import { platform, serve } from "../support/cli.ts";
import { tempDir } from "../support/temp.ts";
import { quiet } from "./support.ts";

const dir = tempDir();
afterAll(() => dir.remove());
const repoPolicies = join(import.meta.dir, "../../policies");
let count = 0;

function policyDir(files: Record<string, string>) {
  const path = join(dir.path, `policies-${++count}`);
  mkdirSync(path);
  for (const [name, source] of Object.entries(files)) writeFileSync(join(path, name), source);
  return path;
}

async function start(env: Record<string, string>) {
  const dataDir = join(dir.path, `data-${++count}`);
  mkdirSync(dataDir);
  const runtime = await startRuntime(loadConfig({ env: { PLATFORM_DATA_DIR: dataDir, ...env } }), quiet, [authzCapability]);
  await runtime.close();
}

const allowAll = readFileSync(join(repoPolicies, "dev/allow-all.rego"), "utf8");
const authz = readFileSync(join(repoPolicies, "authz.rego"), "utf8");

test("an allow-all policy is refused outside development, naming its file, and accepted in development", async () => {
  const policies = policyDir({ "authz.rego": authz, "allow-all.rego": allowAll });
  await expect(start({ PLATFORM_AUTHORIZATION__POLICY_DIR: policies })).rejects.toThrow(
    "refusing to start: allow-all.rego allows every request (an allow-all policy); it is for environment: development only",
  );
  await start({ PLATFORM_AUTHORIZATION__POLICY_DIR: policies, PLATFORM_ENV: "development" });
});

test("policy_path must name a loaded package", async () => {
  await expect(start({ PLATFORM_AUTHORIZATION__POLICY_PATH: "platform/other" })).rejects.toThrow(
    "policy package platform.other is not loaded (authorization.policy_path is platform/other); loaded packages: platform.authz",
  );
});

test("an audit destination it cannot use stops start-up, saying why", async () => {
  await expect(start({ PLATFORM_AUTHORIZATION__AUDIT__DESTINATION: "store://db.internal:5432/audit" })).rejects.toThrow(
    'authorization.audit.destination "store://db.internal:5432/audit": store:// names no place of its own',
  );
  await expect(start({ PLATFORM_AUTHORIZATION__AUDIT__DESTINATION: "postgres://db.internal/audit" })).rejects.toThrow(
    'authorization.audit.destination "postgres://db.internal/audit": use file://<path>, syslog://host:port[?transport=tcp], kafka://host:port/topic or store://',
  );
});

test("a policy that does not parse stops start-up with file:line", async () => {
  const policies = policyDir({ "authz.rego": authz, "broken.rego": "package platform.authz\n\nallow if {\n  input.x ==\n}\n" });
  await expect(start({ PLATFORM_AUTHORIZATION__POLICY_DIR: policies })).rejects.toThrow(/^broken\.rego:\d+: rego_parse_error: /);
});

test("an unreachable opa engine at start-up is a warning; /health says authorization is degraded, with the error", async () => {
  const dataDir = join(dir.path, `data-${++count}`);
  const config = loadConfig({ env: { PLATFORM_DATA_DIR: dataDir, PLATFORM_AUTHORIZATION__PROVIDER: "opa", PLATFORM_AUTHORIZATION__ENGINE_ENDPOINT: "http://127.0.0.1:1" } });
  const runtime = await startRuntime(config, quiet, [authzCapability]);
  try {
    const { status, subsystems } = runtime.health.report();
    expect(status).toBe("degraded");
    expect(subsystems.authorization).toMatchObject({
      status: "degraded",
      provider: "opa",
      engine: { endpoint: "http://127.0.0.1:1", reachable: false, lastError: expect.stringMatching(/\S/), lastAnswerAt: null },
    });
  } finally {
    await runtime.close();
  }
});

test("serve in development creates the CA; identity issue writes a client SVID that the mTLS listener accepts", async () => {
  const dataDir = join(dir.path, "served");
  const out = join(dir.path, "issued");
  const before = platform(["identity", "issue", "spiffe://platform.local/agent/planner", "--out", out, "--data-dir", dataDir, "--env", "development"]);
  expect(await before.exited).toBe(1);
  expect(await new Response(before.stderr).text()).toContain("no development CA");

  const server = await serve(dataDir, {
    args: ["--env", "development"],
    env: { PLATFORM_IDENTITY__MTLS__ENABLED: "true", PLATFORM_IDENTITY__MTLS__PORT: "0", PLATFORM_IDENTITY__MTLS__HOST: "127.0.0.1" },
  });
  try {
    const listening = JSON.parse(await server.waitForLine((l) => l.includes('"mTLS listening"'))) as { port: number; spiffeId: string };
    expect(listening.spiffeId).toBe("spiffe://platform.local/platform");
    expect(readFileSync(join(dataDir, "identity", "ca.key.enc"), "utf8")).toStartWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");

    const issue = platform(["identity", "issue", "spiffe://platform.local/agent/planner", "--out", out, "--data-dir", dataDir, "--env", "development"]);
    expect(await issue.exited).toBe(0);
    expect(statSync(join(out, "svid.key")).mode & 0o777).toBe(0o600);
    const tls = { cert: readFileSync(join(out, "svid.pem"), "utf8"), key: readFileSync(join(out, "svid.key"), "utf8"), ca: readFileSync(join(out, "bundle.pem"), "utf8") };
    const health = await fetch(`https://127.0.0.1:${listening.port}/health`, { tls });
    expect(health.status).toBe(200);
    const report = (await health.json()) as { subsystems: { authorization: Record<string, unknown> } };
    expect(report.subsystems.authorization).toMatchObject({ status: "ok", provider: "embedded", identity: { spiffeId: "spiffe://platform.local/platform" } });

    const bad = platform(["identity", "issue", "spiffe://Platform.local/x", "--out", out, "--data-dir", dataDir, "--env", "development"]);
    expect(await bad.exited).toBe(1);
    expect(await new Response(bad.stderr).text()).toContain("invalid trust domain");
  } finally {
    await server.stop();
  }
});
