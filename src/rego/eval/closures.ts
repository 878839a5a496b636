/**
 * The shapes of compiled closures: terms, operands, bodies and ref paths. Types only, shared by every
 * file of evaluation, so none of them imports another for a shape.
 */
import type { Term } from "../syntax/ast.ts";
import type { DocNode } from "../plan/tree.ts";
import type { Value } from "../values/values.ts";
import type { Direct, Goal, K, Run, Vals, VK } from "./evaluator.ts";

/** The value of a term whose `needs` are bound; undefined when it has none. */
export type One = (run: Run, vals: Vals) => Value | undefined;
/** Every value of a term, binding the variables it iterates over for the continuation. */
export type Each = (run: Run, vals: Vals, k: VK) => boolean;
/** Matches a term against a value, binding the term's unbound variables for the continuation. */
export type Match = (run: Run, vals: Vals, value: Value, k: K) => boolean;
/** Walks a value down the rest of a ref's path. */
export type Walk = (run: Run, vals: Vals, value: Value, k: VK) => boolean;

/** A term compiled into closures. */
export interface CTerm {
  readonly term: Term;
  /**
   * The slots that must be bound for the term to have at most one value, computed by `one` without
   * backtracking; false when it never has (refs that iterate, the whole data document).
   */
  readonly needs: readonly number[] | false;
  readonly one: One;
  readonly each: Each;
  /** How callers fetch the direct value without calling `one` (for constants, variables, their paths). */
  readonly operand: Operand;
}

/**
 * A direct term as data that `fetch` reads in place: closures made from one source function share their
 * compiled code, so each call through `one` is an indirect call the JIT cannot inline. Constants,
 * variables, and constant paths below a variable, `input`, the data document or a rule's remembered
 * value (most operands) cost no call at all.
 */
export interface Operand {
  readonly kind: OperandKind;
  readonly value: Value | undefined;
  /** SLOT: the variable; PATH: the variable the path starts at, or -1 for `input`. */
  readonly slot: number;
  /** PATH, DATA, RULE: the constant keys to look up (for RULE, those below the rule). */
  readonly keys: readonly Value[];
  /** The keys' identities (`keyOf`), undefined for keys that are not strings. */
  readonly ids: readonly (string | undefined)[];
  /** RULE: the complete rule's node. */
  readonly node: DocNode | undefined;
  readonly one: One;
  /** DATA: the data document last read, and what the path found in it (documents never change). */
  from: Value | undefined;
  found: Value | undefined;
}

/** How `fetch` reads an operand: a constant, a variable, a path below one, a data path, a rule's value, a closure. */
export type OperandKind = 0 | 1 | 2 | 3 | 4 | 5;

/** Evaluates an expression with at most one solution without a continuation; NOT_DIRECT when it cannot. */
export type Test = (run: Run, vals: Vals) => Direct;

/** A body compiled into closures. */
export interface CBody {
  readonly length: number;
  /** Calls `k` once per solution; bindings are undone when it returns. */
  readonly goal: Goal;
  /**
   * Runs the expressions from `from` on while each has at most one solution, binding on the run's
   * trail (the caller unwinds it). Returns the index of the first expression that needs backtracking,
   * the body's length when none does, or -1 when one failed.
   */
  prefix(run: Run, vals: Vals, from: number): number;
  /** resume[i] continues at expression i, where `prefix` stopped: `k` once per solution. */
  readonly resume: Goal[];
}

/** A ref path for walking the data tree: which steps are ground now, and the walk from each step on. */
export interface DocPath {
  /** Per step: the constant key, or undefined when `slots` names the variable holding it (or neither). */
  readonly keys: (Value | undefined)[];
  readonly constant: boolean[];
  /** Per step: the slot of a variable step, -1 otherwise. */
  readonly slots: number[];
  /** walks[i] walks a value from step i to the end. */
  readonly walks: Walk[];
}

