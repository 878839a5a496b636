import type { Body, CallTarget, CompiledWith, Expr, Module, Rule, Term, VarTerm } from "../syntax/ast.ts";
import type { Builtin } from "../syntax/builtin.ts";
import { refText } from "../syntax/parser.ts";
import { RegoError, type Location, type RegoErrorCode } from "../values/errors.ts";
import { compare, keyOf, RObject, RSet, type Value } from "../values/values.ts";
import { orderBody, orderTerm, termInputs } from "./safety.ts";
import { type CompiledRule, DocNode } from "./tree.ts";

export interface CompiledPolicy {
  root: DocNode;
}

export interface CompiledQuery {
  /** The query's expressions, names resolved and ordered so that variables are bound before use. */
  body: Body;
  slots: number;
  /** Named query variables and their slots: the bindings of each result. */
  outputs: [string, number][];
}

interface ModuleContext {
  file: string;
  pkg: Value[];
  roots: Set<string>;
  imports: Map<string, { root: "data" | "input"; path: Value[] }>;
}

const fail = (message: string, loc?: Location, code: RegoErrorCode = "rego_compile_error"): never => {
  throw new RegoError(code, message, loc);
};

/** Slots of one rule's frame; nested scopes (comprehensions, every) share it. */
class Frame {
  readonly names: string[] = [];
  alloc(name: string): number {
    this.names.push(name);
    return this.names.length - 1;
  }
}

class Scope {
  readonly vars = new Map<string, number>();
  readonly assigned = new Set<string>();
  constructor(
    readonly parent: Scope | undefined,
    readonly frame: Frame,
  ) {}
  lookup(name: string): number | undefined {
    return this.vars.get(name) ?? this.parent?.lookup(name);
  }
  declare(name: string): number {
    const slot = this.frame.alloc(name);
    this.vars.set(name, slot);
    return slot;
  }
}

export class Compiler {
  private readonly rootsByPackage = new Map<string, Set<string>>();
  /** Constant collections by identity: equal literals share one value, so checks by identity (glob delimiters) hold. */
  private readonly literals = new Map<string, Value>();

  /** `root`: an already compiled tree, to compile queries against it. */
  constructor(
    private readonly builtins: Map<string, Builtin>,
    private readonly root = new DocNode(null, [], "data"),
  ) {}

  compile(modules: Module[]): CompiledPolicy {
    const pending: [CompiledRule, Rule, ModuleContext][] = [];
    for (const m of modules) {
      const pkgKey = m.pkg.join(".");
      const roots = this.rootsByPackage.get(pkgKey) ?? new Set<string>();
      this.rootsByPackage.set(pkgKey, roots);
      for (const r of m.rules) roots.add((r.head.ref[0] as VarTerm).name);
    }
    for (const m of modules) {
      let pkgNode = this.root;
      for (const p of m.pkg) pkgNode = pkgNode.child(p);
      pkgNode.isPackage = true;
      const ctx: ModuleContext = {
        file: m.file,
        pkg: m.pkg,
        roots: this.rootsByPackage.get(m.pkg.join("."))!,
        imports: new Map(),
      };
      for (const imp of m.imports) {
        if (imp.root === "future" || imp.root === "rego") continue;
        const path = imp.path.map((t) => (t as { value: Value }).value);
        const alias = imp.alias ?? (path.length ? String(path[path.length - 1]) : imp.root);
        if (ctx.imports.has(alias)) fail(`import ${alias} is declared twice`, imp.loc);
        ctx.imports.set(alias, { root: imp.root, path });
      }
      for (const rule of m.rules) pending.push([this.place(rule, pkgNode), rule, ctx]);
    }
    for (const [compiled, rule, ctx] of pending) this.resolveRule(compiled, rule, ctx);
    markRules(this.root);
    checkRecursion(this.root);
    return { root: this.root };
  }

  compileQuery(body: Body): CompiledQuery {
    const frame = new Frame();
    const scope = new Scope(undefined, frame);
    const ctx: ModuleContext = { file: "", pkg: [], roots: new Set(), imports: new Map() };
    const resolved = this.resolveBody(body, scope, ctx);
    const ordered = orderBody(resolved, new Set(), frame.names);
    const outputs = [...scope.vars.entries()].filter(([n]) => !n.startsWith("_"));
    return { body: ordered.body, slots: frame.names.length, outputs };
  }

