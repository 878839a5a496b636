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
  /** Before a capability handler runs on this server. `callerId` is undefined when no identity was verified. */
  checkInbound(callerId: string | undefined, action: string, context?: AuthzContext): Promise<AuthzDecision>;
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
