/** An enforcer over the real platform policies, with an audit trail that can be read back in tests. */
import { createLogger } from "../../src/log.ts";
import type { AuditRecord, AuditTransport } from "../../src/authz/audit/log.ts";
import { AuditLog } from "../../src/authz/audit/log.ts";
import { loadPolicies } from "../../src/authz/policies.ts";
import { embeddedProvider, type DecisionProvider } from "../../src/authz/provider.ts";
import { AuthzService } from "../../src/authz/service.ts";
import { RegoEngine } from "../../src/rego/engine.ts";

export const td = "spiffe://platform.local";
export const self = `${td}/platform`;
export const planner = `${td}/agent/planner`;
export const reporter = `${td}/agent/reporter`;
export const orderBot = `${td}/agent/order-bot`;
export const quiet = createLogger({ level: "error", write: () => undefined });

export function policyEngine(): RegoEngine {
  const engine = new RegoEngine();
  loadPolicies(engine, { dir: "", policyPath: "platform/authz", development: false });
  return engine;
}

/** Keeps what it is given: the audit trail as a test reads it, behind the real AuditLog. */
export function memoryTransport(): AuditTransport & { records: AuditRecord[] } {
  const records: AuditRecord[] = [];
  return { description: "memory", records, deliver: async (batch) => void records.push(...batch), close: async () => undefined };
}

export function enforcer(provider: DecisionProvider, options: { cacheTtlMs?: number; requireIdentity?: boolean } = {}) {
  const transport = memoryTransport();
  const audit = new AuditLog(transport, { capacity: 1000, log: quiet });
  const service = new AuthzService({
    provider,
    policyPath: "platform/authz",
    selfId: () => self,
    requireIdentity: options.requireIdentity ?? true,
    audit,
    cacheTtlMs: options.cacheTtlMs,
    log: quiet,
  });
  /** The audit record of a decision, once the background writer has delivered it. */
  const recordOf = async (auditId: string) => {
    await audit.flush();
    return transport.records.find((r) => r.audit_id === auditId);
  };
  return { service, audit, records: transport.records, recordOf };
}

export const embedded = (engine = policyEngine()) => embeddedProvider(engine, "platform/authz");
