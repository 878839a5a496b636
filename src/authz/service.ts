/**
 * The enforcer: turns a request into policy input, asks the provider, and reads the answer strictly. Only
 * `result.allow === true` allows; anything else (an undefined package, an engine that is down, slow or
 * answering garbage, a malformed id) denies with a reason. Every decision gets one audit record.
 */
import { randomUUID } from "node:crypto";
import { isSpiffeId, peerMatcher } from "../identity/spiffe.ts";
import type { Logger } from "../log.ts";
import type { AuditLog, AuditRecord } from "./audit/log.ts";
import type { AuthzContext, AuthzDecision, AuthzEnforcer, HandlerGuard, PolicyInput } from "./model.ts";
import { type DecisionProvider, EngineAnsweredGarbage, EngineUnreachable, type PolicyAnswer } from "./provider.ts";

export interface AuthzServiceOptions {
  provider: DecisionProvider;
  /** `platform/authz`: named in reasons when the package is missing. */
  policyPath: string;
  /** This workload's SPIFFE id: the callee of inbound checks. */
  selfId(): string | undefined;
  /** Deny inbound calls without a verified identity before policy runs. */
  requireIdentity: boolean;
  audit?: AuditLog;
  cacheTtlMs?: number;
  log: Logger;
}

/** A refusal before policy (e.g. an mTLS handshake) that still belongs in the audit trail. */
export interface Refused {
  callerId?: string;
  action: string;
  reason: string;
  context?: AuthzContext;
}

const cacheLimit = 10_000;

export class AuthzService implements AuthzEnforcer {
  readonly #cache = new Map<string, { answer: PolicyAnswer; expires: number }>();
  readonly #counts = { allowed: 0, denied: 0, cacheHits: 0, cacheMisses: 0 };
  readonly #matchers = new Map<string, (id: string | undefined) => boolean>();

  constructor(private readonly options: AuthzServiceOptions) {}

  checkInbound(callerId: string | undefined, action: string, context: AuthzContext = {}, guard: HandlerGuard = {}): Promise<AuthzDecision> {
    const self = this.options.selfId() ?? null;
    const base = { caller: callerId ?? null, callee: self, audited: null, action, context };
    if (callerId === undefined && this.options.requireIdentity)
      return Promise.resolve(this.#finish(base, false, "denied: no verified SPIFFE identity (mutual TLS with an SVID is required)", "none"));
    if (guard.requiresPeer !== undefined && !this.#peerMatches(guard.requiresPeer, callerId))
      return Promise.resolve(this.#finish(base, false, `denied: caller ${callerId ?? "(none)"} is not the peer this handler requires (${guard.requiresPeer})`, "none"));
    const actions = guard.capability !== undefined && guard.capability !== action ? [action, guard.capability] : [action];
    return Promise.resolve(this.#decide(base, actions));
  }

  checkOutbound(callerId: string, calleeId: string, action: string, context: AuthzContext = {}): Promise<AuthzDecision> {
    return Promise.resolve(this.#decide({ caller: callerId, callee: calleeId, audited: calleeId, action, context }, [action]));
  }

  /** Records a refusal made before any policy could run (an untrusted client certificate). */
  recordRefusal({ callerId, action, reason, context = {} }: Refused): AuthzDecision {
    return this.#finish({ caller: callerId ?? null, callee: null, audited: null, action, context }, false, reason, "none");
  }

  stats() {
    return { provider: this.options.provider.name, ...this.#counts, cacheSize: this.#cache.size };
  }

  #decide(request: Request, actions: string[]): AuthzDecision | Promise<AuthzDecision> {
    const { caller, callee, context } = request;
    if (typeof request.action !== "string" || request.action === "") return this.#finish(request, false, "denied: no action named", "none");
    if (caller !== null && !isSpiffeId(caller)) return this.#finish(request, false, "denied: caller_spiffe_id is not a valid SPIFFE id", "none");
    if (callee !== null && !isSpiffeId(callee)) return this.#finish(request, false, "denied: callee_spiffe_id is not a valid SPIFFE id", "none");
    let contextJson: string;
    try {
      contextJson = JSON.stringify(context ?? {});
    } catch {
      return this.#finish(request, false, "denied: context is not plain JSON", "none");
    }
    return this.#check(request, actions, 0, contextJson, "none", undefined);
  }

  /**
   * Asks policy about `actions[i]` and, while it allows, about the next. An engine that answers at once (the
   * embedded one) is not awaited: a decision then costs no turn of the microtask queue.
   */
  #check(request: Request, actions: string[], i: number, contextJson: string, version: string, extra: Record<string, unknown> | undefined): AuthzDecision | Promise<AuthzDecision> {
    let answer: PolicyAnswer | Promise<PolicyAnswer>;
    try {
      answer = this.#ask({ caller_spiffe_id: request.caller, callee_spiffe_id: request.callee, action: actions[i]!, context: request.context }, contextJson);
    } catch (error) {
      return this.#unanswered(request, error, version);
    }
    if (!(answer instanceof Promise)) return this.#judge(request, actions, i, contextJson, answer, extra);
    return answer.then(
      (answered) => this.#judge(request, actions, i, contextJson, answered, extra),
      (error) => this.#unanswered(request, error, version),
    );
  }

  #judge(request: Request, actions: string[], i: number, contextJson: string, answer: PolicyAnswer, extra: Record<string, unknown> | undefined) {
    const verdict = this.#read(answer, actions[i]!);
    const kept = verdict.extra ?? extra;
    if (!verdict.allowed || i === actions.length - 1) return this.#finish(request, verdict.allowed, verdict.reason, answer.version, kept);
    return this.#check(request, actions, i + 1, contextJson, answer.version, kept);
  }

  #unanswered(request: Request, error: unknown, version: string): AuthzDecision {
    const message = (error as Error).message;
    const reason =
      error instanceof EngineUnreachable
        ? `denied: policy engine unreachable: ${message}`
        : error instanceof EngineAnsweredGarbage
          ? `denied: policy engine answered garbage (${message})`
          : `denied: policy evaluation failed: ${message}`;
    return this.#finish(request, false, reason, version);
  }

  /** Without a cache the provider's own answer is handed on as it comes. */
  #ask(input: PolicyInput, contextJson: string): PolicyAnswer | Promise<PolicyAnswer> {
    const ttl = this.options.cacheTtlMs ?? 0;
    return ttl <= 0 ? this.options.provider.evaluate(input) : this.#askCached(input, contextJson, ttl);
  }

  #askCached(input: PolicyInput, contextJson: string, ttl: number): PolicyAnswer | Promise<PolicyAnswer> {
    const { caller_spiffe_id, callee_spiffe_id, action } = input;
    const key = `${this.options.provider.cacheKey() ?? "remote"}\0${caller_spiffe_id}\0${callee_spiffe_id}\0${action}\0${contextJson}`;
    const now = Date.now();
    const hit = this.#cache.get(key);
    if (hit && hit.expires > now) {
      this.#counts.cacheHits++;
      return hit.answer;
    }
    this.#counts.cacheMisses++;
    const remember = (answer: PolicyAnswer) => {
      if (this.#cache.size >= cacheLimit) this.#cache.clear();
      this.#cache.set(key, { answer, expires: now + ttl });
      return answer;
    };
    const answer = this.options.provider.evaluate(input);
    return answer instanceof Promise ? answer.then(remember) : remember(answer);
  }

  #read({ result }: PolicyAnswer, action: string): { allowed: boolean; reason: string; extra?: Record<string, unknown> } {
    if (result === undefined) return { allowed: false, reason: `denied: policy package ${this.options.policyPath.replaceAll("/", ".")} is not loaded` };
    if (result === null || typeof result !== "object" || Array.isArray(result))
      return { allowed: false, reason: `denied: policy engine answered garbage (result is ${Array.isArray(result) ? "an array" : typeof result}, not an object)` };
    const { allow, reason } = result as Record<string, unknown>;
    // The rest of the document only goes into the audit record: no record, no copy.
    const extra = this.options.audit ? rest(result as Record<string, unknown>) : undefined;
    if (typeof allow !== "boolean") return { allowed: false, reason: "denied: policy engine answered garbage (allow is not a boolean)", extra };
    const said = typeof reason === "string" && reason !== "" ? reason : allow ? "allowed by policy" : "denied: no policy rule allows it";
    return { allowed: allow, reason: allow ? said : `${said} (${action})`, extra };
  }

