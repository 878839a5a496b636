/** The runtime with chosen capabilities, in process, listening on a free loopback port, in its own data dir. */
import type { CapabilityFactory } from "../../src/capability.ts";
import { loadConfig } from "../../src/config.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import { startRuntime, type RunningRuntime } from "../../src/runtime.ts";
import { buildApp } from "../../src/server.ts";
import { tempDir } from "./temp.ts";

export interface RunningApp {
  runtime: RunningRuntime;
  base: string;
  dataDir: string;
  /** Stops listening, closes MCP sessions and the runtime, and removes the data dir. */
  close(): Promise<void>;
}

export async function startApp(
  capabilities: CapabilityFactory[],
  {
    env = {},
    log = createLogger({ level: "error", write: () => {} }),
    dataDir,
  }: {
    env?: Record<string, string>;
    log?: Logger;
    /** An existing data dir (kept at close, e.g. to restart on it); by default a temp one, removed at close. */
    dataDir?: string;
  } = {},
): Promise<RunningApp> {
  const dir = dataDir ? undefined : tempDir();
  const path = dataDir ?? dir!.path;
  const runtime = await startRuntime(loadConfig({ env: { PLATFORM_DATA_DIR: path, ...env } }), log, capabilities);
  const { app, closeMcp } = buildApp(runtime);
  app.listen({ hostname: "127.0.0.1", port: 0 });
  return {
    runtime,
    base: `http://127.0.0.1:${app.server!.port}`,
    dataDir: path,
    async close() {
      await app.stop(true);
      await closeMcp();
      await runtime.close();
      dir?.remove();
    },
  };
}
