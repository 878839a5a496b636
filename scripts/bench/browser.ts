/**
 * `bun scripts/bench/browser.ts`: the browser server against what its users would otherwise pick, on this machine,
 * against a local site served by a process of its own. One table:
 * - exploratory crawl of a 50-page site: pages/s, ours (parallel) against a plain sequential Playwright crawler
 *   doing the same checks (goal: at least 2x);
 * - accessibility on 20 pages: ours against @axe-core/playwright called directly (goal: at most 15% slower);
 * - navigate + snapshot + click through MCP: ours against @playwright/mcp on Node, both on Debian's Chromium
 *   (goal: lower p50 and p99);
 * - a session from the warm pool (goal: ready in under 100 ms) and memory per extra session;
 * - soak: 500 navigations and 200 SSE test runs at once, counting operations that stood still over 5 s (goal: 0).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AxeBuilder } from "@axe-core/playwright";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { createParser } from "eventsource-parser";
import { chromium, type Page } from "playwright-core";
import { firstLine, lines, machineBusySeconds, median, percentile, printTable, root } from "./support.ts";

/** `bun scripts/bench/browser.ts [crawl] [axe] [mcp] [pool] [soak]` runs only those; none given, all. */
const only = process.argv.slice(2);
const wanted = (name: string) => !only.length || only.includes(name);
const executable = "/usr/bin/chromium";
const stallMs = 5000;
const dir = mkdtempSync(join(tmpdir(), "platform-bench-browser-"));
const children: ReturnType<typeof Bun.spawn>[] = [];
process.once("exit", () => {
  for (const child of children) child.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

const site = Bun.spawn(["bun", join(root, "scripts/bench/browser-site.ts")], { stdout: "pipe", stderr: "inherit" });
children.push(site);
const origin = await firstLine(site.stdout, "the site");

const server = Bun.spawn(["bun", join(root, "src/main.ts"), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", join(dir, "server")], {
  stdout: "ignore",
  stderr: "pipe",
  env: { ...process.env, PLATFORM_VAULT__SETUP_ENABLED: "false", PLATFORM_BROWSER__MAX_SESSIONS: "12", PLATFORM_BROWSER__WARM_SESSIONS: "1", PLATFORM_BROWSER__CRAWL_CONCURRENCY: "4",
    // The catalog's anonymous rate limit (100 an hour) also counts requests to other capabilities' routes.
    PLATFORM_CATALOG__RATE_LIMIT_ANONYMOUS: "1000000",
  },
});
children.push(server);
// The server's log is read until it says where it listens, then drained so that its pipe never fills.
const serverLog = lines(server.stderr);
const base = await (async () => {
  // next(), not for-await: leaving a for-await loop would close the stream that must go on being drained.
  for (let next = await serverLog.next(); !next.done; next = await serverLog.next()) {
    const url = /"url":"(http[^"]+)"/.exec(next.value)?.[1];
    if (next.value.includes('"message":"listening"') && url) return url;
  }
  throw new Error("the server exited before listening");
})();
const serverErrors: string[] = [];
void (async () => {
  for await (const line of serverLog) if (line.includes('"level":"error"')) serverErrors.push(line);
})();

const post = async (path: string, body: unknown) => {
  const response = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", accept: "application/json" }, body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.json() as Promise<Record<string, any>>;
};

// --- the baselines: Playwright in this process, over CDP, with the same checks ---

const baselineBrowser = await chromium.launch({ executablePath: executable, args: ["--no-sandbox", "--disable-dev-shm-usage"] });

async function sequentialCrawl(start: string, maxPages: number): Promise<number> {
  const context = await baselineBrowser.newContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("requestfailed", (r) => problems.push(r.url()));
  page.on("response", (r) => r.status() >= 400 && problems.push(r.url()));
  const seen = new Set([start]);
  const queue = [start];
  let visited = 0;
  while (queue.length && visited < maxPages) {
    const url = queue.shift()!;
    await page.goto(url, { waitUntil: "load" });
    visited++;
    const facts = await page.evaluate(() => {
      const d = (globalThis as any).document;
      return {
        links: [...d.querySelectorAll("a[href]")].map((a: any) => a.href as string),
        unlabelled: [...d.querySelectorAll("form input, form select, form textarea")].filter((f: any) => !f.labels?.length && !f.getAttribute("aria-label")).length,
        nav: d.querySelectorAll("nav").length,
      };
    });
    for (const link of facts.links) {
      const clean = link.split("#")[0]!;
      if (clean.startsWith(origin) && !seen.has(clean) && seen.size < maxPages) {
        seen.add(clean);
        queue.push(clean);
      }
    }
  }
  await context.close();
  return visited;
}

