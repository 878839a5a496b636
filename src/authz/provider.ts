/**
 * Where decisions come from: the embedded Rego engine (default) or an OPA server over its REST API. Both answer
 * in OPA's shape, `{ result }` with `result` absent when the policy document is undefined; the enforcer reads it.
 */
import type { RegoEngine } from "../rego/engine.ts";
import type { PolicyInput } from "./model.ts";

export interface PolicyAnswer {
  result?: unknown;
  /** The policy set that answered, for the audit record. */
  version: string;
}

export interface DecisionProvider {
  readonly name: "embedded" | "opa";
  /**
   * The embedded engine answers at once, a remote one with a promise. Throws (or rejects) when the engine
   * cannot be asked (unreachable, timed out, unreadable answer, a failed evaluation).
   */
  evaluate(input: PolicyInput): PolicyAnswer | Promise<PolicyAnswer>;
  /** Changes whenever the policies do, so cached decisions die with them; undefined when it cannot be known. */
  cacheKey(): string | undefined;
}

export function embeddedProvider(engine: RegoEngine, policyPath: string): DecisionProvider {
  return {
    name: "embedded",
    evaluate(input) {
      const { result } = engine.evaluate(policyPath, input);
      return result === undefined ? { version: engine.version } : { result, version: engine.version };
    },
    cacheKey: () => engine.version,
  };
}

export class EngineUnreachable extends Error {
  override name = "EngineUnreachable";
}

export class EngineAnsweredGarbage extends Error {
  override name = "EngineAnsweredGarbage";
}

/** OPA's `POST /v1/data/<path>`; a slow engine is cut off at `timeoutMs` and an odd answer is an error. */
export function opaProvider({ endpoint, policyPath, timeoutMs }: { endpoint: string; policyPath: string; timeoutMs: number }): DecisionProvider {
  const url = `${endpoint.replace(/\/+$/, "")}/v1/data/${policyPath}?provenance=true`;
  return {
    name: "opa",
    async evaluate(input) {
      let response: Response;
      try {
        response = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ input }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        const timedOut = (error as Error).name === "TimeoutError";
        throw new EngineUnreachable(timedOut ? `no answer within ${timeoutMs} ms` : (error as Error).message);
      }
      const text = await response.text();
      if (!response.ok) throw new EngineUnreachable(`HTTP ${response.status}: ${text.slice(0, 200)}`);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new EngineAnsweredGarbage(`the answer is not JSON: ${JSON.stringify(text.slice(0, 80))}`);
      }
      if (body === null || typeof body !== "object" || Array.isArray(body)) throw new EngineAnsweredGarbage("the answer is not a JSON object");
      const { result, provenance } = body as { result?: unknown; provenance?: { revision?: unknown } };
      const revision = typeof provenance?.revision === "string" ? provenance.revision : "unknown";
      return { ...("result" in body ? { result } : {}), version: `opa:${revision}` };
    },
    cacheKey: () => undefined,
  };
}
