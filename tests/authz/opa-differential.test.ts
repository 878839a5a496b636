/**
 * The OPA-compatible REST API against real OPA: the same requests, in the same order, to both, from the same
 * empty start. Status codes and bodies must agree; where the two may differ by design (an error's wording,
 * timings, OPA's AST, labels) the comparison says so, and docs/rego.md lists each such difference.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { opaHttp } from "../../src/authz/http.ts";
import { PolicyStore } from "../../src/authz/policies.ts";
import { RegoEngine } from "../../src/rego/engine.ts";
import { type RunningOpa, startOpa } from "../support/opa.ts";
import { quiet } from "./support.ts";

/**
 * How a pair of answers is compared. exact: status and body. text: status and the body's text, byte for
 * byte (?pretty). error: status, code, and each error's code and file:row (messages may be worded apart).
 * present: status and the body's keys (timings and build facts differ). The first error only is compared: OPA's
 * parser may report more after it.
 */
type Mode = "exact" | "text" | "error" | "present";

interface Step {
  method: string;
  path: string;
  body?: string;
  mode?: Mode;
}

const example = `package example

allow if input.user == "ann"

greeting := sprintf("hi %s", [input.user])

servers contains s.id if some s in data.servers
`;

const conflicts = `package c

x := 1

x := 2 if input.two

d := 1 / input.z
`;

const steps: Step[] = [
  { method: "PUT", path: "/v1/policies/example.rego", body: example },
  { method: "PUT", path: "/v1/policies/c.rego", body: conflicts },
  { method: "PUT", path: "/v1/policies/bad.rego", body: "package bad\n\np if {\n", mode: "error" },
  { method: "PUT", path: "/v1/policies/unsafe.rego", body: "package unsafe\n\np if q\n", mode: "error" },
  { method: "PUT", path: "/v1/policies/empty.rego", body: "" },
  { method: "GET", path: "/v1/policies/example.rego" },
  { method: "GET", path: "/v1/policies/nope.rego" },
  { method: "GET", path: "/v1/policies" },
  { method: "PUT", path: "/v1/data/servers", body: '[{"id": "s1"}, {"id": "s2"}]' },
  { method: "GET", path: "/v1/data/servers" },
  { method: "PUT", path: "/v1/data/a/b/c", body: "1" },
  { method: "GET", path: "/v1/data/a" },
  { method: "PATCH", path: "/v1/data/a", body: '[{"op": "add", "path": "/b/d", "value": 2}, {"op": "replace", "path": "/b/c", "value": 3}]' },
  { method: "GET", path: "/v1/data/a" },
  { method: "PATCH", path: "/v1/data/a", body: '[{"op": "remove", "path": "/b/d"}]' },
  { method: "GET", path: "/v1/data/a/b" },
  { method: "PATCH", path: "/v1/data/a", body: '[{"op": "remove", "path": "/x"}]' },
  { method: "PATCH", path: "/v1/data/a", body: '{"op": "add"}', mode: "error" },
  { method: "PUT", path: "/v1/data/a", body: "{bad", mode: "error" },
  { method: "DELETE", path: "/v1/data/a/b/c" },
  { method: "DELETE", path: "/v1/data/nope" },
  { method: "GET", path: "/v1/data/a" },
  { method: "PUT", path: "/v1/data", body: "[1]" },
  { method: "PUT", path: "/v1/data/big", body: "12345678901234567890" },
  { method: "GET", path: "/v1/data/big" },
  { method: "GET", path: "/v1/data/example" },
  { method: "GET", path: "/v1/data/example?pretty", mode: "text" },
  { method: "GET", path: "/v1/data/example/allow?input=%7B%22user%22%3A%22ann%22%7D" },
  { method: "GET", path: "/v1/data/example?input=notjson", mode: "error" },
  { method: "GET", path: "/v1/data/nope" },
  { method: "POST", path: "/v1/data/example", body: "{}" },
  { method: "POST", path: "/v1/data/example", body: '{"input": {"user": "ann"}}' },
  { method: "POST", path: "/v1/data/example", body: '{"input": {"user": "ann"}}', mode: "text" },
  { method: "POST", path: "/v1/data/example?pretty=true", body: '{"input": {"user": "bob"}}', mode: "text" },
  { method: "POST", path: "/v1/data/example", body: "{bad", mode: "error" },
  { method: "POST", path: "/v1/data", body: '{"input": {"user": "ann"}}' },
  { method: "GET", path: "/v1/data/example?metrics", mode: "present" },
  { method: "GET", path: "/v1/data/example?provenance", mode: "present" },
  { method: "GET", path: "/v1/data/example?explain=notes" },
  { method: "POST", path: "/v1/data/c", body: '{"input": {"two": true}}', mode: "error" },
  { method: "POST", path: "/v1/data/c/d?strict-builtin-errors", body: '{"input": {"z": 0}}', mode: "error" },
  { method: "POST", path: "/v1/data/c/d", body: '{"input": {"z": 0}}' },
  { method: "POST", path: "/v1/query", body: '{"query": "x := data.example.servers"}' },
  { method: "POST", path: "/v1/query", body: '{"query": "x := input.a", "input": {"a": 2}}' },
  { method: "POST", path: "/v1/query", body: '{"query": "x := 1; x > 2"}' },
  { method: "POST", path: "/v1/query", body: '{"query": "x := "}', mode: "error" },
  { method: "GET", path: "/v1/query?q=x%20%3A%3D%20data.a" },
  { method: "GET", path: "/v1/query", mode: "error" },
  { method: "POST", path: "/", body: '{"user": "ann"}' },
  { method: "PUT", path: "/v1/policies/system.rego", body: 'package system\n\nmain := {"hello": input.user}\n' },
  { method: "POST", path: "/", body: '{"user": "ann"}' },
  { method: "POST", path: "/", body: "notjson", mode: "error" },
  { method: "GET", path: "/health" },
  { method: "GET", path: "/health?bundles" },
  { method: "GET", path: "/health?plugins" },
  { method: "GET", path: "/v1/status" },
  { method: "DELETE", path: "/v1/policies/example.rego" },
  { method: "DELETE", path: "/v1/policies/example.rego" },
  { method: "GET", path: "/v1/data/example" },
];

