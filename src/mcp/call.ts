/**
 * Calling a tool: schema defaults, validation naming the first bad field, the handler, the result checked
 * against the tool's output schema, and every failure turned into an `isError` result. The MCP server and the
 * A2A task path both call tools through here, so a tool behaves the same whichever way it is reached.
 */
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { Value } from "@sinclair/typebox/value";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TObject } from "@sinclair/typebox";
import { asStoreUnavailable } from "../db/client.ts";
import type { Logger } from "../log.ts";
import type { Tool, ToolContext } from "./define.ts";

/**
 * Arguments a tool's (or prompt's) schema refuses, with the field and what is wrong with it. A tool answers it
 * as a result with `isError` (MCP 2025-11-25: the model can correct itself); a prompt as invalid params.
 * Kept free of the MCP SDK so that calling a tool does not load it.
 */
export class InvalidArguments extends Error {
  override name = "InvalidArguments";
  constructor(
    readonly what: string,
    /** Dotted path of the first offending field; `(arguments)` for the whole object. */
    readonly field: string,
    readonly reason: string,
  ) {
    super(`Invalid arguments for ${what}: ${field}: ${reason}`);
  }
}

/** Renders a failed call (InvalidArguments, or whatever the handler threw) as the result the client reads. */
export type ToolFailure = (error: unknown, tool: Tool) => CallToolResult;

export const plainFailure: ToolFailure = (error) => ({
  isError: true,
  content: [{ type: "text", text: error instanceof Error ? error.message : String(error) }],
});

/** Never throws: invalid arguments, a failing handler and a result outside the output schema are all results. */
export async function callTool(
  tool: Tool,
  args: unknown,
  context: ToolContext,
  log: Logger,
  failure: ToolFailure = plainFailure,
): Promise<CallToolResult> {
  const started = performance.now();
  let result: CallToolResult;
  try {
    result = await tool.handler(checked(tool.input, args, `tool ${tool.name}`), context);
  } catch (error) {
    const invalid = error instanceof InvalidArguments;
    log[invalid ? "info" : "warn"]("tool call failed", { tool: tool.name, duration: ms(started), success: false, error });
    // A store out of reach is said as such (never as the failed query), whichever server's wording renders it.
    return failure(asStoreUnavailable(error), tool);
  }
  const outside = result.isError ? undefined : outputError(tool.output, result.structuredContent);
  if (outside) {
    // The tool broke its own contract: a fault of ours, logged in full, answered without internals.
    log.error("tool result outside its output schema", { tool: tool.name, problem: outside });
    return failure(new Error(`tool ${tool.name} produced a malformed result; the fault is logged`), tool);
  }
  log.info("tool call", { tool: tool.name, duration: ms(started), success: !result.isError });
  return result;
}

/** Applies schema defaults, then validates; the error names the first offending field. */
export function checked<S extends TObject>(schema: S, value: unknown, what: string) {
  const withDefaults = Value.Default(schema, Value.Clone(value));
  const error = Value.Errors(schema, withDefaults).First();
  if (error) throw new InvalidArguments(what, dotted(error.path), error.message);
  return withDefaults as never;
}

/** Output schemas compiled once: a result (50 messages, say) is checked on every call, and interpreting is slow. */
const outputChecks = new WeakMap<TObject, TypeCheck<TObject>>();

/**
 * What breaks the tool's output contract: a declared schema its structured content does not fit, or structured
 * content from a tool that declares none (every tool that answers structured content lists its outputSchema).
 */
function outputError(schema: TObject | undefined, value: unknown): string | undefined {
  if (!schema) return value === undefined ? undefined : "structuredContent without a declared output schema";
  if (value === undefined) return "no structuredContent";
  let check = outputChecks.get(schema);
  if (!check) outputChecks.set(schema, (check = TypeCompiler.Compile(schema)));
  if (check.Check(value)) return undefined;
  const error = check.Errors(value).First();
  return error && `${dotted(error.path)}: ${error.message}`;
}

const dotted = (path: string) => path.split("/").filter(Boolean).join(".") || "(arguments)";
const ms = (since: number) => Math.round(performance.now() - since);
