/**
 * Debian's Chromium for browser tests (installed by the project's tool script), driven by playwright-core over a
 * DevTools WebSocket while the process that serves the page under test is the one that drives the browser.
 *
 * Why not `chromium.launch`: over its pipe, in one Bun process with the page's server, a navigation now and
 * then stood still until a 30 s timeout woke the process (about one run in six of the setup-page test). Over
 * the WebSocket that was rarer, and with a timer firing every 20 ms in the process it did not happen in 60
 * runs; the timer also took a quarter off the run time, so the process was oversleeping its I/O.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type Browser } from "playwright-core";
import { requireTool } from "./tools.ts";

export interface RunningChromium {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchChromium(): Promise<RunningChromium> {
  const chromiumPath = requireTool("chromium");
  const profile = mkdtempSync(join(tmpdir(), "platform-chromium-"));
  const proc = Bun.spawn(
    [
      chromiumPath,
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--remote-debugging-address=127.0.0.1",
      "--remote-debugging-port=0",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    { stdout: "ignore", stderr: "pipe" },
  );
  const awake = setInterval(() => {}, 20);
  let browser: Browser | undefined;
  const close = async () => {
    clearInterval(awake);
    // Asked to quit, Chromium takes its helper processes down with it; a kill is the fallback.
    const quit = browser && (await browser.newBrowserCDPSession().then((cdp) => cdp.send("Browser.close")).then(() => true, () => false));
    if (!quit) proc.kill();
    await proc.exited;
    rmSync(profile, { recursive: true, force: true });
  };
  try {
    browser = await chromium.connectOverCDP(await devToolsEndpoint(proc.stderr));
    return { browser, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The `DevTools listening on ws://...` line Chromium prints once it accepts connections; the rest is drained. */
async function devToolsEndpoint(stderr: ReadableStream<Uint8Array<ArrayBuffer>>): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`chromium exited before listening: ${text.slice(-500)}`);
    text += value;
    const found = /DevTools listening on (ws:\/\/\S+)/.exec(text);
    if (found) {
      void (async () => {
        while (!(await reader.read()).done);
      })();
      return found[1]!;
    }
  }
}