  /** Attaches a rule to its data-tree node (names inside it are resolved later, once all rules are placed). */
  private place(rule: Rule, pkgNode: DocNode): CompiledRule {
    const { head } = rule;
    let node = pkgNode.child((head.ref[0] as VarTerm).name);
    let i = 1;
    for (; i < head.ref.length; i++) {
      const key = groundValue(head.ref[i]!);
      if (key === undefined) break;
      node = node.child(key);
    }
    const keys = head.ref.slice(i);
    const isFunction = head.args !== undefined;
    const kind = isFunction ? "function" : keys.length > 0 || head.multi ? "partial" : "complete";
    if (isFunction && keys.length) fail(`function name must be a constant path: ${refText(head.ref)}`, rule.loc);
    const compiled: CompiledRule = {
      kind,
      node,
      keys,
      multi: head.multi,
      args: head.args ?? [],
      value: head.value ?? { type: "value", value: true, loc: rule.loc },
      body: rule.body,
      elses: [],
      constants: [],
      slots: 0,
      loc: rule.loc,
      plan: undefined,
      code: undefined,
      runs: 0,
    };
    if (rule.isDefault) {
      if (kind === "partial") fail("default rules must have a constant name (no variables in the head)", rule.loc);
      if (node.defaultRule) fail(`multiple default rules ${node.name} found`, rule.loc);
      node.defaultRule = compiled;
    } else if (kind === "function") node.functions.push(compiled);
    else if (kind === "complete") node.complete.push(compiled);
    else node.partial.push(compiled);
    if (kind === "function") node.isFunction = true;
    const arities = new Set([...node.functions, ...(node.defaultRule?.kind === "function" ? [node.defaultRule] : [])].map((f) => f.args.length));
    if (arities.size > 1) fail(`function ${node.name} is defined with different numbers of arguments`, rule.loc);
    if (node.isFunction && (node.complete.length || node.partial.length || (node.defaultRule && node.defaultRule.kind !== "function")))
      fail(`${node.name} is defined both as a function and as a rule`, rule.loc);
    return compiled;
  }

  private resolveRule(c: CompiledRule, rule: Rule, ctx: ModuleContext): void {
    const frame = new Frame();
    const scope = new Scope(undefined, frame);
    const bound = new Set<number>();
    const args = c.args.map((a) => {
      for (const name of patternVars(a)) if (!scope.vars.has(name)) scope.declare(name);
      return this.resolveTerm(a, scope, ctx);
    });
    for (const a of args) collectSlots(a, bound);
    c.args = args;
    const finish = (body: Body, headTerms: Term[], bodyScope: Scope): [Body, Term[]] => {
      const resolved = this.resolveBody(body, bodyScope, ctx);
      const ordered = orderBody(resolved, new Set(bound), frame.names);
      const head = headTerms.map((t) => orderTerm(this.resolveTerm(t, bodyScope, ctx), ordered.bound, frame.names));
      for (const t of head) {
        const missing = [...termInputs(t)].filter((s) => !ordered.bound.has(s));
        if (missing.length) fail(`var ${frame.names[missing[0]!]} is unsafe`, t.loc, "rego_unsafe_var_error");
      }
      return [ordered.body, head];
    };
    const [body, head] = finish(rule.body, [...c.keys, c.value], scope);
    c.body = body;
    c.keys = head.slice(0, -1);
    c.value = head[head.length - 1]!;
    for (const e of rule.elses) {
      const elseScope = new Scope(scope, frame);
      const value = e.value ?? { type: "value", value: true, loc: e.loc };
      const [elseBody, [elseValue]] = finish(e.body, [value], elseScope);
      c.elses.push({ value: elseValue!, body: elseBody });
    }
    c.slots = frame.names.length;
    c.constants = [c.value, ...c.elses.map((e) => e.value)].map((t) => (t.type === "value" ? t.value : undefined));
  }

  // ---- name resolution

  private resolveBody(body: Body, scope: Scope, ctx: ModuleContext): Body {
    const implicit = new Set<string>();
    for (const e of body) implicitVars(e, implicit);
    for (const name of implicit) if (!this.isGlobal(name, ctx) && scope.lookup(name) === undefined) scope.declare(name);
    const out: Body = [];
    for (const e of body) {
      const r = this.resolveExpr(e, scope, ctx);
      if (r) out.push(r);
    }
    return out;
  }

