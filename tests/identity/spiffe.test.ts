import { describe, expect, test } from "bun:test";
import { SpiffeIdError } from "../../src/identity/errors.ts";
import { parseSpiffeId, parseTrustDomain, peerMatcher } from "../../src/identity/spiffe.ts";

describe("parseSpiffeId", () => {
  test("splits a valid id into trust domain and path", () => {
    expect(parseSpiffeId("spiffe://platform.local/agent/planner")).toEqual({
      id: "spiffe://platform.local/agent/planner",
      trustDomain: "platform.local",
      path: "/agent/planner",
    });
    expect(parseSpiffeId("spiffe://example.org")).toMatchObject({ trustDomain: "example.org", path: "" });
    expect(parseSpiffeId("spiffe://a-b_c.9/Up_Case.ok-1").path).toBe("/Up_Case.ok-1");
  });

  const bad: [string, RegExp][] = [
    ["", /non-empty/],
    ["http://platform.local/x", /must start with spiffe:\/\//],
    ["SPIFFE://platform.local/x", /must start with spiffe:\/\//],
    ["spiffe:///x", /no trust domain/],
    ["spiffe://Platform.local/x", /invalid trust domain/],
    ["spiffe://platform.local:8443/x", /invalid trust domain/],
    ["spiffe://user@platform.local/x", /invalid trust domain/],
    ["spiffe://platform.local/", /must not end with '\/'/],
    ["spiffe://platform.local/a//b", /empty path segment/],
    ["spiffe://platform.local/a/../b", /relative path segment '\.\.'/],
    ["spiffe://platform.local/./b", /relative path segment '\.'/],
    ["spiffe://platform.local/a?x=1", /query or fragment/],
    ["spiffe://platform.local/a#f", /query or fragment/],
    ["spiffe://platform.local/a b", /invalid path segment "a b"/],
    ["spiffe://platform.local/caf\u00e9", /invalid path segment/],
    [`spiffe://platform.local/${"a".repeat(2100)}`, /at most 2048/],
    [`spiffe://${"a".repeat(256)}/x`, /longer than 255/],
  ];
  for (const [input, message] of bad)
    test(`refuses ${JSON.stringify(input.slice(0, 40))}`, () => {
      expect(() => parseSpiffeId(input)).toThrow(SpiffeIdError);
      expect(() => parseSpiffeId(input)).toThrow(message);
    });

  test("a trust domain alone follows the same rules", () => {
    expect(parseTrustDomain("prod.example")).toBe("prod.example");
    expect(() => parseTrustDomain("Prod")).toThrow(/invalid trust domain/);
  });
});

describe("peerMatcher", () => {
  test("an exact pattern matches that id only", () => {
    const matches = peerMatcher("spiffe://platform.local/agent/a");
    expect(matches("spiffe://platform.local/agent/a")).toBe(true);
    expect(matches("spiffe://platform.local/agent/ab")).toBe(false);
    expect(matches(undefined)).toBe(false);
  });

  test("a /* pattern matches every id under the prefix, not the prefix or a sibling", () => {
    const matches = peerMatcher("spiffe://platform.local/agent/*");
    expect(matches("spiffe://platform.local/agent/a")).toBe(true);
    expect(matches("spiffe://platform.local/agent/a/b")).toBe(true);
    expect(matches("spiffe://platform.local/agent")).toBe(false);
    expect(matches("spiffe://platform.local/agents/a")).toBe(false);
    expect(matches("spiffe://other.local/agent/a")).toBe(false);
    expect(matches("spiffe://platform.local/agent/../admin")).toBe(false);
  });

  test("a malformed pattern fails when it is made", () => {
    expect(() => peerMatcher("platform.local/agent/*")).toThrow(SpiffeIdError);
    expect(() => peerMatcher("spiffe://platform.local/agent/x*")).toThrow(SpiffeIdError);
  });
});