  #finish(request: Request, allowed: boolean, reason: string, version: string, extra?: Record<string, unknown>): AuthzDecision {
    const decision = new Decision(allowed, reason);
    this.#counts[allowed ? "allowed" : "denied"]++;
    const audit = this.options.audit;
    if (audit) {
      const record: AuditRecord = {
        timestamp: new Date().toISOString(),
        audit_id: decision.auditId,
        caller_spiffe_id: request.caller,
        callee_spiffe_id: request.audited,
        action: String(request.action),
        decision: allowed ? "allowed" : "denied",
        reason,
        policy_version: version,
        context: plain(request.context),
        ...(extra ? { result: extra } : {}),
      };
      audit.write(record);
    }
    if (!allowed && this.options.log.enabled("debug")) this.options.log.debug("authorization denied", { auditId: decision.auditId, action: request.action, reason });
    return decision;
  }

  /** A malformed pattern matches nobody (registration should have refused it already). */
  #peerMatches(pattern: string, callerId: string | undefined): boolean {
    let matcher = this.#matchers.get(pattern);
    if (!matcher) {
      try {
        matcher = peerMatcher(pattern);
      } catch {
        matcher = () => false;
      }
      this.#matchers.set(pattern, matcher);
    }
    return matcher(callerId);
  }
}

/** Immutable; its audit id is made when its record is written or someone asks for it, so a server without an audit log makes none. */
class Decision implements AuthzDecision {
  #auditId: string | undefined;

  constructor(
    readonly allowed: boolean,
    readonly reason: string,
  ) {
    Object.freeze(this);
  }

  get auditId(): string {
    return (this.#auditId ??= randomUUID());
  }
}

interface Request {
  caller: string | null;
  /** The callee given to policy (this workload, inbound). */
  callee: string | null;
  /** The callee as audited: null for inbound. */
  audited: string | null;
  action: string;
  context: AuthzContext;
}

/** The decision document minus `allow` and `reason`; undefined when nothing is left. */
function rest(result: Record<string, unknown>): Record<string, unknown> | undefined {
  const { allow: _allow, reason: _reason, ...extra } = result;
  return Object.keys(extra).length ? extra : undefined;
}

/** A JSON-safe copy of the context for the record; a context that is not JSON is recorded as such. */
function plain(context: AuthzContext): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(context ?? {}));
  } catch {
    return { unserializable: true };
  }
}
