import { expect, test } from "bun:test";
import { ConfigError, loadConfig } from "../src/config.ts";

test("defaults are the embedded ones", () => {
  const config = loadConfig();
  expect(config).toMatchObject({
    environment: "production",
    data_dir: "./data",
    server: { host: "0.0.0.0", port: 8443, body_limit: 1024 * 1024 },
    log: { level: "info" },
  });
});

test("flags beat the environment, which beats platform.yaml", () => {
  const yaml = { text: "server:\n  port: 9000\n  host: 10.0.0.1\nlog:\n  level: debug\n", file: "platform.yaml" };
  const config = loadConfig({ yaml, env: { PORT: "9100", PLATFORM_SERVER__BODY_LIMIT: "4096" }, flags: [{ key: "server.port", flag: "--port", value: "9200" }] });
  expect(config.server).toMatchObject({ port: 9200, host: "10.0.0.1", body_limit: 4096 });
  expect(config.log.level).toBe("debug");
});

test("a list is written comma-separated in the environment and as a sequence in platform.yaml", () => {
  const fromEnv = loadConfig({ env: { PLATFORM_MCP__ALLOWED_ORIGINS: "https://console.example, http://10.0.0.5:3000" } });
  expect(fromEnv.mcp.allowed_origins).toEqual(["https://console.example", "http://10.0.0.5:3000"]);
  const fromYaml = loadConfig({ yaml: { text: "mcp:\n  allowed_origins:\n    - https://console.example\n", file: "p.yaml" } });
  expect(fromYaml.mcp.allowed_origins).toEqual(["https://console.example"]);
  expect(loadConfig().mcp.allowed_origins).toEqual([]);
});

test.each([
  [{ env: { PORT: "eighty" } }, 'server.port is "eighty" (from PORT); allowed: an integer from 0 to 65535'],
  [{ env: { PLATFORM_ENV: "staging" } }, 'environment is "staging" (from PLATFORM_ENV); allowed: one of "production", "development"'],
  [{ flags: [{ key: "log.level", flag: "--log-level", value: "loud" }] }, 'log.level is "loud" (from --log-level)'],
  [{ yaml: { text: "server:\n  prot: 1\n", file: "p.yaml" } }, "unknown key server.prot (from p.yaml); allowed keys here: host, port"],
  [{ env: { PLATFORM_NOPE: "1" } }, "unknown key nope (from PLATFORM_NOPE)"],
  [{ yaml: { text: "server: [", file: "p.yaml" } }, "p.yaml is not valid YAML"],
  [{ yaml: { text: "- a\n- b\n", file: "p.yaml" } }, "p.yaml must hold a mapping of keys"],
  [{ env: { PLATFORM_MCP__ALLOWED_ORIGINS: "https://ok.example, ftp://files.example" } }, 'mcp.allowed_origins.1 is "ftp://files.example" (from PLATFORM_MCP__ALLOWED_ORIGINS); allowed: a web origin such as'],
  [{ yaml: { text: "mcp:\n  allowed_origins: [https://app.example/page]\n", file: "p.yaml" } }, 'mcp.allowed_origins.0 is "https://app.example/page" (from p.yaml); allowed: a web origin'],
  [{ env: { PLATFORM_MCP__ALLOWED_ORIGINS: "http://app.example:99999" } }, 'mcp.allowed_origins.0 is "http://app.example:99999" (from PLATFORM_MCP__ALLOWED_ORIGINS); allowed: a web origin'],
])("a bad value names the key, the value and what is allowed: %j", (sources, message) => {
  expect(() => loadConfig(sources)).toThrow(ConfigError);
  expect(() => loadConfig(sources)).toThrow(message);
});