async function axeDirect(urls: string[]): Promise<void> {
  const context = await baselineBrowser.newContext();
  const page: Page = await context.newPage();
  for (const url of urls) {
    await page.goto(url);
    await new AxeBuilder({ page }).withTags(["wcag2a", "wcag21a", "wcag2aa", "wcag21aa"]).analyze();
  }
  await context.close();
}

const timed = async (run: () => Promise<unknown>) => {
  const started = performance.now();
  await run();
  return performance.now() - started;
};

const rows: (string | number)[][] = [["measure", "platform browser", "baseline", "ratio", "goal", "met"]];
// Each row is printed as soon as it is measured too, so a long run shows its progress.
const push = rows.push.bind(rows);
rows.push = (...added) => {
  for (const row of added) console.error(row.join(" | "));
  return push(...added);
};
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

// --- 1. exploratory crawl ---
if (wanted("crawl")) {
  const start = `${origin}/site/0`;
  await post("/test/exploratory", { url: start, max_depth: 10, max_pages: 50 }); // warm up both
  await sequentialCrawl(start, 50);
  const ours: number[] = [];
  const theirs: number[] = [];
  // How many of the machine's cores each crawl kept busy (Chromium's processes included), and so the CPU time a
  // page costs: with every core busy at our cost per page, a crawl could go no faster than the ceiling.
  const oursBusy: number[] = [];
  const theirsBusy: number[] = [];
  const busyCores = async (run: () => Promise<unknown>) => {
    const [before, started] = [await machineBusySeconds(), performance.now()];
    await run();
    return (await machineBusySeconds() - before) / ((performance.now() - started) / 1000);
  };
  for (let round = 0; round < 3; round++) {
    oursBusy.push(
      await busyCores(async () => {
        const result = await post("/test/exploratory", { url: start, max_depth: 10, max_pages: 50 });
        ours.push((result.summary.pages_visited as number) / (result.duration / 1000));
      }),
    );
    theirsBusy.push(
      await busyCores(async () => {
        let pages = 0;
        const seconds = (await timed(async () => (pages = await sequentialCrawl(start, 50)))) / 1000;
        theirs.push(pages / seconds);
      }),
    );
  }
  const [o, t] = [median(ours), median(theirs)];
  rows.push(["crawl 50 pages (pages/s)", o.toFixed(1), `${t.toFixed(1)} (sequential Playwright)`, ratio(o, t), ">= 2x", o / t >= 2 ? "yes" : "no"]);
  const cores = navigator.hardwareConcurrency;
  const [oursCpu, theirsCpu] = [median(oursBusy) / o, median(theirsBusy) / t];
  rows.push([`crawl: cores busy (of ${cores}), CPU ms/page`, `${median(oursBusy).toFixed(2)}, ${(oursCpu * 1000).toFixed(0)}`, `${median(theirsBusy).toFixed(2)}, ${(theirsCpu * 1000).toFixed(0)}`, `ceiling ${ratio(cores / oursCpu, t)}`, "", ""]);
}

// --- 2. accessibility on 20 pages ---
if (wanted("axe")) {
  const urls = Array.from({ length: 20 }, (_, i) => `${origin}/site/${i}`);
  const ours = async () => {
    for (const url of urls) await post("/test/accessibility", { url, standard: "WCAG2.1-AA" });
  };
  await ours();
  await axeDirect(urls);
  const o: number[] = [];
  const t: number[] = [];
  for (let round = 0; round < 3; round++) {
    o.push(await timed(ours));
    t.push(await timed(() => axeDirect(urls)));
  }
  const [mo, mt] = [median(o), median(t)];
  rows.push(["axe on 20 pages (s)", (mo / 1000).toFixed(2), `${(mt / 1000).toFixed(2)} (@axe-core/playwright)`, ratio(mo, mt), "<= 1.15x", mo / mt <= 1.15 ? "yes" : "no"]);
}

