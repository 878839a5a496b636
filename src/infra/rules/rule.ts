/**
 * What a security rule is, and the two shapes most rules take, with Checkov's semantics so that a verdict here is
 * the verdict Checkov gives: an attribute that must hold one of some values (a missing one usually fails), or one
 * that must not (a missing one passes). A value set from another resource's attribute cannot be judged, except
 * where any value will do.
 */
import type { ResourceInstance } from "../configuration.ts";
import { isUnknown, type Value } from "../evaluate.ts";
import type { RuleCategory, RuleProvider, Severity } from "../model.ts";

export type Result = "passed" | "failed" | "unknown";

export interface Verdict {
  result: Result;
  /** The attribute the verdict rests on (its line is the finding's), top-level name first. */
  attribute?: string;
}

export interface RuleContext {
  /** The resources of the same module that refer to `resource` and are of one of `types`. */
  referringTo(resource: ResourceInstance, types: string[]): ResourceInstance[];
}

export interface Rule {
  /** Checkov's id; also ours. */
  id: string;
  /** The tfsec (and Trivy) long id, as `#tfsec:ignore:<id>` names it. */
  tfsec: string;
  provider: RuleProvider;
  severity: Severity;
  category: RuleCategory;
  title: string;
  remediation: string;
  /** Resource types it judges; data sources as `data.<type>`. */
  resources: string[];
  check(resource: ResourceInstance, context: RuleContext): Verdict;
}

/** Any value at all (not null, not an empty string) will do. */
export const ANY = Symbol("any value");

/** The value at a dotted path: attribute names, nested block names, list indexes (`encrypt_at_rest.0.enabled`). */
export function valueAt(conf: Record<string, Value>, path: string): Value | undefined {
  let value: Value | undefined = conf;
  for (const part of path.split(".")) {
    if (value === undefined || value === null || isUnknown(value)) return value;
    if (Array.isArray(value)) value = /^\d+$/.test(part) ? value[Number(part)] : value[0] !== undefined && typeof value[0] === "object" ? (value[0] as Record<string, Value>)?.[part] : undefined;
    else if (typeof value === "object") value = (value as Record<string, Value>)[part];
    else return undefined;
  }
  return value;
}

const same = (a: Value, b: Value) => JSON.stringify(a) === JSON.stringify(b);
const single = (value: Value): Value => (Array.isArray(value) && value.length === 1 ? value[0]! : value);
const missing = (value: Value | undefined) => value === undefined || value === null || (Array.isArray(value) && value.length === 0);
const top = (path: string) => path.split(".")[0]!;

/** The value at `path` (a block given once read as that block), undefined when it is not set or empty. */
function setValueAt(conf: Record<string, Value>, path: string): Value | undefined {
  const raw = valueAt(conf, path);
  if (missing(raw)) return undefined;
  const value = single(raw!);
  return missing(value) ? undefined : value;
}

/** The attribute at `path` must be one of `expected` (or, with ANY, set at all). */
export function mustBe(path: string, expected: Value[] | typeof ANY, whenMissing: Result = "failed"): Rule["check"] {
  return ({ conf }) => {
    const attribute = top(path);
    const value = setValueAt(conf, path);
    if (value === undefined) return { result: whenMissing, attribute };
    if (expected === ANY) return { result: value === "" ? "failed" : "passed", attribute };
    if (isUnknown(value)) return { result: "unknown", attribute };
    return { result: expected.some((e) => same(e, value)) ? "passed" : "failed", attribute };
  };
}

/** The attribute at `path` must not be one of `forbidden` (with ANY: must not be set). */
export function mustNotBe(path: string, forbidden: Value[] | typeof ANY, whenMissing: Result = "passed"): Rule["check"] {
  return ({ conf }) => {
    const attribute = top(path);
    const value = setValueAt(conf, path);
    if (value === undefined) return { result: whenMissing, attribute };
    if (isUnknown(value)) return { result: value.why === "reference" ? "unknown" : forbidden === ANY ? "failed" : "passed", attribute };
    if (forbidden === ANY) return { result: "failed", attribute };
    const bad = (v: Value) => forbidden.some((f) => same(f, v));
    return { result: (Array.isArray(value) ? value.some(bad) : bad(value)) ? "failed" : "passed", attribute };
  };
}

/** A maker of one provider's simple rules: a check from mustBe or mustNotBe, and what to say about it. */
export const rulesOf =
  (provider: Rule["provider"]) =>
  (
    id: string,
    tfsec: string,
    severity: Rule["severity"],
    category: Rule["category"],
    resources: string[],
    title: string,
    remediation: string,
    check: Rule["check"],
  ): Rule => ({ id, tfsec, provider, severity, category, title, remediation, resources, check });
