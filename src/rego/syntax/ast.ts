import type { Builtin } from "./builtin.ts";
import type { Location } from "../values/errors.ts";
import type { Value } from "../values/values.ts";

/** Terms as parsed. The compiler resolves names in place (`Var.slot`, `Call.target`). */
/** `firstLocal` on comprehensions: slots from this number on are local to them (set by the compiler). */
export type Term = (
  | { type: "value"; value: Value; loc: Location }
  | VarTerm
  | RefTerm
  | { type: "array"; items: Term[]; loc: Location }
  | { type: "set"; items: Term[]; loc: Location }
  | { type: "object"; items: [Term, Term][]; loc: Location }
  | CallTerm
  | { type: "arraycomp" | "setcomp"; head: Term; body: Body; loc: Location; firstLocal?: number }
  | { type: "objectcomp"; key: Term; value: Term; body: Body; loc: Location; firstLocal?: number }
);

export interface VarTerm {
  type: "var";
  name: string;
  loc: Location;
  /** Frame slot of a local variable, set by the compiler. */
  slot?: number;
}

export interface RefTerm {
  type: "ref";
  head: Term;
  path: Term[];
  loc: Location;
}

export interface CallTerm {
  type: "call";
  /** The function as written: a var (`count`) or a ref (`data.x.f`, `array.concat`). */
  fn: Term;
  args: Term[];
  loc: Location;
  /** Set by the compiler. */
  target?: CallTarget;
}

/** A user function's place in the compiled plan (plan/tree.ts's DocNode), opaque to the syntax. */
export interface FunctionNode {
  readonly name: string;
}

export type CallTarget =
  | { kind: "builtin"; name: string; arity: number; builtin: Builtin }
  | { kind: "function"; path: string; arity: number; node: FunctionNode };

export interface With {
  target: Term;
  value: Term;
  loc: Location;
}

/** A `with` modifier after compilation: what it replaces. */
export type CompiledWith =
  | { kind: "input" | "data"; path: Value[]; value: Term }
  | { kind: "function"; key: string; value: Term; replacement?: CallTarget };

export type Expr = (
  | { type: "term"; term: Term }
  | { type: "unify" | "assign"; left: Term; right: Term }
  | { type: "some"; vars: VarTerm[] }
  | { type: "somein"; key?: Term; value: Term; domain: Term }
  /** `firstLocal`: slots from this number on are local to the nested body; lower ones are closures. */
  | { type: "every"; key?: Term; value: Term; domain: Term; body: Body; firstLocal?: number }
  /**
   * `a and b`, `a or b` (future.keywords.and/or, rego.v2): holds once when every (any) operand has a
   * solution; each operand is a body of its own scope, so nothing it binds is seen outside.
   */
  | { type: "logic"; op: "and" | "or"; operands: Body[]; firstLocal?: number }
) & { negated: boolean; with: With[]; loc: Location; compiledWith?: CompiledWith[] };

export type Body = Expr[];

export interface RuleHead {
  /** The head ref relative to the package: first element is the rule name. */
  ref: Term[];
  args?: Term[];
  value?: Term;
  /** `contains`: the rule adds members to a set. */
  multi: boolean;
  assign: boolean;
}

export interface Rule {
  head: RuleHead;
  body: Body;
  isDefault: boolean;
  elses: { value?: Term; body: Body; loc: Location }[];
  loc: Location;
}

export interface Import {
  path: Term[];
  root: "data" | "input" | "future" | "rego";
  alias?: string;
  loc: Location;
}

export interface Module {
  file: string;
  pkg: string[];
  imports: Import[];
  rules: Rule[];
}
