/** Where something sits in a policy source: reported as `file:line:col`. */
export interface Location {
  file: string;
  row: number;
  col: number;
}

/** The error codes OPA uses, so callers can branch on the same strings an OPA server returns. */
export type RegoErrorCode =
  | "rego_parse_error"
  | "rego_compile_error"
  | "rego_unsafe_var_error"
  | "rego_recursion_error"
  | "eval_conflict_error"
  | "eval_type_error"
  | "eval_builtin_error"
  | "eval_cancel_error"
  | "invalid_input";


/**
 * An error with OPA's code. `message` reads as OPA's own error text (`file:row: code: detail`), so a test
 * or a log line matches OPA's; `detail` is the bare message, as OPA's REST API puts it beside `location`.
 */
export class RegoError extends Error {
  constructor(
    readonly code: RegoErrorCode,
    readonly detail: string,
    readonly location?: Location,
  ) {
    super(location ? `${location.file}:${location.row}: ${code}: ${detail}` : `${code}: ${detail}`);
    this.name = "RegoError";
  }
}

/** Errors evaluation raises, made here so that closures and generated code report the same text. */
export const recursionError = (rule: string) => new RegoError("rego_recursion_error", `rule ${rule} is recursive`);
export const keyConflictError = (loc?: Location) => new RegoError("eval_conflict_error", "object keys must be unique", loc);

/** Thrown by a built-in; the evaluator turns it into `eval_builtin_error` or `eval_type_error` (or undefined). */
export class BuiltinError extends Error {
  constructor(
    message: string,
    readonly kind: "builtin" | "type" = "builtin",
  ) {
    super(message);
  }
}
