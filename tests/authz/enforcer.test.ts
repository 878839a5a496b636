import { afterAll, describe, expect, test } from "bun:test";
import { capability, requiresPeer } from "../../src/authz/model.ts";
import { opaProvider } from "../../src/authz/provider.ts";
import { AuthzService } from "../../src/authz/service.ts";
import { createLogger } from "../../src/log.ts";
import { embedded, enforcer, orderBot, planner, policyEngine, reporter, self, td } from "./support.ts";

const servers: { stop(force?: boolean): unknown }[] = [];
afterAll(() => servers.forEach((s) => s.stop(true)));

describe("inbound", () => {
  test("a caller the policy permits is allowed, and the decision is frozen and audited", async () => {
    const { service, recordOf } = enforcer(embedded());
    const decision = await service.checkInbound(planner, "task.send", { data_classification: "internal" });
    expect(decision).toMatchObject({ allowed: true, reason: "allowed: caller capability" });
    expect(Object.isFrozen(decision)).toBe(true);
    expect(() => ((decision as { allowed: boolean }).allowed = false)).toThrow();
    const record = await recordOf(decision.auditId);
    expect(record).toMatchObject({
      audit_id: decision.auditId,
      caller_spiffe_id: planner,
      callee_spiffe_id: null,
      action: "task.send",
      decision: "allowed",
      reason: "allowed: caller capability",
      context: { data_classification: "internal" },
      result: { decision_metadata: { policy: "platform.authz", same_trust_domain: true } },
    });
    expect(record!.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(record!.policy_version).toMatch(/^[0-9a-f]{16}$/);
  });

  test("a caller without the capability, or from another trust domain, is denied and audited", async () => {
    const { service, recordOf } = enforcer(embedded());
    const notPermitted = await service.checkInbound(reporter, "task.send");
    expect(notPermitted).toMatchObject({ allowed: false, reason: "denied: action not permitted for caller (task.send)" });
    const foreign = await service.checkInbound("spiffe://evil.example/agent/planner", "task.send");
    expect(foreign.allowed).toBe(false);
    expect(foreign.reason).toContain("different trust domains");
    expect(await recordOf(foreign.auditId)).toMatchObject({ decision: "denied", caller_spiffe_id: "spiffe://evil.example/agent/planner" });
  });

  test("no verified identity is denied before policy when mTLS is required", async () => {
    const { service, recordOf } = enforcer(embedded());
    const decision = await service.checkInbound(undefined, "agent-card:read");
    expect(decision).toMatchObject({ allowed: false, reason: expect.stringContaining("no verified SPIFFE identity") });
    expect(await recordOf(decision.auditId)).toMatchObject({ caller_spiffe_id: null, policy_version: "none" });
    const open = enforcer(embedded(), { requireIdentity: false }).service;
    expect((await open.checkInbound(undefined, "agent-card:read")).reason).toBe("denied: caller_spiffe_id is not a SPIFFE ID (agent-card:read)");
  });

  test("a malformed caller id is denied with a clear reason", async () => {
    const { service } = enforcer(embedded());
    expect(await service.checkInbound("spiffe://platform.local/../admin", "task.send")).toMatchObject({
      allowed: false,
      reason: "denied: caller_spiffe_id is not a valid SPIFFE id",
    });
  });

  test("requiresPeer and capability markers are enforced on top of policy", async () => {
    const { service } = enforcer(embedded());
    const onlyOrderBots = { ...capability("task.send"), ...requiresPeer(`${td}/agent/order-bot`) };
    const wrongPeer = await service.checkInbound(planner, "task.send", {}, onlyOrderBots);
    expect(wrongPeer).toMatchObject({ allowed: false, reason: expect.stringContaining("not the peer this handler requires") });
    expect((await service.checkInbound(planner, "task.send", {}, requiresPeer(`${td}/agent/*`))).allowed).toBe(true);
    // The planner may send tasks, but this handler also needs catalog:write, which it lacks.
    const noCapability = await service.checkInbound(planner, "task.send", {}, capability("catalog:write"));
    expect(noCapability).toMatchObject({ allowed: false, reason: "denied: action not permitted for caller (catalog:write)" });
    expect((await service.checkInbound(orderBot, "catalog:write", {}, capability("catalog:write"))).allowed).toBe(true);
    expect((await service.checkInbound(planner, "task.send", {}, requiresPeer("not-an-id/*"))).allowed).toBe(false);
  });

  test("without an audit log a decision's id is still unique and stays the same once read", async () => {
    const service = new AuthzService({ provider: embedded(), policyPath: "platform/authz", selfId: () => self, requireIdentity: true, log: createLogger({ level: "error" }) });
    const [a, b] = await Promise.all([service.checkInbound(planner, "task.send"), service.checkInbound(planner, "task.send")]);
    expect(a.auditId).toMatch(/^[0-9a-f-]{36}$/);
    expect(a.auditId).toBe(a.auditId);
    expect(b.auditId).not.toBe(a.auditId);
    expect(Object.isFrozen(a)).toBe(true);
  });

  test("a context that is not JSON is denied, not thrown", async () => {
    const { service } = enforcer(embedded());
    const decision = await service.checkInbound(planner, "task.send", { big: 1n });
    expect(decision).toMatchObject({ allowed: false, reason: "denied: context is not plain JSON" });
  });
});

describe("outbound", () => {
  test("checks caller and callee, and records the callee", async () => {
    const { service, recordOf } = enforcer(embedded());
    const allowed = await service.checkOutbound(planner, `${td}/service/catalog`, "catalog:read");
    expect(allowed.allowed).toBe(true);
    expect(await recordOf(allowed.auditId)).toMatchObject({ callee_spiffe_id: `${td}/service/catalog`, decision: "allowed" });
    const denied = await service.checkOutbound(planner, "spiffe://elsewhere.example/svc", "catalog:read");
    expect(denied.allowed).toBe(false);
  });
});

describe("failures deny", () => {
  test("a missing package denies at run time", async () => {
    const engine = policyEngine();
    engine.deleteModule("authz.rego");
    const { service } = enforcer(embedded(engine));
    expect(await service.checkInbound(planner, "task.send")).toMatchObject({
      allowed: false,
      reason: "denied: policy package platform.authz is not loaded",
    });
  });

  test("an unreachable, slow or garbage-answering engine denies with the cause", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
    const closedUrl = `http://127.0.0.1:${closed.port}`;
    await closed.stop(true);
    const hanging = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Promise<Response>(() => {}) });
    const answers: Record<string, () => Response> = {
      "/not-json": () => new Response("<html>oops</html>"),
      "/array": () => Response.json({ result: [1, 2] }),
      "/no-allow": () => Response.json({ result: { allow: "yes" } }),
      "/error": () => new Response("boom", { status: 500 }),
      "/undefined": () => Response.json({}),
    };
    const garbage = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => answers[new URL(req.url).pathname.replace("/v1/data/x", "")]!() });
    servers.push(hanging, garbage);
    const decide = async (endpoint: string, timeoutMs = 2000) =>
      (await enforcer(opaProvider({ endpoint, policyPath: "x", timeoutMs })).service.checkInbound(planner, "task.send")).reason;
    expect(await decide(closedUrl)).toStartWith("denied: policy engine unreachable:");
    expect(await decide(`http://127.0.0.1:${hanging.port}`, 50)).toBe("denied: policy engine unreachable: no answer within 50 ms");
    const base = `http://127.0.0.1:${garbage.port}`;
    expect(await decide(`${base}/not-json`)).toMatch(/^denied: policy engine answered garbage \(the answer is not well-formed JSON \(JSON Parse error: .*\): "<html>oops<\/html>"\)$/);
    expect(await decide(`${base}/array`)).toBe("denied: policy engine answered garbage (result is an array, not an object)");
    expect(await decide(`${base}/no-allow`)).toBe("denied: policy engine answered garbage (allow is not a boolean)");
    expect(await decide(`${base}/error`)).toBe("denied: policy engine unreachable: HTTP 500: boom");
    expect(await decide(`${base}/undefined`)).toBe("denied: policy package platform.authz is not loaded");
  });
});

