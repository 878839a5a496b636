/** The start-up settings `serve` and `mcp` share: flags, environment and platform.yaml into one Config. */
import { existsSync, readFileSync } from "node:fs";
import { loadConfig, type Config } from "../config.ts";
import { prepareDataDir } from "../data-dir.ts";
import { createLogger, formatFor, type Logger } from "../log.ts";
import type { Options, Values } from "./verb.ts";

export const settingOptions = {
  "data-dir": { type: "string" },
  config: { type: "string" },
  env: { type: "string" },
  "log-level": { type: "string" },
  "log-format": { type: "string" },
} as const satisfies Options;

export const settingHelp = {
  "data-dir": "--data-dir <dir>     where the database and keys live (PLATFORM_DATA_DIR, default ./data)",
  config: "--config <file>      platform.yaml to read (PLATFORM_CONFIG; ./platform.yaml when present)",
  env: "--env <name>         production (default) or development (PLATFORM_ENV)",
  "log-level": "--log-level <level>  error, warn, info (default) or debug (LOG_LEVEL)",
  "log-format": "--log-format <f>     pretty (the default at a terminal) or json (elsewhere) (LOG_FORMAT)",
};

const flagKeys: Record<string, string> = {
  port: "server.port",
  host: "server.host",
  "data-dir": "data_dir",
  env: "environment",
  "log-level": "log.level",
  "log-format": "log.format",
};

export function settingsFrom(values: Values, env = process.env): { config: Config; log: Logger } {
  const file = (values.config as string | undefined) ?? env.PLATFORM_CONFIG ?? (existsSync("platform.yaml") ? "platform.yaml" : undefined);
  let yaml: { text: string; file: string } | undefined;
  if (file) {
    try {
      yaml = { text: readFileSync(file, "utf8"), file };
    } catch (error) {
      throw new Error(`Cannot read configuration file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  }
  const flags = Object.entries(flagKeys).map(([flag, key]) => ({ key, flag: `--${flag}`, value: values[flag] as string | undefined }));
  const config = loadConfig({ yaml, env, flags });
  // Every verb with settings works in the data dir: one that cannot be used is said at once, with its path.
  prepareDataDir(config.data_dir, { production: config.environment === "production" });
  return { config, log: createLogger({ level: config.log.level, format: formatFor(config.log.format) }) };
}
