import { describe, expect, test } from "bun:test";
import { SpiffeIdError } from "../../src/identity/errors.ts";
import { isSpiffeId, parseSpiffeId, parseTrustDomain, peerMatcher } from "../../src/identity/spiffe.ts";

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

  test("isSpiffeId agrees with parseSpiffeId, on every id above and on edge cases", () => {
    const parses = (text: string) => {
      try {
        parseSpiffeId(text);
        return true;
      } catch {
        return false;
      }
    };
    const edges = [
      "spiffe://platform.local/agent/planner",
      "spiffe://example.org",
      "spiffe://a-b_c.9/Up_Case.ok-1",
      "spiffe://a/...",
      "spiffe://a/.x/..y/x./x..",
      "spiffe://a/.",
      "spiffe://a/b/..",
      "spiffe://.",
      "spiffe://a/b\n",
      "spiffe://a\n/b",
      `spiffe://${"a".repeat(255)}/x`,
      `spiffe://a/${"b".repeat(2048 - 11)}`,
      `spiffe://a/${"b".repeat(2048 - 10)}`,
    ];
    for (const text of [...bad.map(([input]) => input), ...edges]) expect([text, isSpiffeId(text)]).toEqual([text, parses(text)]);
    expect(isSpiffeId("spiffe://a/...")).toBe(true);
    expect(isSpiffeId(`spiffe://a/${"b".repeat(2048 - 10)}`)).toBe(false);
    for (const notText of [undefined, null, 42, {}, ["spiffe://a/b"]]) expect(isSpiffeId(notText)).toBe(false);
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
