/**
 * Every operation a session host can ask of its driver, by name. The host's `call` is typed from this map, so
 * an operation's arguments and result are checked at both ends of the message channel.
 */
import type { StorageState } from "./protocol.ts";
import * as interact from "./interact.ts";
import { login } from "./login.ts";
import { accessibility } from "../runners/accessibility.ts";
import { exploratory } from "../runners/exploratory.ts";
import { responsive } from "../runners/responsive.ts";
import { security } from "../runners/security.ts";
import { playbook } from "../runners/playbook.ts";
import type { DriverSession, RunContext } from "./session.ts";

type Operation = (session: DriverSession, args: never, run: RunContext) => Promise<unknown>;

export const operations = {
  open_context: async (session: DriverSession, { storageState }: { storageState?: StorageState }) => {
    await session.openContext(storageState);
    return { tabs: session.tabs.length };
  },
  connectivity: async (session: DriverSession) => {
    const started = performance.now();
    const user_agent = await session.page.evaluate(() => navigator.userAgent);
    return { user_agent, round_trip_ms: Math.round((performance.now() - started) * 10) / 10 };
  },
  navigate: interact.navigate,
  screenshot: interact.screenshot,
  compact_screenshot: interact.compactScreenshot,
  snapshot: interact.snapshot,
  click: interact.click,
  type: interact.type,
  press_key: interact.pressKey,
  select_option: interact.selectOption,
  hover: interact.hover,
  wait_for: interact.waitFor,
  tabs: interact.tabs,
  back: interact.goBack,
  forward: interact.goForward,
  console: interact.consoleMessages,
  network: interact.networkRequests,
  trace_start: interact.traceStart,
  trace_stop: interact.traceStop,
  storage_state: interact.storageState,
  login,
  exploratory,
  accessibility,
  responsive,
  security,
  playbook,
} satisfies Record<string, Operation>;

export type Operations = typeof operations;
export type OperationName = keyof Operations;
export type ArgsOf<K extends OperationName> = Parameters<Operations[K]>[1];
export type ResultOf<K extends OperationName> = Awaited<ReturnType<Operations[K]>>;
