/**
 * Debian's Chromium, found and launched. Each session gets its own browser process in its own process group
 * (so its helpers end with it) and its own throwaway profile; the driver reaches it over the DevTools WebSocket
 * it announces on stderr. Nothing here downloads a browser, and with these switches Chromium makes no outside
 * connection of its own.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { findTool } from "../toolchain.ts";
import { BrowserServiceError, installHint } from "./errors.ts";

export type ChromiumAvailability = { available: true; executable: string } | { available: false; reason: string };

export function findChromium(configured: string): ChromiumAvailability {
  const executable = findTool("chromium", configured);
  if (executable) return { available: true, executable };
  const reason = configured ? `browser.executable ${configured} does not exist` : "no chromium on PATH";
  return { available: false, reason };
}

/** The error every operation answers while Chromium is missing. */
export const unavailable = (reason: string) =>
  BrowserServiceError.browser(`Chromium is not available: ${reason}`, { reason, install: installHint });

export const chromiumSwitches = [
  "--headless",
  // Root cannot use Chromium's sandbox; the pages it opens are the ones a tester points it at.
  "--no-sandbox",
  "--disable-gpu",
  "--disable-dev-shm-usage",
  // No outside connections of its own: there may be no network, and a test must not depend on one.
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--disable-default-apps",
  "--disable-extensions",
  "--disable-field-trial-config",
  "--disable-breakpad",
  "--metrics-recording-only",
  "--no-first-run",
  "--no-default-browser-check",
  "--password-store=basic",
  "--use-mock-keychain",
  // Back and forward load pages afresh: a page restored from the back-forward cache fires no load event.
  "--disable-back-forward-cache",
  // Pages in background tabs run at full speed, so parallel test pages are not throttled.
  "--disable-background-timer-throttling",
  "--disable-backgrounding-occluded-windows",
  "--disable-renderer-backgrounding",
  "--disable-ipc-flooding-protection",
  "--disable-hang-monitor",
  "--disable-popup-blocking",
  "--disable-prompt-on-repost",
  "--allow-pre-commit-input",
  "--force-color-profile=srgb",
  // http stays http (no HTTPS-first upgrade), and nothing paints late or calls home.
  "--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,PaintHolding,MediaRouter,OptimizationHints,Translate,NetworkTimeServiceQuerying,AvoidUnnecessaryBeforeUnloadCheckSync",
  "--mute-audio",
  "--hide-scrollbars",
  "--remote-debugging-address=127.0.0.1",
  "--remote-debugging-port=0",
];

export interface RunningChromium {
  pid: number;
  /** The DevTools WebSocket URL. */
  endpoint: string;
  /** Resolves with a description when the browser process ends, for whatever reason. */
  exited: Promise<string>;
  /** Ends the browser and its helpers at once, and removes its profile. */
  kill(): Promise<void>;
}

export async function launchChromium(executable: string, timeoutMs: number): Promise<RunningChromium> {
  const profile = mkdtempSync(join(tmpdir(), "platform-browser-"));
  // The DevTools pipe (fds 3 and 4) is never used: Chromium quits when it reads end-of-file there, which is when
  // this process ends, however it ends, so a browser never outlives the server that launched it.
  const proc = Bun.spawn([executable, ...chromiumSwitches, "--remote-debugging-pipe", `--user-data-dir=${profile}`, "about:blank"], {
    stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    detached: true,
  });
  const exited = proc.exited.then((code) => `the browser process exited (${proc.signalCode ?? `code ${code}`})`);
  const kill = async () => {
    try {
      process.kill(-proc.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
    await proc.exited;
    rmSync(profile, { recursive: true, force: true });
  };
  const timer = setTimeout(() => void kill(), timeoutMs);
  try {
    const endpoint = await devToolsEndpoint(proc.stderr as ReadableStream<Uint8Array<ArrayBuffer>>);
    return { pid: proc.pid, endpoint, exited, kill };
  } catch (error) {
    await kill();
    if (error instanceof BrowserServiceError) throw error;
    throw BrowserServiceError.browser(`Chromium did not start within ${timeoutMs} ms`, { executable, timeoutMs });
  } finally {
    clearTimeout(timer);
  }
}

/** Reads stderr until Chromium says where DevTools listens; the rest is drained so the pipe never fills. */
async function devToolsEndpoint(stderr: ReadableStream<Uint8Array<ArrayBuffer>>): Promise<string> {
  const reader = stderr.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw BrowserServiceError.browser("Chromium exited before it was ready", { output: text.slice(-1000) });
    text += value;
    const found = /DevTools listening on (ws:\/\/\S+)/.exec(text);
    if (found) {
      void (async () => {
        while (!(await reader.read()).done);
      })().catch(() => {});
      return found[1]!;
    }
  }
}