  private isGlobal(name: string, ctx: ModuleContext) {
    return name === "input" || name === "data" || ctx.roots.has(name) || ctx.imports.has(name);
  }

  private resolveExpr(e: Expr, scope: Scope, ctx: ModuleContext): Expr | undefined {
    const base = { negated: e.negated, with: e.with, loc: e.loc };
    let out: Expr;
    switch (e.type) {
      case "some":
        for (const v of e.vars) if (!scope.vars.has(v.name)) scope.declare(v.name);
        if (e.with.length) fail("'with' cannot modify a 'some' declaration", e.loc);
        return undefined;
      case "somein": {
        const domain = this.resolveTerm(e.domain, scope, ctx);
        for (const t of e.key ? [e.key, e.value] : [e.value]) for (const name of patternVars(t)) scope.declare(name);
        out = {
          ...base,
          type: "somein",
          key: e.key && this.resolveTerm(e.key, scope, ctx),
          value: this.resolveTerm(e.value, scope, ctx),
          domain,
        };
        break;
      }
      case "assign": {
        const right = this.resolveTerm(e.right, scope, ctx);
        if (!isAssignable(e.left)) fail("the left side of ':=' must be a variable or a pattern of variables", e.left.loc);
        for (const name of patternVars(e.left)) {
          if (scope.assigned.has(name)) fail(`var ${name} assigned above`, e.left.loc);
          scope.assigned.add(name);
          if (!scope.vars.has(name)) scope.declare(name);
        }
        out = { ...base, type: "assign", left: this.resolveTerm(e.left, scope, ctx), right };
        break;
      }
      case "unify":
        out = { ...base, type: "unify", left: this.resolveTerm(e.left, scope, ctx), right: this.resolveTerm(e.right, scope, ctx) };
        break;
      case "every": {
        const domain = this.resolveTerm(e.domain, scope, ctx);
        const inner = new Scope(scope, scope.frame);
        const firstLocal = scope.frame.names.length;
        for (const t of e.key ? [e.key, e.value] : [e.value]) for (const name of patternVars(t)) inner.declare(name);
        const key = e.key && this.resolveTerm(e.key, inner, ctx);
        const value = this.resolveTerm(e.value, inner, ctx);
        out = { ...base, type: "every", key, value, domain, body: this.resolveBody(e.body, inner, ctx), firstLocal };
        break;
      }
      case "logic": {
        const firstLocal = scope.frame.names.length;
        const operands = e.operands.map((body) => this.resolveBody(body, new Scope(scope, scope.frame), ctx));
        out = { ...base, type: "logic", op: e.op, operands, firstLocal };
        break;
      }
      case "term":
        out = { ...base, type: "term", term: this.resolveTerm(e.term, scope, ctx) };
        if (out.term.type === "call" && !e.negated && out.term.target && out.term.args.length > out.term.target.arity + 1)
          fail(`${callName(out.term.fn)}: too many arguments`, e.loc);
        break;
    }
    out.compiledWith = e.with.map((w) => this.resolveWith(w.target, w.value, scope, ctx));
    return out;
  }

  private resolveWith(target: Term, value: Term, scope: Scope, ctx: ModuleContext): CompiledWith {
    const isLocal = value.type === "var" && scope.lookup(value.name) !== undefined;
    const replacement = functionRef(value) && !isLocal ? this.tryCallTarget(value, ctx) : undefined;
    const resolvedValue = replacement ? value : this.resolveTerm(value, scope, ctx);
    const name = callName(target);
    if (name === "input" || name.startsWith("input.") || (target.type === "ref" && target.head.type === "var" && target.head.name === "input")) {
      const path = target.type === "ref" ? target.path.map((t) => groundValue(t) ?? fail("'with' target path must be constant", t.loc)) : [];
      return { kind: "input", path, value: resolvedValue };
    }
    const fn = this.tryCallTarget(target, ctx);
    if (fn) return { kind: "function", key: fn.kind === "builtin" ? fn.name : fn.path, value: resolvedValue, replacement };
    const resolved = this.resolveTerm(target, scope, ctx);
    if (resolved.type === "var" && resolved.name === "data" && resolved.slot === undefined) return { kind: "data", path: [], value: resolvedValue };
    if (resolved.type === "ref" && resolved.head.type === "var" && resolved.head.name === "data" && resolved.head.slot === undefined) {
      const path = resolved.path.map((t) => groundValue(t) ?? fail("'with' target path must be constant", t.loc));
      return { kind: "data", path, value: resolvedValue };
    }
    return fail(`'with' target must be input, data or a function, not ${name}`, target.loc);
  }

