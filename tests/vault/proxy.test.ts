import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Caller } from "../../src/vault/approle.ts";
import { VaultError } from "../../src/vault/errors.ts";
import type { VaultService } from "../../src/vault/service.ts";
import { awsUpstream, githubToken, githubUpstream, startVault, type Harness } from "./harness.ts";
import { failOnStalls } from "../support/loop.ts";

failOnStalls();

const operator: Caller = { name: "test", services: ["*"] };
let h: Harness;
let vault: VaultService;
const github = githubUpstream();
const elsewhere = githubUpstream("another-token-entirely");
const aws = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY" };
const sts = awsUpstream(aws, "eu-west-1", "sts");
// Accepts a connection and drops it at once: a reset mid-request.
const resetter = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: (socket) => void socket.end(), open() {} } });

beforeAll(async () => {
  h = await startVault();
  vault = h.capability.vault;
  await vault.addService(
    { name: "gh", template: "github", credential: { token: githubToken }, base_url: `http://127.0.0.1:${github.port}`, allow_addresses: ["loopback"], timeout_ms: 500, max_response_bytes: 16 * 1024, allow_paths: ["/user", "/echo", "/big", "/slow", "/moved", "/away", "/repos/**"] },
    operator,
  );
  await vault.addService({ name: "gh-public", template: "github", credential: { token: githubToken }, base_url: `http://127.0.0.1:${github.port}` }, operator);
  await vault.addService(
    { name: "cloud", template: "aws", credential: { access_key_id: aws.accessKeyId, secret_access_key: aws.secretAccessKey }, base_url: `http://127.0.0.1:${sts.port}`, injection: { type: "aws_sigv4", region: "eu-west-1", service: "sts" }, allow_addresses: ["loopback"] },
    operator,
  );
  await vault.addService(
    { name: "flaky", template: "custom", credential: { token: "flaky-credential-value" }, base_url: `http://127.0.0.1:${resetter.port}`, injection: { type: "query", name: "key" }, allow_addresses: ["loopback"] },
    operator,
  );
});
afterAll(async () => {
  await h.close();
  github.stop(true);
  elsewhere.stop(true);
  sts.stop(true);
  resetter.stop(true);
});

const call = (path: string, extra: Partial<Parameters<VaultService["apiCall"]>[0]> = {}) => vault.apiCall({ service: "gh", method: "GET", path, ...extra }, operator);
const failure = async (promise: Promise<unknown>) => {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(VaultError);
  return error as VaultError;
};

test("api_call injects the bearer token; the agent gets status, headers and body", async () => {
  const result = await call("/user");
  expect(result).toMatchObject({ status: 200, bodyEncoding: "utf8", headers: { "x-oauth-scopes": "repo" } });
  expect(JSON.parse(result.body)).toEqual({ login: "octocat", id: 1 });
});

test("every encoded copy of the credential is redacted, even split across chunks, and in headers", async () => {
  const result = await call("/echo");
  expect(result.body).not.toContain(githubToken);
  const body = JSON.parse(result.body) as Record<string, string>;
  expect(body.raw).toBe("[REDACTED:gh]");
  expect(body.base64).toBe("[REDACTED:gh]");
  expect(body.hex).toBe("[REDACTED:gh]");
  expect(body.url).toStartWith("[REDACTED:gh]");
  expect(body.base64url).toContain("[REDACTED:gh]");
  expect(body.header).toBe("Bearer [REDACTED:gh]");
  expect(result.headers["x-echo"]).toBe("[REDACTED:gh]");
});

test("AWS Signature V4 is computed so that the upstream's own verification accepts it", async () => {
  const result = await vault.apiCall({ service: "cloud", method: "GET", path: "/?Action=GetCallerIdentity&Version=2011-06-15" }, operator);
  expect(result.status).toBe(200);
  expect(result.body).toContain("<Account>123456789012</Account>");
  const checked = await vault.check("cloud", operator);
  expect(checked).toMatchObject({ ok: true, status: 200 });
});

test("check reports a working credential without revealing it, and a failing one", async () => {
  const ok = await vault.check("gh", operator);
  expect(ok).toEqual({ service: "gh", ok: true, status: 200, reason: "working" });
  expect(JSON.stringify(ok)).not.toContain(githubToken);
  const listed = await vault.services(operator);
  expect(listed.find((s) => s.name === "gh")).toMatchObject({ status: "working", template: "github", injection: "bearer" });
  expect(JSON.stringify(listed)).not.toContain(githubToken);
});

test("loopback is refused unless the service allows it", async () => {
  const error = await failure(vault.apiCall({ service: "gh-public", method: "GET", path: "/user" }, operator));
  expect(error.code).toBe("EGRESS_DENIED");
  expect(github.seen.some((r) => r.url.includes("/user") && !r.authorization)).toBe(false);
});

test("paths with .., absolute URLs, CR/LF headers and reserved headers are refused before anything is sent", async () => {
  const before = github.seen.length;
  for (const path of ["/repos/../user", "/repos/%2e%2e/user", "http://evil.example/user", "//evil.example/user", "/user\r\nHost: x"])
    expect((await failure(call(path))).code).toBe("INVALID_REQUEST");
  expect((await failure(call("/user", { headers: { "x-test": "a\r\nb: c" } }))).code).toBe("INVALID_REQUEST");
  expect((await failure(call("/user", { headers: { authorization: "Bearer mine" } }))).code).toBe("INVALID_REQUEST");
  expect((await failure(call("/user", { headers: { host: "evil.example" } }))).code).toBe("INVALID_REQUEST");
  expect(github.seen.length).toBe(before);
});

test("method and path allowlists hold; unknown services are named", async () => {
  expect((await failure(call("/orgs/x"))).code).toBe("NOT_ALLOWED");
  expect((await failure(vault.apiCall({ service: "nope", method: "GET", path: "/" }, operator))).code).toBe("UNKNOWN_SERVICE");
  expect((await call("/repos/a/b", { method: "DELETE" })).status).toBe(204);
});

test("a redirect on the same host is followed; one to another host is handed back without the credential", async () => {
  expect(JSON.parse((await call("/moved")).body)).toEqual({ login: "octocat", id: 1 });
  const before = elsewhere.seen.length;
  const away = await call("/away", { query: { to: `http://127.0.0.1:${elsewhere.port}/user` } });
  expect(away.status).toBe(302);
  expect(elsewhere.seen.length).toBe(before);
});

test("oversized requests and responses, timeouts and resets are clear errors", async () => {
  expect((await failure(call("/user", { method: "POST", body: "x".repeat(2 * 1024 * 1024) }))).code).toBe("REQUEST_TOO_LARGE");
  expect((await failure(call("/big"))).code).toBe("RESPONSE_TOO_LARGE");
  expect((await failure(call("/slow"))).code).toBe("UPSTREAM_TIMEOUT");
  const reset = await failure(vault.apiCall({ service: "flaky", method: "GET", path: "/" }, operator));
  expect(reset.code).toBe("UPSTREAM_UNREACHABLE");
  expect(reset.message).not.toContain("flaky-credential-value");
});

test("a caller whose role does not cover the service is refused", async () => {
  const error = await failure(vault.apiCall({ service: "gh", method: "GET", path: "/user" }, { name: "narrow", services: ["cloud"] }));
  expect(error.code).toBe("PERMISSION_DENIED");
});
