/**
 * The messages between a session host (main thread, host.ts) and its driver (a worker thread running
 * Playwright, worker.ts). Every value is structured-cloned, so everything here is plain data.
 */
import type { ErrorBody } from "../errors.ts";
import type { ProgressUpdate } from "../model.ts";
import type { HostRules } from "../url-policy.ts";

export interface DriverSettings {
  actionTimeoutMs: number;
  navigationTimeoutMs: number;
  hostRules: HostRules;
  crawlConcurrency: number;
  slowPageMs: number;
}

/** Cookies and local storage as Playwright's `storageState()` gives them. */
export type StorageState = { cookies: unknown[]; origins: unknown[] };

export type HostMessage =
  | { type: "connect"; endpoint: string; settings: DriverSettings; storageState?: StorageState }
  | { type: "call"; id: number; operation: string; args: unknown }
  | { type: "cancel"; id: number }
  | { type: "close" };

export type DriverMessage =
  | { type: "connected"; browserVersion: string; userAgent: string }
  | { type: "result"; id: number; value: unknown }
  | { type: "failure"; id: number; error: ErrorBody }
  | { type: "progress"; id: number; update: ProgressUpdate }
  /** The driver cannot go on (its browser went away, connecting failed); the host ends the session. */
  | { type: "fatal"; error: ErrorBody }
  | { type: "closed" };
