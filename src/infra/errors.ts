/**
 * The infra server's errors. Each has a stable code; its message names what was wrong (the path, the action, the
 * file and line, the missing tool) and, where there is one, what to do instead. Nothing is changed by a call that
 * fails with one of these. MCP tools answer `[CODE] message`.
 */
export type InfraErrorCode =
  | "INVALID_PATH"
  | "NOT_FOUND"
  | "ALREADY_EXISTS"
  | "INVALID_ARGUMENT"
  | "UNKNOWN_ACTION"
  | "BUSY"
  | "NOT_INITIALISED"
  | "TOOL_MISSING"
  | "RUN_FAILED"
  | "TIMEOUT"
  | "CANCELLED"
  | "SYNTAX_ERROR"
  | "PLAN_REJECTED"
  | "LSP_FAILED"
  | "VCS_FAILED";

export class InfraError extends Error {
  override name = "InfraError";

  constructor(
    readonly code: InfraErrorCode,
    message: string,
    /** Structured detail a client may read: exit code, stderr tail, log path, file and line. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }

  static missingTool(tool: string, install: string): InfraError {
    return new InfraError("TOOL_MISSING", `${tool} is not installed: ${install}`, { tool });
  }
}

/** The text an MCP tool answers with when an infra call fails. */
export const toolErrorText = (error: InfraError) => {
  const details = Object.keys(error.details).length ? `\n${JSON.stringify(error.details, null, 2)}` : "";
  return `[${error.code}] ${error.message}${details}`;
};
