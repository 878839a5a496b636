/**
 * Calling a tool: schema defaults, validation naming the first bad field, the handler, and a thrown error
 * turned into an `isError` result. The MCP server and the A2A task path both call tools through here, so a
 * tool behaves the same whichever way it is reached.
 */
import { Value } from "@sinclair/typebox/value";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { TObject } from "@sinclair/typebox";
import type { Logger } from "../log.ts";
import type { Tool, ToolContext } from "./define.ts";

/**
 * Arguments a tool's (or prompt's) schema refuses. The MCP server answers it as an invalid-params error; the
 * A2A path fails the task with its message. Kept free of the MCP SDK so that calling a tool does not load it.
 */
export class InvalidArguments extends Error {
  override name = "InvalidArguments";
}

/** Throws InvalidArguments for arguments the tool's schema refuses; a failing handler is a result. */
export async function callTool(tool: Tool, args: unknown, context: ToolContext, log: Logger): Promise<CallToolResult> {
  const valid = checked(tool.input, args, `tool ${tool.name}`);
  const started = performance.now();
  try {
    const result = await tool.handler(valid, context);
    log.info("tool call", { tool: tool.name, duration: ms(started), success: !result.isError });
    return result;
  } catch (error) {
    log.warn("tool call failed", { tool: tool.name, duration: ms(started), success: false, error });
    const message = error instanceof Error ? error.message : String(error);
    return { isError: true, content: [{ type: "text", text: message }] };
  }
}

/** Applies schema defaults, then validates; the error names the first offending field. */
export function checked<S extends TObject>(schema: S, value: unknown, what: string) {
  const withDefaults = Value.Default(schema, Value.Clone(value));
  const error = Value.Errors(schema, withDefaults).First();
  if (error) {
    const field = error.path.split("/").filter(Boolean).join(".") || "(arguments)";
    throw new InvalidArguments(`Invalid arguments for ${what}: ${field}: ${error.message}`);
  }
  return withDefaults as never;
}

const ms = (since: number) => Math.round(performance.now() - since);
