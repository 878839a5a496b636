import type { RefTerm } from "../syntax/ast.ts";
import type { DocNode } from "../plan/tree.ts";
import { bind, type Run, type Vals, type VK } from "./evaluator.ts";
import type { CTerm, DocPath, One, Walk } from "./closures.ts";
import { late } from "./late.ts";
import { CLOSURE, cterm, DATA, fetch, never, operand, PATH, patternTest, RULE, union, unsafe, withGeneral } from "./operands.ts";
import { iterate, keyOf, lookup, type Value } from "../values/values.ts";

/**
 * A ref compiled into closures: below a variable or `input` it looks its value up step by step; a data ref
 * reads the complete rule it names, or the data document when no rule is on its path, or walks the tree
 * of rules. Steps that iterate (unbound variables, patterns) take the continuation-passing walk.
 */
export function reference(t: RefTerm, root: DocNode): CTerm {
  const path = t.path.map((p) => late.compileTerm(p, root));
  // The walks serve only refs that iterate (or a data ref under `with`): built on first use.
  let built: Walk[] | undefined;
  const walks = (i: number) => (built ??= walkers(path, root))[i]!;
  const head = t.head;
  // Each step is a key once its own term is direct (a constant, a bound variable, a call, a ref...).
  const pathNeeds = head.type === "var" ? union(path) : false;
  if (head.type !== "var") {
    const h = late.compileTerm(head, root);
    return cterm(t, false, never, (run, vals, k) => h.each(run, vals, (v) => walks(0)(run, vals, v, k)), operand(CLOSURE, never));
  }
  const rest = pathNeeds === false ? undefined : lookups(path);
  const constantKeys = path.every((p) => p.term.type === "value") ? path.map((p) => (p.term as { value: Value }).value) : undefined;
  if (head.slot !== undefined) {
    const slot = head.slot;
    const needs = pathNeeds && (pathNeeds.includes(slot) ? pathNeeds : [slot, ...pathNeeds]);
    const one: One = (run, vals) => rest!(run, vals, vals[slot]!, 0);
    return withGeneral(
      t,
      needs,
      one,
      (run, vals, k) => {
        const v = vals[slot];
        if (v === undefined) throw unsafe(head.name, head.loc);
        return walks(0)(run, vals, v, k);
      },
      constantKeys ? operand(PATH, one, undefined, slot, constantKeys) : undefined,
    );
  }
  if (head.name === "input") {
    const one: One = (run, vals) => {
      const input = run.ctx.input;
      return input === undefined ? undefined : rest!(run, vals, input, 0);
    };
    return withGeneral(
      t,
      pathNeeds,
      one,
      (run, vals, k) => (run.ctx.input === undefined ? false : walks(0)(run, vals, run.ctx.input, k)),
      constantKeys ? operand(PATH, one, undefined, -1, constantKeys) : undefined,
    );
  }
  // A data ref: read from the rule it names, from the data document when no rule is on its path,
  // or by walking the tree (under `with data...`, or through partial rules).
  let doc: DocPath | undefined;
  const link = linkRef(t, root);
  const walkTree = (run: Run, vals: Vals, k: VK) => late.walkDoc(run, run.tree, run.ctx.data, (doc ??= docPath(path, root)), 0, vals, k);
  if (link === "data") {
    const one: One = (run, vals) => rest!(run, vals, run.ctx.data, 0);
    return withGeneral(
      t,
      pathNeeds,
      one,
      (run, vals, k) => walks(0)(run, vals, run.ctx.data, k),
      constantKeys ? operand(DATA, one, undefined, -1, constantKeys) : undefined,
    );
  }
  const viaTree: One = (run, vals) => {
    let v: Value | undefined;
    walkTree(run, vals, (x) => ((v = x), true));
    return v;
  };
  if (link === undefined) return withGeneral(t, pathNeeds, viaTree, walkTree);
  const { node, depth } = link;
  const one: One = (run, vals) => {
    if (run.ctx.overridden) return viaTree(run, vals);
    const v = late.docValue(run, node, undefined);
    return v === undefined ? undefined : rest!(run, vals, v, depth);
  };
  return withGeneral(
    t,
    pathNeeds,
    one,
    (run, vals, k) => {
      if (run.ctx.overridden) return walkTree(run, vals, k);
      const v = late.docValue(run, node, undefined);
      return v === undefined ? false : walks(depth)(run, vals, v, k);
    },
    constantKeys ? operand(RULE, one, undefined, -1, constantKeys.slice(depth), node) : undefined,
  );
}

