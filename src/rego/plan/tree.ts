/**
 * The compiled plan's tree: one node per position in the data document, holding the rules whose head
 * path ends there. The compiler builds it; evaluation reads it and keeps on each node and rule what it
 * made of them (a memo per evaluation, closures, generated code). Those slots are typed by what evaluation
 * hands them (`Evaluation`), so this layer knows nothing of how evaluation works.
 */
import type { Body, FunctionNode, Term } from "../syntax/ast.ts";
import type { Location } from "../values/errors.ts";
import { keyOf, type RObject, type Value } from "../values/values.ts";

/** An evaluation as the plan sees it: what generated code is handed. eval/evaluator.ts's Run is one. */
export interface Evaluation {
  readonly tree: DocNode;
}

/** A node's value in an evaluation's own context. */
export type NodeCode = (run: Evaluation) => Value | undefined;
/** A function's value for its arguments in an evaluation's own context (results are remembered by the caller). */
export type FunctionCode = (run: Evaluation, args: readonly Value[], loc: Location) => Value | undefined;
/** A package's answer as a plain object, its base data merged in. */
export type AnswerCode = (run: Evaluation, base: RObject | undefined) => Record<string, unknown>;
/**
 * One rule (or function definition) as one function. Complete rules and functions answer their value after
 * `prior` (the value found so far, for conflicts); partial rules call `add` once per key and value.
 */
export type RuleCode = (run: Evaluation, prior: Value | undefined, args: readonly Value[], loc: Location, add: Add | undefined) => Value | undefined;
export type Add = (keys: Value[], v: Value) => void;

/** No value: remembered so that an undefined function result is not computed again. */
export const NONE = Symbol("undefined");

/**
 * What one evaluation context learned about a rule node: its value, and its function results by
 * arguments. Kept on the node and stamped with the context (compared by identity), so a lookup is a
 * comparison, not a map search; another evaluation (a new context) simply finds the stamp stale.
 */
export class NodeMemo {
  ctx: object | undefined = undefined;
  computing = false;
  value: Value | undefined = undefined;
  callsCtx: object | undefined = undefined;
  /**
   * A function's calls in `callsCtx` as (arguments, result) pairs, the first `listed` entries: an
   * evaluation makes only a few, and the list is reused from one evaluation to the next.
   */
  readonly calls: (Value[] | Value | typeof NONE)[] = [];
  listed = 0;
  /** Results by the arguments' identity, once there are too many calls to list. */
  callIndex: Record<string, Value | typeof NONE> | undefined = undefined;
}

export interface CompiledRule {
  kind: "complete" | "partial" | "function";
  node: DocNode;
  /** Partial rules: the head ref terms below `node` (keys of the objects the rule builds). */
  keys: Term[];
  multi: boolean;
  args: Term[];
  value: Term;
  body: Body;
  elses: { value: Term; body: Body }[];
  /** The constant value of each branch (undefined where a branch computes its value). */
  constants: (Value | undefined)[];
  slots: number;
  loc: Location;
  /** The rule as closures, made on its first evaluation (eval/rules.ts owns their shape). */
  plan?: object;
  /** Partial rules: the rule as one function for an evaluation's own context, made once warm (rules.ts). */
  code?: RuleCode;
  /** Partial rules: evaluations through the closures so far (rules.ts). */
  runs: number;
}

/** One position in the data tree: rules attach to the node of their (ground) head path. */
export class DocNode implements FunctionNode {
  readonly children = new Map<string, DocNode>();
  readonly complete: CompiledRule[] = [];
  readonly partial: CompiledRule[] = [];
  readonly functions: CompiledRule[] = [];
  defaultRule: CompiledRule | undefined;
  /** Set after compilation: a rule or function sits here or below. */
  hasRules = false;
  /** Set after compilation: the children with rules, in key order (a document is built in that order). */
  ruleChildren: DocNode[] = [];
  /** A module declares this package: its document is defined (an object) even without rules. */
  isPackage = false;
  /** Set after compilation: rules sit here, so a walk down the tree stops and takes this node's value. */
  isLeaf = false;
  /** Set after compilation: the children by key identity, for evaluation (a record reads faster than a small Map). */
  childAt: Record<string, DocNode | undefined> = Object.create(null);
  /** This node's value and function results in the current evaluation. */
  readonly memo = new NodeMemo();
  /** Complete rules' nodes: the node's value as one function, made once warm (rules.ts, codegen/nodes.ts). */
  code: NodeCode | undefined = undefined;
  /** Reads through the closures so far, before the node (a rule's, a function's, a package's) is warm. */
  runs = 0;
  /** Packages: their answer as one function, made once warm. */
  answer: AnswerCode | undefined = undefined;
  /** Functions' nodes: the definitions as one function, made once warm. */
  functionCode: FunctionCode | undefined = undefined;

  constructor(
    readonly key: Value,
    readonly path: Value[],
    readonly name: string,
  ) {}

  child(key: Value): DocNode {
    const k = keyOf(key);
    let c = this.children.get(k);
    if (!c) {
      c = new DocNode(key, [...this.path, key], `${this.name}${typeof key === "string" && /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`}`);
      this.children.set(k, c);
    }
    return c;
  }

  /** A function (or a function's default) is defined here: a plain field, read on every evaluation. */
  isFunction = false;
}