describe("an engine's answer is taken exactly as sent, or not at all", () => {
  test("a redirect is not followed: it denies, and the place it points to is never asked", async () => {
    let asked = 0;
    const elsewhere = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (asked++, Response.json({ result: { allow: true } })) });
    const redirecting = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) => Response.redirect(`http://127.0.0.1:${elsewhere.port}${new URL(req.url).pathname}`, 307),
    });
    servers.push(elsewhere, redirecting);
    const provider = opaProvider({ endpoint: `http://127.0.0.1:${redirecting.port}`, policyPath: "x", timeoutMs: 2000 });
    const decision = await enforcer(provider).service.checkInbound(planner, "task.send");
    expect(decision.allowed).toBe(false);
    expect(decision.reason).toBe(`denied: policy engine unreachable: HTTP 307 redirect to http://127.0.0.1:${elsewhere.port}/v1/data/x, not followed`);
    expect(asked).toBe(0);
  });

  test("duplicate keys, a byte-order mark, trailing bytes, or bytes that are not UTF-8 deny; an allow is never read from them", async () => {
    const allow = '{"allow":true,"reason":"allowed: caller capability"}';
    const answers: Record<string, () => Response> = {
      // JSON.parse would keep the last `result`, and allow.
      "/duplicate": () => new Response(`{"result":{"allow":false},"result":${allow}}`),
      "/duplicate-inside": () => new Response(`{"result":{"allow":false,"allow":true}}`),
      "/duplicate-escaped": () => new Response(`{"result":{"allow":false,"\u0061llow":true}}`),
      "/bom": () => new Response(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(`{"result":${allow}}`)])),
      "/trailing": () => new Response(`{"result":${allow}} {"result":${allow}}`),
      "/latin1": () => new Response(new Uint8Array([...new TextEncoder().encode(`{"result":${allow},"x":"`), 0xe9, 0x22, 0x7d])),
    };
    const garbage = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => answers[new URL(req.url).pathname.replace("/v1/data/x", "")]!() });
    servers.push(garbage);
    for (const [path, reason] of [
      ["/duplicate", 'duplicate key "result" in an object'],
      ["/duplicate-inside", 'duplicate key "allow" in an object'],
      ["/duplicate-escaped", 'duplicate key "allow" in an object'],
      ["/bom", "JSON Parse error"],
      ["/trailing", "JSON Parse error"],
      ["/latin1", "the answer is not UTF-8"],
    ]) {
      const provider = opaProvider({ endpoint: `http://127.0.0.1:${garbage.port}${path}`, policyPath: "x", timeoutMs: 2000 });
      const decision = await enforcer(provider).service.checkInbound(planner, "task.send");
      expect(decision.allowed).toBe(false);
      expect(decision.reason).toStartWith("denied: policy engine answered garbage");
      expect(decision.reason).toContain(reason!);
    }
  });

  test("the provider says whether the engine answered last time, and the last error", async () => {
    const up = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({}) });
    servers.push(up);
    const provider = opaProvider({ endpoint: `http://127.0.0.1:${up.port}`, policyPath: "x", timeoutMs: 2000 });
    await provider.probe!();
    expect(provider.reachability!()).toMatchObject({ reachable: true, lastError: null });
    await up.stop(true);
    await provider.probe!().catch(() => {});
    expect(provider.reachability!()).toMatchObject({ reachable: false, lastError: expect.any(String), lastErrorAt: expect.any(String) });
  });
});

