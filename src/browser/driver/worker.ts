/**
 * The driver: a worker thread that runs Playwright for one session. It connects to its Chromium over the
 * DevTools WebSocket, then runs the operations its host asks for, one message per call, progress and result
 * going back as messages.
 *
 * Why a thread of its own: Playwright under Bun, sharing an event loop with a busy server, was seen to stand
 * still until a timeout woke the process. Here the server's loop never waits on Playwright, and a driver that
 * stalls holds up only its own session: its host stops waiting at the deadline and ends the thread. The short
 * repeating timer below keeps this loop from oversleeping its sockets, which is what the stall looked like.
 */
import { chromium } from "playwright-core";
import { failureOf } from "./failures.ts";
import { operations, type OperationName } from "./operations.ts";
import type { DriverMessage, HostMessage } from "./protocol.ts";
import { DriverSession } from "./session.ts";

declare const self: Worker;

const send = (message: DriverMessage) => self.postMessage(message);
const running = new Map<number, AbortController>();
let session: DriverSession | undefined;
let awake: ReturnType<typeof setInterval> | undefined;

self.onmessage = ({ data }: MessageEvent<HostMessage>) => {
  switch (data.type) {
    case "connect":
      void connect(data);
      break;
    case "call":
      void call(data.id, data.operation as OperationName, data.args);
      break;
    case "cancel":
      running.get(data.id)?.abort();
      break;
    case "close":
      void close();
      break;
  }
};

async function connect({ endpoint, settings, storageState }: Extract<HostMessage, { type: "connect" }>) {
  awake = setInterval(() => {}, 20);
  try {
    const browser = await chromium.connectOverCDP(endpoint, { timeout: settings.navigationTimeoutMs });
    browser.on("disconnected", () => {
      if (session) send({ type: "fatal", error: { type: "BrowserError", message: "The browser went away" } });
    });
    const opened = new DriverSession(browser, settings);
    await opened.openContext(storageState);
    session = opened;
    const userAgent = await opened.page.evaluate(() => navigator.userAgent);
    send({ type: "connected", browserVersion: browser.version(), userAgent });
  } catch (error) {
    send({ type: "fatal", error: failureOf(error) });
  }
}

async function call(id: number, name: OperationName, args: unknown) {
  const controller = new AbortController();
  running.set(id, controller);
  try {
    if (!session) throw new Error("the driver is not connected");
    const operation = operations[name] as (session: DriverSession, args: unknown, run: unknown) => Promise<unknown>;
    if (!operation) throw new Error(`no operation ${name}`);
    const value = await operation(session, args, {
      signal: controller.signal,
      progress: (update: object) => send({ type: "progress", id, update: { ...update, timestamp: new Date().toISOString() } as never }),
    });
    send({ type: "result", id, value });
  } catch (error) {
    send({ type: "failure", id, error: failureOf(error, controller.signal) });
  } finally {
    running.delete(id);
  }
}

async function close() {
  const closing = session;
  session = undefined;
  clearInterval(awake);
  await closing?.context?.close().catch(() => {});
  send({ type: "closed" });
}
