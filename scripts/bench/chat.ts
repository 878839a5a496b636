/**
 * `bun scripts/bench/chat.ts`: the chat server's goals, side by side in one run, all against the same Discord
 * stand-in on loopback (tests/support/discord):
 * 1. send_message and read_messages through MCP over stdio: calls/s, p50 and p99 for this server and for
 *    mcp-discord (npm, run by Node with its REST base pointed at the stand-in by a preload, chat-discord-base.mjs);
 *    goal: at least 2x the calls/s and a lower p99.
 * 2. The overhead of this server over calling @discordjs/rest directly for the same requests (goal: under 10%),
 *    with the stand-in answering at once and again after a 25 ms round trip, as Discord would.
 * 3. A 429 storm: every call either succeeds or answers RateLimitError, and no request breaks a bucket.
 * The stand-in's limits are lifted for 1 and 2 (and both servers' global limit raised alike), so what is
 * measured is the servers, not Discord's 50 requests a second.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REST } from "@discordjs/rest";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { Routes } from "discord-api-types/v10";
import { startDiscord } from "../../tests/support/discord/server.ts";
import { inTurns, percentile, printTable, root } from "./support.ts";

const calls = Number(process.env.CHAT_BENCH_CALLS ?? 400);
const rounds = Number(process.env.CHAT_BENCH_ROUNDS ?? 3);
const concurrency = 8;
const unlimited = 1_000_000_000;
/** The highest global limit chat.global_requests_per_second takes; mcp-discord and the direct client get the same. */
const globalLimit = 100_000;

const discord = await startDiscord({ limit: unlimited, globalPerSecond: unlimited });
const { ids, token } = discord;
const dir = mkdtempSync(join(tmpdir(), "platform-bench-chat-"));

/** An MCP client on a server launched over stdio. */
async function stdio(command: string[], env: Record<string, string>): Promise<Client> {
  const client = new Client({ name: "chat-bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: command[0]!, args: command.slice(1), cwd: root, env: { ...(process.env as Record<string, string>), ...env }, stderr: "inherit" }));
  return client;
}

const oursEnv = (name: string, extra: Record<string, string> = {}) => ({
  CHAT_TOKEN: token,
  PLATFORM_CHAT__API_BASE: discord.api,
  PLATFORM_CHAT__GLOBAL_REQUESTS_PER_SECOND: String(globalLimit),
  PLATFORM_DATA_DIR: join(dir, name),
  LOG_LEVEL: "error",
  ...extra,
});
const theirsEnv = () => ({ DISCORD_TOKEN: token, DISCORD_API_BASE: discord.api, DISCORD_GLOBAL_REQUESTS_PER_SECOND: String(globalLimit) });
const ours = await stdio(["bun", "src/main.ts", "mcp", "chat"], oursEnv("ours"));
const theirs = await stdio(["node", "--import", join(import.meta.dir, "chat-discord-base.mjs"), "node_modules/mcp-discord/build/index.js"], theirsEnv());
const rest = new REST({ api: discord.api, version: "10", globalRequestsPerSecond: globalLimit }).setToken(token);

// Reads go to a channel holding 50 messages, so every read answers the same page.
const readChannel = ids.announcements;
for (let i = 0; i < 50; i++) await rest.post(Routes.channelMessages(readChannel), { body: { content: `Announcement ${i}: ${"lorem ipsum ".repeat(8)}` } });

const succeeded = (result: unknown) => {
  if ((result as CallToolResult).isError) throw new Error(JSON.stringify((result as CallToolResult).content));
};
type Call = () => Promise<unknown>;
const contenders: { name: string; send: Call; read: Call }[] = [
  {
    name: "chat (this server)",
    send: () => ours.callTool({ name: "send_message", arguments: { channelId: ids.general, content: "benchmark message" } }).then(succeeded),
    read: () => ours.callTool({ name: "read_messages", arguments: { channelId: readChannel, limit: 50 } }).then(succeeded),
  },
  {
    name: "mcp-discord 1.3.4",
    send: () => theirs.callTool({ name: "discord_send", arguments: { channelId: ids.general, message: "benchmark message" } }).then(succeeded),
    read: () => theirs.callTool({ name: "discord_read_messages", arguments: { channelId: readChannel, limit: 50 } }).then(succeeded),
  },
  {
    name: "@discordjs/rest, direct",
    send: () => rest.post(Routes.channelMessages(ids.general), { body: { content: "benchmark message" } }),
    read: () => rest.get(Routes.channelMessages(readChannel), { query: new URLSearchParams({ limit: "50" }) }),
  },
];

interface Run {
  seconds: number;
  latencies: number[];
}

/** `count` calls, `concurrency` in flight at a time. */
async function drive(call: Call, count: number): Promise<Run> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < count) {
        const at = performance.now();
        await call();
        latencies.push(performance.now() - at);
      }
    }),
  );
  return { seconds: (performance.now() - started) / 1000, latencies };
}