  private resolveTerm(t: Term, scope: Scope, ctx: ModuleContext): Term {
    switch (t.type) {
      case "value":
        return t;
      case "var":
        return this.resolveVar(t, scope, ctx);
      case "ref": {
        const head = t.head.type === "var" ? this.resolveVar(t.head, scope, ctx) : this.resolveTerm(t.head, scope, ctx);
        const path = t.path.map((p) => this.resolveTerm(p, scope, ctx));
        if (head.type === "ref") return { ...t, head: head.head, path: [...head.path, ...path] };
        return { ...t, head, path };
      }
      case "array":
      case "set":
        return this.folded({ ...t, items: t.items.map((i) => this.resolveTerm(i, scope, ctx)) });
      case "object":
        return this.folded({ ...t, items: t.items.map(([k, v]) => [this.resolveTerm(k, scope, ctx), this.resolveTerm(v, scope, ctx)] as [Term, Term]) });
      case "call": {
        const target = this.callTarget(t, ctx, scope);
        return { ...t, target, args: t.args.map((a) => this.resolveTerm(a, scope, ctx)) };
      }
      case "arraycomp":
      case "setcomp": {
        const inner = new Scope(scope, scope.frame);
        const firstLocal = scope.frame.names.length;
        const body = this.resolveBody(t.body, inner, ctx);
        return { ...t, body, head: this.resolveTerm(t.head, inner, ctx), firstLocal };
      }
      case "objectcomp": {
        const inner = new Scope(scope, scope.frame);
        const firstLocal = scope.frame.names.length;
        const body = this.resolveBody(t.body, inner, ctx);
        return { ...t, body, key: this.resolveTerm(t.key, inner, ctx), value: this.resolveTerm(t.value, inner, ctx), firstLocal };
      }
    }
  }

  /** A literal made only of constants (`[":"]`, `{"a": 1}`) becomes its value, built once instead of per evaluation. */
  private folded(t: Term): Term {
    const value = groundValue(t);
    if (value === undefined) return t;
    const key = keyOf(value);
    const shared = this.literals.get(key) ?? value;
    this.literals.set(key, shared);
    return { type: "value", value: shared, loc: t.loc };
  }

  private resolveVar(v: VarTerm, scope: Scope, ctx: ModuleContext): Term {
    if (v.name === "_") return { ...v, slot: scope.frame.alloc("_") };
    const local = scope.lookup(v.name);
    if (local !== undefined) return { ...v, slot: local };
    if (v.name === "input" || v.name === "data") return v;
    const dataRef = (path: Value[]): Term => ({
      type: "ref",
      head: { type: "var", name: "data", loc: v.loc },
      path: path.map((p) => ({ type: "value", value: p, loc: v.loc })),
      loc: v.loc,
    });
    if (ctx.roots.has(v.name)) return dataRef([...ctx.pkg, v.name]);
    const imp = ctx.imports.get(v.name);
    if (imp) {
      if (imp.root === "data") return dataRef(imp.path);
      if (imp.path.length === 0) return { type: "var", name: "input", loc: v.loc };
      return { type: "ref", head: { type: "var", name: "input", loc: v.loc }, path: imp.path.map((p) => ({ type: "value", value: p, loc: v.loc })), loc: v.loc };
    }
    return { ...v, slot: scope.declare(v.name) };
  }

  private callTarget(t: Term & { type: "call" }, ctx: ModuleContext, scope: Scope): CallTarget {
    if (t.fn.type === "var" && scope.lookup(t.fn.name) !== undefined) fail(`${t.fn.name} is a variable, not a function`, t.loc);
    const target = this.tryCallTarget(t.fn, ctx);
    if (!target) return fail(`undefined function ${callName(t.fn)}`, t.loc);
    if (t.args.length < target.arity) fail(`${callName(t.fn)}: expected ${target.arity} arguments, got ${t.args.length}`, t.loc);
    return target;
  }