interface Answer {
  status: number;
  text: string;
  body: unknown;
}

async function send(base: string, step: Step): Promise<Answer> {
  const response = await fetch(base + step.path, { method: step.method, body: step.body });
  const text = await response.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = text;
  }
  return { status: response.status, text, body };
}

/** The answer as compared in `mode`. OPA's policy listings carry its AST, which this API does not give. */
function comparable(answer: Answer, mode: Mode): unknown {
  const body = answer.body as Record<string, any> | undefined;
  switch (mode) {
    case "text":
      return { status: answer.status, text: answer.text };
    case "present":
      return { status: answer.status, keys: Object.keys(body ?? {}).sort() };
    case "error":
      return {
        status: answer.status,
        code: body?.code,
        // The first error only: OPA's parser may go on to report more after the first.
        errors: (body?.errors ?? []).slice(0, 1).map((e: any) => ({ code: e.code, file: e.location?.file, row: e.location?.row })),
      };
    default: {
      const stripAst = (p: any) => (p && typeof p === "object" && "raw" in p ? { id: p.id, raw: p.raw } : p);
      const result = body?.result;
      // OPA lists policies in no fixed order (a Go map's): both listings are compared by id.
      const cleaned = Array.isArray(result) ? result.map(stripAst).sort((a: any, b: any) => String(a?.id ?? "").localeCompare(String(b?.id ?? ""))) : stripAst(result);
      return { status: answer.status, body: body && "result" in body ? { ...body, result: cleaned } : body };
    }
  }
}

let opa: RunningOpa;
let ours: ReturnType<typeof opaHttp>;
const answers: { step: Step; theirs: Answer; mine: Answer }[] = [];

beforeAll(async () => {
  opa = await startOpa();
  ours = opaHttp(new PolicyStore(new RegoEngine(), { policyPath: "example", development: true }), quiet).listen({ hostname: "127.0.0.1", port: 0 });
  const mine = `http://127.0.0.1:${ours.server!.port}`;
  for (const step of steps) answers.push({ step, theirs: await send(opa.url, step), mine: await send(mine, step) });
}, 60_000);

afterAll(async () => {
  await ours?.stop(true);
  await opa?.stop();
});

describe("OPA REST API against real OPA", () => {
  test("every request was answered by both", () => {
    expect(answers.length).toBe(steps.length);
  });

  for (const [i, step] of steps.entries())
    test(`${i + 1}. ${step.method} ${step.path}${step.mode ? ` (${step.mode})` : ""}`, () => {
      const { theirs, mine } = answers[i]!;
      const mode = step.mode ?? "exact";
      expect(comparable(mine, mode)).toEqual(comparable(theirs, mode));
    });
});
