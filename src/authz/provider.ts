/**
 * Where decisions come from: the embedded Rego engine (default) or an OPA server over its REST API. Both answer
 * in OPA's shape, `{ result }` with `result` absent when the policy document is undefined; the enforcer reads it.
 */
import type { RegoEngine } from "../rego/engine.ts";
import { parseStrictJson } from "../strict-json.ts";
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
  /** A remote engine: whether it answered last time it was asked (a decision or a probe), and the last error. */
  reachability?(): EngineReachability;
  /** Asks a remote engine whether it is up, without a decision; its outcome feeds `reachability`. */
  probe?(): Promise<void>;
}

export interface EngineReachability {
  reachable: boolean;
  lastError: string | null;
  lastErrorAt: string | null;
  lastAnswerAt: string | null;
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

// Not lenient in any way: a byte-order mark or a byte that is not UTF-8 makes the answer unreadable.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * OPA's `POST /v1/data/<path>`; a slow engine is cut off at `timeoutMs`, a redirect is not followed (the decision
 * would come from wherever it points), and an answer that is not one well-formed JSON object is an error.
 */
export function opaProvider({ endpoint, policyPath, timeoutMs }: { endpoint: string; policyPath: string; timeoutMs: number }): DecisionProvider {
  const base = endpoint.replace(/\/+$/, "");
  const url = `${base}/v1/data/${policyPath}?provenance=true`;
  const seen = { reachable: false, error: null as string | null, errorAt: 0, answerAt: 0 };
  /** Notes how asking the engine went, then hands the outcome on. */
  const noted = async <T>(ask: () => Promise<T>): Promise<T> => {
    try {
      const result = await ask();
      seen.answerAt = Date.now();
      seen.reachable = true;
      return result;
    } catch (error) {
      if (error instanceof EngineUnreachable || error instanceof EngineAnsweredGarbage) {
        seen.error = error.message;
        seen.errorAt = Date.now();
        seen.reachable = false;
      }
      throw error;
    }
  };
  const evaluate = async (input: PolicyInput): Promise<PolicyAnswer> => {
    let response: Response;
    let bytes: ArrayBuffer;
    try {
      response = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ input }),
        signal: AbortSignal.timeout(timeoutMs),
        redirect: "manual",
      });
      bytes = await response.arrayBuffer();
    } catch (error) {
      const timedOut = (error as Error).name === "TimeoutError";
      throw new EngineUnreachable(timedOut ? `no answer within ${timeoutMs} ms` : (error as Error).message);
    }
    if (response.status >= 300 && response.status < 400)
      throw new EngineUnreachable(`HTTP ${response.status} redirect to ${response.headers.get("location") ?? "nowhere"}, not followed`);
    if (!response.ok) throw new EngineUnreachable(`HTTP ${response.status}: ${new TextDecoder().decode(bytes.slice(0, 200))}`);
    let text: string;
    try {
      text = strictUtf8.decode(bytes);
    } catch {
      throw new EngineAnsweredGarbage("the answer is not UTF-8");
    }
    let body: unknown;
    try {
      body = parseStrictJson(text);
    } catch (error) {
      throw new EngineAnsweredGarbage(`the answer is not well-formed JSON (${(error as Error).message}): ${JSON.stringify(text.slice(0, 80))}`);
    }
    if (body === null || typeof body !== "object" || Array.isArray(body)) throw new EngineAnsweredGarbage("the answer is not a JSON object");
    const { result, provenance } = body as { result?: unknown; provenance?: { revision?: unknown } };
    const revision = typeof provenance?.revision === "string" ? provenance.revision : "unknown";
    return { ...("result" in body ? { result } : {}), version: `opa:${revision}` };
  };
  return {
    name: "opa",
    evaluate: (input) => noted(() => evaluate(input)),
    cacheKey: () => undefined,
    reachability: () => ({
      reachable: seen.reachable,
      lastError: seen.error,
      lastErrorAt: seen.errorAt ? new Date(seen.errorAt).toISOString() : null,
      lastAnswerAt: seen.answerAt ? new Date(seen.answerAt).toISOString() : null,
    }),
    // OPA's own health endpoint: 200 once its plugins are ready. Same rules as a decision: no redirect, a bound.
    probe: () =>
      noted(async () => {
        let response: Response;
        try {
          response = await fetch(`${base}/health`, { signal: AbortSignal.timeout(timeoutMs), redirect: "manual" });
          await response.arrayBuffer();
        } catch (error) {
          throw new EngineUnreachable((error as Error).name === "TimeoutError" ? `no answer within ${timeoutMs} ms` : (error as Error).message);
        }
        if (!response.ok) throw new EngineUnreachable(`health check answered HTTP ${response.status}`);
      }),
  };
}