  /** Resolves a function name (`count`, `f`, `foo.bar`, `data.x.f`) to a user function or a built-in. */
  private tryCallTarget(fn: Term, ctx: ModuleContext): CallTarget | undefined {
    const parts = nameParts(fn);
    if (!parts) return undefined;
    const userPath: Value[] | undefined =
      parts[0] === "data"
        ? parts.slice(1)
        : ctx.roots.has(parts[0] as string)
          ? [...ctx.pkg, ...parts]
          : ctx.imports.get(parts[0] as string)?.root === "data"
            ? [...ctx.imports.get(parts[0] as string)!.path, ...parts.slice(1)]
            : undefined;
    if (userPath) {
      let node: DocNode | undefined = this.root;
      for (const p of userPath) node = node?.children.get(keyOf(p));
      if (node?.isFunction) {
        const rule = node.functions[0] ?? node.defaultRule!;
        return { kind: "function", path: node.name, arity: rule.args.length, node };
      }
      if (parts[0] === "data" || ctx.roots.has(parts[0] as string)) return undefined;
    }
    const b = this.builtins.get(parts.join("."));
    return b && { kind: "builtin", name: b.name, arity: b.arity, builtin: b };
  }
}

// ---- helpers over terms

/** The value of a term that contains no variables, refs or calls. */
export function groundValue(t: Term): Value | undefined {
  switch (t.type) {
    case "value":
      return t.value;
    case "array": {
      const items = t.items.map(groundValue);
      return items.includes(undefined) ? undefined : (items as Value[]);
    }
    case "set": {
      const items = t.items.map(groundValue);
      return items.includes(undefined) ? undefined : RSet.of(items as Value[]);
    }
    case "object": {
      const o = new RObject();
      for (const [k, v] of t.items) {
        const kv = groundValue(k);
        const vv = groundValue(v);
        if (kv === undefined || vv === undefined) return undefined;
        o.set(kv, vv);
      }
      return o;
    }
    default:
      return undefined;
  }
}

function nameParts(t: Term): Value[] | undefined {
  if (t.type === "var") return t.name.split(".");
  if (t.type === "ref" && t.head.type === "var") {
    const rest = t.path.map(groundValue);
    if (rest.some((r) => typeof r !== "string")) return undefined;
    return [t.head.name, ...(rest as string[])];
  }
  return undefined;
}

const functionRef = (t: Term) => t.type === "var" || (t.type === "ref" && t.path.every((p) => p.type === "value"));

export function callName(t: Term): string {
  return nameParts(t)?.join(".") ?? "expression";
}

function isAssignable(t: Term): boolean {
  if (t.type === "var") return true;
  if (t.type === "array") return t.items.every((i) => isAssignable(i) || groundValue(i) !== undefined);
  if (t.type === "object") return t.items.every(([k, v]) => groundValue(k) !== undefined && (isAssignable(v) || groundValue(v) !== undefined));
  return false;
}

/** Variable names a pattern (array/object literal of vars) would bind. */
function patternVars(t: Term, out: string[] = []): string[] {
  if (t.type === "var" && t.name !== "_") out.push(t.name);
  else if (t.type === "array") for (const i of t.items) patternVars(i, out);
  else if (t.type === "object") for (const [, v] of t.items) patternVars(v, out);
  return out;
}

/** Names used at this body level (not inside nested bodies) and not declared with `:=` or `some`. */
function implicitVars(e: Expr, out: Set<string>): void {
  const term = (t: Term, callee = false): void => {
    switch (t.type) {
      case "var":
        if (!callee && t.name !== "_") out.add(t.name);
        return;
      case "ref":
        term(t.head);
        for (const p of t.path) term(p);
        return;
      case "array":
      case "set":
        for (const i of t.items) term(i);
        return;
      case "object":
        for (const [k, v] of t.items) (term(k), term(v));
        return;
      case "call":
        if (t.fn.type === "ref") for (const p of t.fn.path) term(p);
        for (const a of t.args) term(a);
        return;
      default:
        return;
    }
  };
  switch (e.type) {
    case "term":
      term(e.term);
      break;
    case "unify":
      term(e.left);
      term(e.right);
      break;
    case "assign":
      term(e.right);
      break;
    case "somein":
    case "every":
      term(e.domain);
      break;
    case "some":
    case "logic":
      break;
  }
  // A bare name after `as` may be a function replacing another: it declares nothing.
  for (const w of e.with) if (w.value.type !== "var") term(w.value);
}

