/** A CLI verb: its options (node:util parseArgs) and what it does. Exit codes: 0 ok, 1 failure, 2 usage. */
import type { ParseArgsConfig } from "node:util";

export type Options = NonNullable<ParseArgsConfig["options"]>;
export type Values = Record<string, string | boolean | undefined>;

export interface Verb {
  name: string;
  summary: string;
  /** Positional arguments as they appear in usage, e.g. `<server>`. */
  args?: string;
  options: Options;
  /** One line per option, in the order of `options`. */
  help: Record<string, string>;
  run(values: Values, positionals: string[]): Promise<number>;
}

export class UsageError extends Error {
  override name = "UsageError";
}

export const helpOption = { help: { type: "boolean", short: "h" } } as const satisfies Options;
