/** Authorization errors: start-up refusals carry a message a person can act on. */

/** A configuration that cannot be run safely (bad destination, allow-all outside development, ...). */
export class AuthzConfigError extends Error {
  override name = "AuthzConfigError";
}

/** The policy cannot produce a decision: its package is not loaded, or a module does not compile. */
export class PolicyEvaluationError extends Error {
  override name = "PolicyEvaluationError";
}