export function collectSlots(t: Term, out: Set<number>): void {
  forEachVar(t, (v) => {
    if (v.slot !== undefined) out.add(v.slot);
  });
}

/** Visits variables of a term, including those of nested bodies. */
export function forEachVar(t: Term, f: (v: VarTerm) => void): void {
  switch (t.type) {
    case "var":
      f(t);
      return;
    case "ref":
      forEachVar(t.head, f);
      for (const p of t.path) forEachVar(p, f);
      return;
    case "array":
    case "set":
      for (const i of t.items) forEachVar(i, f);
      return;
    case "object":
      for (const [k, v] of t.items) (forEachVar(k, f), forEachVar(v, f));
      return;
    case "call":
      for (const a of t.args) forEachVar(a, f);
      return;
    case "arraycomp":
    case "setcomp":
      forEachVar(t.head, f);
      forEachBodyVar(t.body, f);
      return;
    case "objectcomp":
      forEachVar(t.key, f);
      forEachVar(t.value, f);
      forEachBodyVar(t.body, f);
      return;
    default:
      return;
  }
}

export function forEachBodyVar(body: Body, f: (v: VarTerm) => void): void {
  for (const e of body) forEachExprVar(e, f);
}

export function forEachExprVar(e: Expr, f: (v: VarTerm) => void): void {
  switch (e.type) {
    case "term":
      forEachVar(e.term, f);
      break;
    case "unify":
    case "assign":
      forEachVar(e.left, f);
      forEachVar(e.right, f);
      break;
    case "somein":
      if (e.key) forEachVar(e.key, f);
      forEachVar(e.value, f);
      forEachVar(e.domain, f);
      break;
    case "every":
      if (e.key) forEachVar(e.key, f);
      forEachVar(e.value, f);
      forEachVar(e.domain, f);
      forEachBodyVar(e.body, f);
      break;
    case "logic":
      for (const body of e.operands) forEachBodyVar(body, f);
      break;
    case "some":
      break;
  }
  for (const w of e.compiledWith ?? []) forEachVar(w.value, f);
}

// ---- whole-tree checks

function markRules(node: DocNode): boolean {
  node.isLeaf = node.complete.length > 0 || node.partial.length > 0 || node.functions.length > 0 || node.defaultRule !== undefined;
  // A package is a document even with no rules (an empty object), as in OPA.
  let has = node.isLeaf || node.isPackage;
  for (const [k, c] of node.children) {
    node.childAt[k] = c;
    has = markRules(c) || has;
  }
  node.hasRules = has;
  node.ruleChildren = [...node.children.values()].filter((c) => c.hasRules).sort((a, b) => compare(a.key, b.key));
  return has;
}

function rulesOf(node: DocNode): CompiledRule[] {
  return [...node.complete, ...node.partial, ...node.functions, ...(node.defaultRule ? [node.defaultRule] : [])];
}

/** A step of a data ref that is not constant: it may name any child. */
const ANY = Symbol("any key");

/**
 * Nodes whose rules a data ref may evaluate: a variable step may name any child, so each is followed with
 * the rest of the path (`data[x].allow` depends on the `allow` rules under each package, not on all rules).
 */
function dependencies(node: DocNode, path: (Value | typeof ANY)[], out: Set<DocNode>): void {
  const addSubtree = (n: DocNode) => {
    if (!n.hasRules) return;
    if (rulesOf(n).length) out.add(n);
    for (const c of n.children.values()) addSubtree(c);
  };
  for (let i = 0; i < path.length; i++) {
    if (node.partial.length) out.add(node);
    if (node.complete.length || node.defaultRule || node.functions.length) {
      out.add(node);
      return;
    }
    const key = path[i]!;
    if (key === ANY) {
      for (const child of node.children.values()) dependencies(child, path.slice(i + 1), out);
      return;
    }
    const next = node.children.get(keyOf(key));
    if (!next) return;
    node = next;
  }
  addSubtree(node);
}