for (const contender of contenders) {
  await drive(contender.send, 100);
  await drive(contender.read, 100);
}
const summary = (runs: Run[]) => {
  const latencies = runs.flatMap((r) => r.latencies);
  return { perSecond: latencies.length / runs.reduce((sum, r) => sum + r.seconds, 0), p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
};
/** Every contender's send and read, `count` calls each a round, the contenders taking turns. */
async function compare(count: number, turns: number) {
  const results = await inTurns(turns, contenders.flatMap((c) => [() => drive(c.send, count), () => drive(c.read, count)]));
  return contenders.map((c, i) => ({ name: c.name, send: summary(results[2 * i]!), read: summary(results[2 * i + 1]!) }));
}
const stats = await compare(calls, rounds);
// The same with the stand-in answering after 25 ms, as Discord does from a nearby region: what the overhead is in use.
discord.latencyMs = 25;
const distant = await compare(Math.ceil(calls / 10), rounds);
discord.latencyMs = 0;

// The 429 storm: one Retry-After in ten is past this server's max_wait_ms (RateLimitError), the rest are waited out.
await ours.close();
const storm = await stdio(["bun", "src/main.ts", "mcp", "chat"], oursEnv("storm", { PLATFORM_CHAT__MAX_WAIT_MS: "2000", PLATFORM_CHAT__GLOBAL_REQUESTS_PER_SECOND: "50" }));
discord.limits.reset();
discord.setLimit("POST /channels/:channel_id/messages", 5, 1000);
discord.limits.globalPerSecond = 50;
const stormChannels = [ids.general, ids.thread, ids.forumPost, ids.announcements];
let draws = 0;
discord.limits.random = () => (draws++ % 5 === 0 ? 0 : 1);
const stormCalls = 120;
const outcomes = { ok: 0, rateLimited: 0, other: 0 };
const stormStarted = performance.now();
discord.limits.storm = { rate: 1, retryAfterMs: 1000 };
let sent = 0;
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (sent < stormCalls) {
      const i = sent++;
      // Every tenth 429 asks for 3 s, past the 2 s this server may wait.
      discord.limits.storm!.retryAfterMs = i % 10 === 0 ? 3000 : 1000;
      const result = (await storm.callTool({ name: "send_message", arguments: { channelId: stormChannels[i % stormChannels.length], content: `storm ${i}` } })) as CallToolResult;
      if (!result.isError) outcomes.ok++;
      else if ((result.content[0] as { text: string }).text.startsWith("Error: [RateLimitError] - ")) outcomes.rateLimited++;
      else outcomes.other++;
    }
  }),
);
const stormSeconds = (performance.now() - stormStarted) / 1000;
const storm429 = { ...discord.limits.sent429 };
const breaks = discord.limits.breaks;
for (const broken of discord.limits.breakLog) console.error("bucket broken:", broken);
await Promise.all([storm.close(), theirs.close()]);
await discord.stop();
rmSync(dir, { recursive: true, force: true });

type Stats = Awaited<ReturnType<typeof compare>>;
const ms = (value: number) => value.toFixed(2);
const ratio = (value: number) => `${value.toFixed(2)}x`;
const overhead = (mine: number, base: number) => `${(((mine - base) / base) * 100).toFixed(0)}%`;
const added = (mine: number, base: number) => `${mine >= base ? "+" : ""}${ms(mine - base)} ms`;
function table(title: string, [chat, peer, direct]: Stats) {
  console.log(`\n${title}\n`);
  const rows: (string | number)[][] = [["operation", "measure", chat!.name, peer!.name, "chat / mcp-discord", direct!.name, "chat's overhead"]];
  for (const op of ["send", "read"] as const) {
    const label = op === "send" ? "send_message" : "read_messages (50)";
    const [c, p, d] = [chat![op], peer![op], direct![op]];
    rows.push([label, "calls/s", c.perSecond.toFixed(0), p.perSecond.toFixed(0), ratio(c.perSecond / p.perSecond), d.perSecond.toFixed(0), overhead(d.perSecond, c.perSecond)]);
    rows.push([label, "p50 ms", ms(c.p50), ms(p.p50), ratio(c.p50 / p.p50), ms(d.p50), `${overhead(c.p50, d.p50)} (${added(c.p50, d.p50)})`]);
    rows.push([label, "p99 ms", ms(c.p99), ms(p.p99), ratio(c.p99 / p.p99), ms(d.p99), `${overhead(c.p99, d.p99)} (${added(c.p99, d.p99)})`]);
  }
  printTable(rows);
}
console.log(`chat benchmark: MCP over stdio, ${concurrency} calls in flight, the contenders taking turns over ${rounds} rounds`);
table(`Stand-in answering at once on loopback (${calls} calls per operation a round):`, stats);
table(
  `Stand-in answering after 25 ms, a Discord round trip (${Math.ceil(calls / 10)} calls per operation a round; @discordjs/rest sends one request at a time per bucket, so calls to one channel queue):`,
  distant,
);
console.log(`\n429 storm (this server, max_wait_ms 2000): one request in five answered 429 (scope shared) with a Retry-After of 1 s, or 3 s for some; 5 messages a second per channel, 50 requests a second in all:\n`);
printTable([
  ["calls", "succeeded", "RateLimitError", "failed otherwise", "429s sent", "requests breaking a bucket", "seconds"],
  [stormCalls, outcomes.ok, outcomes.rateLimited, outcomes.other, storm429.shared + storm429.user + storm429.global, breaks, stormSeconds.toFixed(1)],
]);
