import { afterEach, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { errorText, startChat, structured, type ChatHarness } from "./harness.ts";

let chat: ChatHarness | undefined;
afterEach(async () => {
  await chat?.close();
  chat = undefined;
});

const send = (client: Client, channelId: string, content: string) => client.callTool({ name: "send_message", arguments: { channelId, content } }) as Promise<CallToolResult>;

test("a burst into one bucket is paced by its headers: every call succeeds and no request breaks the bucket", async () => {
  chat = await startChat();
  chat.discord.setLimit("POST /channels/:channel_id/messages", 4, 300);
  const client = await chat.client();
  const results = await Promise.all(Array.from({ length: 14 }, (_, i) => send(client, chat!.discord.ids.general, `burst ${i}`)));
  expect(results.filter((r) => r.isError)).toEqual([]);
  expect(chat.discord.limits.breaks).toBe(0);
  expect(chat.discord.limits.sent429.user).toBe(0);
});

test("the global limit is kept across buckets", async () => {
  chat = await startChat({ discord: { globalPerSecond: 15 }, env: { PLATFORM_CHAT__GLOBAL_REQUESTS_PER_SECOND: "15" } });
  const client = await chat.client();
  const { ids } = chat.discord;
  const channels = [ids.general, ids.announcements, ids.thread, ids.forumPost];
  const results = await Promise.all(
    Array.from({ length: 32 }, (_, i) => client.callTool({ name: "read_messages", arguments: { channelId: channels[i % channels.length], limit: 1 } }) as Promise<CallToolResult>),
  );
  expect(results.filter((r) => r.isError)).toEqual([]);
  expect(chat.discord.limits.breaks).toBe(0);
  expect(chat.discord.limits.sent429.global).toBe(0);
});

test("a wait longer than chat.max_wait_ms is answered at once as RateLimitError with the wait", async () => {
  chat = await startChat({ env: { PLATFORM_CHAT__MAX_WAIT_MS: "1000" } });
  chat.discord.setLimit("POST /channels/:channel_id/messages", 1, 10_000);
  const client = await chat.client();
  structured(await send(client, chat.discord.ids.general, "first"));
  const started = performance.now();
  const text = errorText(await send(client, chat.discord.ids.general, "second"));
  expect(performance.now() - started).toBeLessThan(1000);
  expect(text).toMatch(/^Error: \[RateLimitError\] - Rate limited on route [^;]+; retry after (\d+) ms\n\nResolution: Wait \1 ms before calling again/);
  const wait = Number(/retry after (\d+) ms/.exec(text)![1]);
  expect(wait).toBeGreaterThan(9000);
  expect(wait).toBeLessThanOrEqual(10_100);
  // Nothing was sent into the exhausted bucket.
  expect(chat.discord.limits.breaks).toBe(0);
  expect(chat.discord.requests.filter((r) => r.route === "POST /channels/:channel_id/messages")).toHaveLength(1);
});

test("a 429 storm: each call either succeeds after its Retry-After or answers RateLimitError, and none breaks a bucket", async () => {
  chat = await startChat({ env: { PLATFORM_CHAT__MAX_WAIT_MS: "500" } });
  const client = await chat.client();
  const { ids } = chat.discord;
  let draws = 0;
  chat.discord.limits.random = () => (draws++ % 3 === 0 ? 0 : 1);
  chat.discord.limits.storm = { rate: 0.5, retryAfterMs: 800 };
  const channels = [ids.general, ids.announcements, ids.thread, ids.forumPost];
  const results = await Promise.all(Array.from({ length: 24 }, (_, i) => send(client, channels[i % channels.length]!, `storm ${i}`)));
  const failed = results.filter((r) => r.isError).map((r) => errorText(r));
  expect(failed.length).toBeGreaterThan(0);
  expect(failed.filter((text) => !text.startsWith("Error: [RateLimitError] - "))).toEqual([]);
  // Calls behind a 429 are answered from the bucket's Retry-After, without sending into it.
  expect(chat.discord.limits.sent429.shared).toBeGreaterThan(0);
  expect(chat.discord.limits.sent429.user).toBe(0);
  expect(chat.discord.limits.breaks).toBe(0);
});

test("a 429 whose Retry-After fits in chat.max_wait_ms is waited out, and the call succeeds", async () => {
  chat = await startChat({ env: { PLATFORM_CHAT__MAX_WAIT_MS: "3000" } });
  const client = await chat.client();
  chat.discord.limits.storm = { rate: 1, retryAfterMs: 500, count: 1 };
  const result = structured<{ messageId: string }>(await send(client, chat.discord.ids.general, "after the storm"));
  expect(result.messageId).toMatch(/^\d+$/);
  expect(chat.discord.limits.sent429.shared).toBe(1);
  expect(chat.discord.limits.breaks).toBe(0);
});

test("Discord's 5xx answers are retried; when they persist the call says Discord is failing", async () => {
  chat = await startChat();
  const client = await chat.client();
  chat.discord.failNext(2, 502);
  structured(await send(client, chat.discord.ids.general, "through the outage"));
  chat.discord.failNext(10, 503);
  const text = errorText(await send(client, chat.discord.ids.general, "in the outage"));
  expect(text).toMatch(/^Error: \[ChatNotConnectedError\] - Discord answered 503\n\nResolution: Discord's API is failing or unreachable; try again shortly/);
});