/** Recursion is refused at compile time, as OPA does (rego_recursion_error). */
function checkRecursion(root: DocNode): void {
  const deps = new Map<DocNode, Set<DocNode>>();
  const nodeByFunction = new Map<string, DocNode>();
  const all: DocNode[] = [];
  const collect = (n: DocNode) => {
    if (!n.hasRules) return;
    if (rulesOf(n).length) all.push(n);
    if (n.isFunction) nodeByFunction.set(n.name, n);
    for (const c of n.children.values()) collect(c);
  };
  collect(root);
  for (const n of all) {
    const out = new Set<DocNode>();
    const visitTerm = (t: Term) => {
      walkTerms(t, (x) => {
        if (x.type === "ref" && x.head.type === "var" && x.head.name === "data" && x.head.slot === undefined) {
          dependencies(root, x.path.map((p) => groundValue(p) ?? ANY), out);
        } else if (x.type === "var" && x.name === "data" && x.slot === undefined) dependencies(root, [], out);
        else if (x.type === "call" && x.target?.kind === "function") {
          const f = nodeByFunction.get(x.target.path);
          if (f) out.add(f);
        }
      });
    };
    for (const r of rulesOf(n)) visitRuleTerms(r, visitTerm);
    deps.set(n, out);
  }
  const state = new Map<DocNode, "visiting" | "done">();
  const stack: DocNode[] = [];
  const visit = (n: DocNode) => {
    if (state.get(n) === "done") return;
    if (state.get(n) === "visiting") {
      const cycle = [...stack.slice(stack.indexOf(n)), n].map((x) => x.name).join(" -> ");
      const first = rulesOf(n)[0]!;
      fail(`rule ${n.name} is recursive: ${cycle}`, first.loc, "rego_recursion_error");
    }
    state.set(n, "visiting");
    stack.push(n);
    for (const d of deps.get(n) ?? []) visit(d);
    stack.pop();
    state.set(n, "done");
  };
  for (const n of all) visit(n);
}

/** Visits the top-level terms of a rule: arguments, head, bodies and else branches. */
function visitRuleTerms(r: CompiledRule, visit: (t: Term) => void): void {
  for (const t of [...r.args, ...r.keys, r.value]) visit(t);
  for (const e of r.body) walkExprTerms(e, visit);
  for (const e of r.elses) {
    visit(e.value);
    for (const x of e.body) walkExprTerms(x, visit);
  }
}

/** Visits every term (and sub-term) of an expression, nested bodies included. */
function walkExprTerms(e: Expr, f: (t: Term) => void): void {
  switch (e.type) {
    case "term":
      f(e.term);
      break;
    case "unify":
    case "assign":
      f(e.left);
      f(e.right);
      break;
    case "somein":
      if (e.key) f(e.key);
      f(e.value);
      f(e.domain);
      break;
    case "every":
      if (e.key) f(e.key);
      f(e.value);
      f(e.domain);
      for (const x of e.body) walkExprTerms(x, f);
      break;
    case "logic":
      for (const body of e.operands) for (const x of body) walkExprTerms(x, f);
      break;
    case "some":
      break;
  }
  for (const w of e.compiledWith ?? []) {
    f(w.value);
  }
}

function walkTerms(t: Term, f: (t: Term) => void): void {
  f(t);
  switch (t.type) {
    case "ref":
      if (t.head.type !== "var") walkTerms(t.head, f);
      for (const p of t.path) walkTerms(p, f);
      return;
    case "array":
    case "set":
      for (const i of t.items) walkTerms(i, f);
      return;
    case "object":
      for (const [k, v] of t.items) (walkTerms(k, f), walkTerms(v, f));
      return;
    case "call":
      for (const a of t.args) walkTerms(a, f);
      return;
    case "arraycomp":
    case "setcomp":
      walkTerms(t.head, f);
      for (const e of t.body) walkExprTerms(e, (x) => walkTerms(x, f));
      return;
    case "objectcomp":
      walkTerms(t.key, f);
      walkTerms(t.value, f);
      for (const e of t.body) walkExprTerms(e, (x) => walkTerms(x, f));
      return;
    default:
      return;
  }
}
