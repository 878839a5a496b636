import { afterAll, beforeAll, expect, test } from "bun:test";
import { openShop, type Shop } from "./support.ts";

// A small body limit and an anonymous budget this file counts exactly.
let shop: Shop;
beforeAll(async () => {
  shop = await openShop({ PLATFORM_SERVER__BODY_LIMIT: "1024", PLATFORM_CATALOG__RATE_LIMIT_ANONYMOUS: "50" });
});
afterAll(() => shop.stop());

const oversized = JSON.stringify({ email: "x".repeat(2000), password: "secret" });
const chunked = (text: string) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      // Two chunks and no Content-Length: the body's size is learnt only as it streams in.
      const bytes = new TextEncoder().encode(text);
      controller.enqueue(bytes.subarray(0, 600));
      controller.enqueue(bytes.subarray(600));
      controller.close();
    },
  });
const post = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) =>
  fetch(`${shop.base}/auth/login`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body, duplex: "half" } as RequestInit);

const remaining = (res: Response) => Number(res.headers.get("x-ratelimit-remaining"));

test("an oversized body is one 413 in the catalog's form, with the rate-limit headers, declared or chunked", async () => {
  const declared = await post(oversized);
  const streamed = await post(chunked(oversized));
  expect(declared.status).toBe(413);
  expect(streamed.status).toBe(413);
  const [a, b] = [await declared.json(), await streamed.json()];
  expect(a).toEqual({ code: "PAYLOAD_TOO_LARGE", message: "Request body exceeds the limit of 1024 bytes", details: {} });
  expect(b).toEqual(a);
  for (const res of [declared, streamed]) {
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(res.headers.get("x-ratelimit-limit")).toBe("50");
    expect(Number(res.headers.get("x-ratelimit-reset"))).toBeGreaterThan(Date.now() / 1000);
  }
  // Each was counted.
  expect(remaining(streamed)).toBe(remaining(declared) - 1);
});

test("malformed JSON is counted by the rate limiter and carries its headers, like every other answer", async () => {
  const before = await fetch(`${shop.base}/nowhere`);
  const malformed = await post('{"email": ');
  expect(malformed.status).toBe(400);
  expect(await malformed.json()).toMatchObject({ code: "VALIDATION_ERROR", details: { fields: [{ field: "body", message: "is not valid JSON" }] } });
  expect(malformed.headers.get("x-ratelimit-limit")).toBe("50");
  expect(remaining(malformed)).toBe(remaining(before) - 1);
  const after = await fetch(`${shop.base}/nowhere`);
  expect(remaining(after)).toBe(remaining(before) - 2);
});

test("past the limit, an oversized or malformed body is refused as 429 before it is read", async () => {
  let last = await fetch(`${shop.base}/nowhere`);
  for (let sent = 0; sent < 60 && last.status !== 429; sent++) last = await post("{");
  expect(last.status).toBe(429);
  for (const res of [await post(oversized), await post(chunked(oversized)), await post("{")]) {
    expect(res.status).toBe(429);
    expect(await res.json()).toMatchObject({ code: "RATE_LIMITED" });
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get("x-ratelimit-remaining")).toBe("0");
  }
});
