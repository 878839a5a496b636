/**
 * Evaluation is mutually recursive by nature: a term may hold a comprehension (a body), a body holds
 * terms, and reading a rule's document runs the rule's body. This table is how the files lower down reach
 * the ones above them without importing them: terms.ts, bodies.ts and rules.ts fill in their part when they
 * load (engine.ts loads them all), and the rest call through it. Nothing else is kept here.
 */
import type { Body, Term } from "../syntax/ast.ts";
import type { DocNode } from "../plan/tree.ts";
import type { Location } from "../values/errors.ts";
import type { Value } from "../values/values.ts";
import type { CBody, CTerm, DocPath, Match } from "./closures.ts";
import type { Run, Vals, VK } from "./evaluator.ts";

export interface Late {
  /** terms.ts: a term compiled into closures. */
  compileTerm(t: Term, root: DocNode): CTerm;
  /** terms.ts: a term as a pattern matched against a value. */
  compileMatch(t: Term, root: DocNode, compiled?: CTerm): Match;
  /** bodies.ts: a body compiled into closures. */
  compileBody(body: Body, root: DocNode): CBody;
  /** rules.ts: the full value of a node, base data merged with what its rules produce. */
  docValue(run: Run, node: DocNode, base: Value | undefined): Value | undefined;
  /** rules.ts: every value down a ref path from a node of the rule tree. */
  walkDoc(run: Run, node: DocNode, base: Value | undefined, path: DocPath, i: number, vals: Vals, k: VK): boolean;
  /** rules.ts: a user function's value for its arguments. */
  callFunction(run: Run, node: DocNode, args: Value[], loc: Location): Value | undefined;
  /** rules.ts: a value joined to the one found so far, or a conflict error. */
  merge(prior: Value | undefined, v: Value, node: DocNode, loc: Location, fn: boolean): Value;
  /** rules.ts: whether every constant branch value is `v`. */
  allEqual(constants: (Value | undefined)[], v: Value): boolean;
}

const unloaded = (): never => {
  throw new Error("the Rego evaluator is not loaded: import eval/rules.ts (engine.ts does)");
};

export const late: Late = {
  compileTerm: unloaded,
  compileMatch: unloaded,
  compileBody: unloaded,
  docValue: unloaded,
  walkDoc: unloaded,
  callFunction: unloaded,
  merge: unloaded,
  allEqual: unloaded,
};