/**
 * Where a data ref's constant prefix leads: to a complete rule (read its value, then the rest of the
 * path), past all rules ("data": a plain lookup in the data document), or neither (walk the tree).
 */
function linkRef(t: RefTerm, root: DocNode): { node: DocNode; depth: number } | "data" | undefined {
  let node = root;
  for (let i = 0; i < t.path.length; i++) {
    const p = t.path[i]!;
    if (p.type !== "value") return undefined;
    const next = node.children.get(keyOf(p.value));
    if (!next?.hasRules) return "data";
    node = next;
    if (node.complete.length || node.defaultRule?.kind === "complete") return { node, depth: i + 1 };
    if (node.partial.length || node.isFunction) return undefined;
  }
  return undefined;
}

/** Looks a value up along ready path steps from `from` on (each step's term gives the key). */
function lookups(path: readonly CTerm[]): (run: Run, vals: Vals, v: Value, from: number) => Value | undefined {
  const keys = path.map((p) => p.operand);
  const n = path.length;
  return (run, vals, v, from) => {
    let x: Value | undefined = v;
    for (let i = from; i < n && x !== undefined; i++) {
      const key = fetch(keys[i]!, run, vals);
      x = key === undefined ? undefined : lookup(x, key);
    }
    return x;
  };
}

export function docPath(path: readonly CTerm[], root: DocNode): DocPath {
  return {
    keys: path.map((p) => (p.term.type === "value" ? p.term.value : undefined)),
    constant: path.map((p) => p.term.type === "value"),
    slots: path.map((p) => (p.term.type === "var" && p.term.slot !== undefined ? p.term.slot : -1)),
    walks: walkers(path, root),
  };
}

const end: Walk = (_run, _vals, v, k) => k(v);

const lookupStep =
  (key: Value, next: Walk): Walk =>
  (run, vals, v, k) => {
    const x = lookup(v, key);
    return x === undefined ? false : next(run, vals, x, k);
  };

/** walks[i] continues a ref from step i: constants look up, unbound variables iterate, other terms evaluate. */
function walkers(path: readonly CTerm[], root: DocNode): Walk[] {
  const walks: Walk[] = new Array(path.length + 1);
  walks[path.length] = end;
  for (let i = path.length - 1; i >= 0; i--) walks[i] = walkStep(path[i]!, walks[i + 1]!, root);
  return walks;
}

function walkStep(p: CTerm, next: Walk, root: DocNode): Walk {
  const t = p.term;
  if (t.type === "value") return lookupStep(t.value, next);
  if (t.type === "var" && t.slot !== undefined) {
    const slot = t.slot;
    return (run, vals, v, k) => {
      const key = vals[slot];
      if (key !== undefined) {
        const x = lookup(v, key);
        return x === undefined ? false : next(run, vals, x, k);
      }
      return iterate(v, (kv, x) => bind(vals, slot, kv, () => next(run, vals, x, k)));
    };
  }
  const isPattern = patternTest(t);
  const match = late.compileMatch(t, root);
  return (run, vals, v, k) => {
    if (isPattern(vals)) return iterate(v, (kv, x) => match(run, vals, kv, () => next(run, vals, x, k)));
    return p.each(run, vals, (key) => {
      const x = lookup(v, key);
      return x === undefined ? false : next(run, vals, x, k);
    });
  };
}

