/** The real policy files, evaluated through the embedded engine: each grant and each denial. */
import { beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { RegoEngine } from "../../src/rego/engine.ts";

const POLICIES = join(import.meta.dir, "../../policies");
const td = "spiffe://platform.local";
const planner = `${td}/agent/planner`;
const orderBot = `${td}/agent/order-bot`;
const reporter = `${td}/agent/reporter`;
const catalog = `${td}/service/catalog`;

interface Decision {
  allow: boolean;
  reason: string;
  decision_metadata: Record<string, unknown>;
}

let engine: RegoEngine;
let data: Record<string, unknown>;

beforeAll(async () => {
  data = await Bun.file(join(POLICIES, "data.json")).json();
  engine = new RegoEngine();
  engine.load([{ id: "authz.rego", source: await Bun.file(join(POLICIES, "authz.rego")).text() }], data);
});

const decide = (input: unknown) => engine.evaluate("platform/authz", input).result as Decision;
const request = (caller: string, action: string, context: Record<string, unknown> = {}) => ({
  caller_spiffe_id: caller,
  callee_spiffe_id: catalog,
  action,
  context,
});

describe("grants", () => {
  test("a capability in the map allows the action", () => {
    const d = decide(request(planner, "catalog:read"));
    expect(d.allow).toBe(true);
    expect(d.reason).toBe("allowed: caller capability");
    expect(d.decision_metadata).toEqual({
      policy: "platform.authz",
      action: "catalog:read",
      data_classification: "public",
      delegated_by: null,
      same_trust_domain: true,
    });
  });

  test("a capability pattern's wildcard covers one segment", () => {
    expect(decide(request(orderBot, "catalog:orders.create")).allow).toBe(true);
    expect(decide(request(orderBot, "vault:check")).allow).toBe(true);
    expect(decide(request(orderBot, "vault:read")).allow).toBe(false);
  });

  test("actions open to the trust domain need no capability", () => {
    const d = decide(request(`${td}/agent/unknown`, "health:read"));
    expect(d).toMatchObject({ allow: true, reason: "allowed: action open to the whole trust domain" });
  });

  test("clearance at or above the classification allows; below denies", () => {
    expect(decide(request(planner, "catalog:read", { data_classification: "confidential" })).allow).toBe(true);
    const d = decide(request(planner, "catalog:read", { data_classification: "restricted" }));
    expect(d).toMatchObject({ allow: false, reason: "denied: caller not cleared for restricted data" });
  });

  test("a classification granted by name allows above the clearance level", () => {
    // order-bot's clearance is internal, but confidential is granted to it explicitly
    expect(decide(request(orderBot, "catalog:read", { data_classification: "confidential" })).allow).toBe(true);
    expect(decide(request(orderBot, "catalog:read", { data_classification: "restricted" })).allow).toBe(false);
  });

  test("an unknown classification label is never cleared", () => {
    expect(decide(request(planner, "catalog:read", { data_classification: "top-secret" })).allow).toBe(false);
  });

  test("a named delegate acts with the delegator's capability", () => {
    const d = decide(request(reporter, "task.send", { delegated_by: planner }));
    expect(d).toMatchObject({ allow: true, reason: "allowed: delegated capability" });
    expect(d.decision_metadata.delegated_by).toBe(planner);
  });
});

describe("denials", () => {
  test("an action outside the caller's capabilities is denied", () => {
    expect(decide(request(reporter, "task.send"))).toMatchObject({ allow: false, reason: "denied: action not permitted for caller" });
  });

  test("different trust domains are denied, whatever the capability", () => {
    const d = decide({ ...request(planner, "catalog:read"), callee_spiffe_id: "spiffe://partner.example/service/catalog" });
    expect(d).toMatchObject({ allow: false, reason: "denied: caller and callee are in different trust domains" });
    expect(d.decision_metadata.same_trust_domain).toBe(false);
  });

  test("malformed SPIFFE IDs are denied", () => {
    expect(decide(request("https://platform.local/agent/planner", "catalog:read"))).toMatchObject({
      allow: false,
      reason: "denied: caller_spiffe_id is not a SPIFFE ID",
    });
    expect(decide({ ...request(planner, "catalog:read"), callee_spiffe_id: "spiffe://" })).toMatchObject({
      allow: false,
      reason: "denied: callee_spiffe_id is not a SPIFFE ID",
    });
  });

  test("delegation by a workload that did not name the caller is denied", () => {
    const d = decide(request(orderBot, "task.send", { delegated_by: planner }));
    expect(d).toMatchObject({ allow: false, reason: "denied: delegation not permitted" });
  });

  test("delegation never grants more than the delegator has", () => {
    expect(decide(request(reporter, "vault:check", { delegated_by: planner })).allow).toBe(false);
  });

  test("delegation needs the delegate cleared for the data too", () => {
    // planner is cleared for internal data, its delegate reporter only for public
    expect(decide(request(reporter, "task.send", { delegated_by: planner, data_classification: "internal" })).allow).toBe(false);
  });

  test("a delegator from another trust domain is refused", () => {
    const d = decide(request(reporter, "task.send", { delegated_by: "spiffe://partner.example/agent/planner" }));
    expect(d.allow).toBe(false);
  });

  test("missing or odd input denies instead of failing", () => {
    expect(decide({}).allow).toBe(false);
    expect(decide({ caller_spiffe_id: 42, callee_spiffe_id: null, action: ["x"] }).allow).toBe(false);
    expect(engine.evaluate("platform/authz/allow").result).toBe(false);
  });
});

describe("development allow-all", () => {
  test("allows everything on its own and alongside the default policy", async () => {
    const allowAll = await Bun.file(join(POLICIES, "dev/allow-all.rego")).text();
    const dev = new RegoEngine();
    dev.load([{ id: "dev/allow-all.rego", source: allowAll }]);
    expect(dev.evaluate("platform/authz/allow", { caller_spiffe_id: "anything" }).result).toBe(true);
    dev.load(
      [
        { id: "authz.rego", source: await Bun.file(join(POLICIES, "authz.rego")).text() },
        { id: "dev/allow-all.rego", source: allowAll },
      ],
      data,
    );
    expect(dev.evaluate("platform/authz/allow", request(reporter, "vault:read")).result).toBe(true);
  });
});
