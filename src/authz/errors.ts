/** Authorization errors: start-up refusals carry a message a person can act on. */

/** A configuration that cannot be run safely (bad destination, allow-all outside development, ...). */
export class AuthzConfigError extends Error {
  override name = "AuthzConfigError";
}

/** The policy cannot produce a decision: its package is not loaded, or a module does not compile. */
export class PolicyEvaluationError extends Error {
  override name = "PolicyEvaluationError";
}

/**
 * An answer of the OPA-compatible REST API that is not a result: its HTTP status and OPA's error code
 * (`invalid_parameter`, `resource_not_found`, `undefined_document`, `internal_error`, ...), with the
 * compile or parse errors behind it when there are some.
 */
export class OpaError extends Error {
  override name = "OpaError";
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly errors?: unknown[],
  ) {
    super(message);
  }
}