describe("decision cache", () => {
  test("repeats are served from the cache until the policies change", async () => {
    const engine = policyEngine();
    const { service, records, audit } = enforcer(embedded(engine), { cacheTtlMs: 60_000 });
    for (let i = 0; i < 3; i++) expect((await service.checkInbound(planner, "catalog:read")).allowed).toBe(true);
    expect(service.stats()).toMatchObject({ cacheHits: 2, cacheMisses: 1 });
    engine.putModule("deny-catalog.rego", "package platform.authz\nreason := \"changed\" if false\n");
    engine.setData({ authz: { capabilities: {}, trust_domain_actions: [], delegations: {}, clearances: {}, classification_grants: {}, classification_levels: {} } });
    expect((await service.checkInbound(planner, "catalog:read")).allowed).toBe(false);
    expect(service.stats()).toMatchObject({ cacheHits: 2, cacheMisses: 2 });
    await audit.flush();
    expect(records).toHaveLength(4);
  });
});

test("the server's own id is the callee policy sees inbound", async () => {
  const { service } = enforcer(embedded());
  const decision = await service.checkInbound(`${td}/agent/anyone`, "agent-card:read");
  expect(decision).toMatchObject({ allowed: true, reason: "allowed: action open to the whole trust domain" });
  expect(self).toStartWith(td);
});