// --- 3. navigate + snapshot + click over MCP (stdio), ours against @playwright/mcp ---
async function mcpClient(command: string, args: string[], env: Record<string, string> = {}) {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command, args, env: { ...(process.env as Record<string, string>), ...env }, stderr: "ignore" }));
  return client;
}
const refOf = (text: string) => /link "Page \d+" \[ref=(\w+)\]/.exec(text)?.[1];
const textOf = (result: Record<string, unknown>) => ((result.content as { type: string; text?: string }[]) ?? []).map((c) => c.text ?? "").join("\n");
async function sequence(client: Client, names: { navigate: string; snapshot: string; click: string; target: string }, url: string, samples: number[]) {
  let started = performance.now();
  await client.callTool({ name: names.navigate, arguments: { url } });
  samples.push(performance.now() - started);
  started = performance.now();
  const snapshot = textOf(await client.callTool({ name: names.snapshot, arguments: {} }));
  samples.push(performance.now() - started);
  const ref = refOf(snapshot);
  if (!ref) throw new Error(`no link ref in snapshot of ${url}: ${snapshot.slice(0, 300)}`);
  started = performance.now();
  const clicked = await client.callTool({ name: names.click, arguments: { [names.target]: ref, element: "link" } });
  if (clicked.isError) throw new Error(textOf(clicked));
  samples.push(performance.now() - started);
}
if (wanted("mcp")) {
  const ours = await mcpClient("bun", [join(root, "src/main.ts"), "mcp", "browser", "--data-dir", join(dir, "stdio"), "--log-level", "error"], { PLATFORM_BROWSER__WARM_SESSIONS: "0" });
  const theirs = await mcpClient("node", [join(root, "node_modules/@playwright/mcp/cli.js"), "--headless", "--isolated", "--no-sandbox", "--browser", "chromium", "--executable-path", executable, "--output-dir", join(dir, "playwright-mcp")]);
  const ourNames = { navigate: "navigate_to_url", snapshot: "snapshot_page", click: "click", target: "ref" };
  const theirNames = { navigate: "browser_navigate", snapshot: "browser_snapshot", click: "browser_click", target: "target" };
  await sequence(ours, ourNames, `${origin}/site/0`, []);
  await sequence(theirs, theirNames, `${origin}/site/0`, []);
  const o: number[] = [];
  const t: number[] = [];
  for (let i = 0; i < 30; i++) {
    await sequence(ours, ourNames, `${origin}/site/${i % 50}`, o);
    await sequence(theirs, theirNames, `${origin}/site/${i % 50}`, t);
  }
  await Promise.all([ours.close(), theirs.close()]);
  const [p50o, p50t, p99o, p99t] = [percentile(o, 50), percentile(t, 50), percentile(o, 99), percentile(t, 99)];
  rows.push(["MCP navigate/snapshot/click p50 (ms)", p50o.toFixed(1), `${p50t.toFixed(1)} (@playwright/mcp)`, ratio(p50o, p50t), "lower", p50o < p50t ? "yes" : "no"]);
  rows.push(["MCP navigate/snapshot/click p99 (ms)", p99o.toFixed(1), `${p99t.toFixed(1)} (@playwright/mcp)`, ratio(p99o, p99t), "lower", p99o < p99t ? "yes" : "no"]);
}

