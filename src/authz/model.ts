/**
 * The contract between authorization and the surfaces it guards (A2A server and client, MCP, vault): a
 * decision, the enforcer that makes it, and the workload identity a client presents. The enforcer runs
 * automatically inside those surfaces; application code never calls it.
 */

/** One authorization decision; frozen so nothing downstream can flip it. */
export interface AuthzDecision {
  readonly allowed: boolean;
  readonly reason: string;
  /** Joins the decision to its audit record. */
  readonly auditId: string;
}

/** Request facts handed to policy: `data_classification`, `delegated_by`, request metadata, ... */
export type AuthzContext = Readonly<Record<string, unknown>>;

export interface AuthzEnforcer {
  /**
   * Before a capability handler runs on this server. `callerId` is undefined when no identity was verified;
   * `guard` carries the handler's `capability`/`requiresPeer` markers, checked as well as the action.
   */
  checkInbound(callerId: string | undefined, action: string, context?: AuthzContext, guard?: HandlerGuard): Promise<AuthzDecision>;
  /** Before this process calls another agent. */
  checkOutbound(callerId: string, calleeId: string, action: string, context?: AuthzContext): Promise<AuthzDecision>;
}

/** TLS material for presenting this workload's SVID; `fetch(url, { tls })` accepts it as is. */
export interface ClientTls {
  cert: string;
  key: string;
  ca: string;
  /** Rejects a server whose certificate does not carry the expected SPIFFE id. */
  checkServerIdentity?(hostname: string, certificate: unknown): Error | undefined;
}

/** This workload's identity as a client. */
export interface IdentityProvider {
  /** This workload's SPIFFE id, e.g. `spiffe://platform.local/agent/planner`. */
  readonly spiffeId: string;
  /** TLS options for calling a server; with `expectedPeer`, the server's SVID must carry that id. */
  clientTls(expectedPeer?: string): ClientTls;
}

/** What a task handler declares at registration; enforced in addition to policy. */
export interface HandlerGuard {
  /** The capability the handler provides; the caller's policy must permit it as an action. */
  capability?: string;
  /** An exact SPIFFE id, or `spiffe://td/prefix/*` for every id under that prefix. */
  requiresPeer?: string;
}

/** Marks a handler with the capability it provides: `registerTaskHandler({ ...capability("catalog:read") }, ...)`. */
export const capability = (name: string): { capability: string } => ({ capability: name });

/** Marks a handler as callable only by matching peers: `requiresPeer("spiffe://platform.local/agent/*")`. */
export const requiresPeer = (pattern: string): { requiresPeer: string } => ({ requiresPeer: pattern });

/** The document a policy engine is asked about (OPA input), snake_case as policies read it. */
export interface PolicyInput {
  caller_spiffe_id: string | null;
  callee_spiffe_id: string | null;
  action: string;
  context: AuthzContext;
}