// --- 4. warm pool and memory per session ---
const health = async () => ((await fetch(`${base}/health`).then((r) => r.json())) as any).subsystems.browser.sessions as Record<string, number>;
async function untilWarm(): Promise<void> {
  for (;;) {
    const sessions = await health();
    if ((sessions.warm ?? 0) >= 1 && (sessions.ready ?? 0) >= 1) return;
    await Bun.sleep(50);
  }
}
/** Memory of a process and all its descendants, shared pages counted once (PSS), in MiB. */
async function treeMiB(pid: number): Promise<number> {
  const table = (await new Response(Bun.spawn(["ps", "-eo", "pid=,ppid="]).stdout).text())
    .trim()
    .split("\n")
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const inTree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, parent] of table) if (inTree.has(parent) && !inTree.has(p)) (inTree.add(p), (grew = true));
  }
  let kb = 0;
  for (const p of inTree) {
    const rollup = await Bun.file(`/proc/${p}/smaps_rollup`).text().catch(() => "");
    kb += Number(/^Pss:\s+(\d+)/m.exec(rollup)?.[1] ?? 0);
  }
  return kb / 1024;
}
const mcpHttp = async () => {
  const client = new Client({ name: "bench", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp/browser`)));
  return client;
};
if (wanted("pool")) {
  const ready: number[] = [];
  const clients: Client[] = [];
  for (let i = 0; i < 5; i++) {
    await untilWarm();
    const client = await mcpHttp();
    clients.push(client);
    ready.push(await timed(() => client.callTool({ name: "test_browser_connectivity", arguments: {} })));
  }
  await untilWarm();
  const before = await treeMiB(server.pid);
  const extra: Client[] = [];
  for (let i = 0; i < 3; i++) {
    const client = await mcpHttp();
    extra.push(client);
    await client.callTool({ name: "navigate_to_url", arguments: { url: `${origin}/site/${i}` } });
  }
  await untilWarm();
  const after = await treeMiB(server.pid);
  for (const client of [...clients, ...extra]) await client.callTool({ name: "close_session", arguments: {} }).then(() => client.close());
  const readyMs = median(ready);
  rows.push(["session from the warm pool, ready (ms, p50)", readyMs.toFixed(1), "", "", "< 100", readyMs < 100 ? "yes" : "no"]);
  rows.push(["memory per extra session (MiB, PSS)", ((after - before) / 3).toFixed(0), "(own Chromium + driver thread)", "", "", ""]);
}

// --- 5. soak ---
if (wanted("soak")) {
  let longest = 0;
  let stalls = 0;
  const stalled: string[] = [];
  const note = (ms: number, what = "") => {
    longest = Math.max(longest, ms);
    if (ms > stallMs) {
      stalls++;
      stalled.push(`${what} ${(ms / 1000).toFixed(1)} s`);
    }
  };
  const navigations = async (client: Client, count: number) => {
    for (let i = 0; i < count; i++) note(await timed(() => client.callTool({ name: "navigate_to_url", arguments: { url: `${origin}/site/${i % 50}` } })), `navigation ${i}`);
  };
  const sseRuns = async (session: string, count: number) => {
    for (let i = 0; i < count; i++) {
      const response = await fetch(`${base}/test/security`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ url: `${origin}/secure-bad`, session }) });
      let last = performance.now();
      if (!response.ok) throw new Error(`an SSE run was refused: ${response.status} ${await response.text()}\n${serverErrors.join("\n")}`);
      let ended = "";
      const parser = createParser({
        onEvent: (event) => {
          note(performance.now() - last, `${session} run ${i} ${event.event}`);
          last = performance.now();
          if (event.event === "result" || event.event === "error") ended = event.event === "error" ? event.data : "result";
        },
      });
      for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) parser.feed(chunk);
      if (ended !== "result") throw new Error(`an SSE run ended without its result: ${ended}\n${serverErrors.join("\n")}`);
    }
  };
  const clients = await Promise.all(Array.from({ length: 4 }, mcpHttp));
  // Each session is opened first: starting eight browsers at once on two cores is the warm pool's subject, not the soak's.
  for (const client of clients) await client.callTool({ name: "navigate_to_url", arguments: { url: `${origin}/site/0` } });
  for (let i = 0; i < 4; i++) await post("/test/security", { url: `${origin}/secure-good`, session: `soak-${i}` });
  const started = performance.now();
  await Promise.all([...clients.map((c) => navigations(c, 125)), ...Array.from({ length: 4 }, (_, i) => sseRuns(`soak-${i}`, 50))]);
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => c.close()));
  if (stalled.length) console.error(`stood still: ${stalled.join(", ")}`);
  rows.push(["soak: 500 navigations + 200 SSE runs", `${stalls} stalls > 5 s`, `longest wait ${(longest / 1000).toFixed(2)} s, ${seconds.toFixed(0)} s in all`, "", "0 stalls", stalls === 0 ? "yes" : "no"]);
}

printTable(rows);
await baselineBrowser.close();
server.kill("SIGTERM");
await server.exited;
site.kill();
process.exit(0);
