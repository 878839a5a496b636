import type { Body, Expr, Term } from "../syntax/ast.ts";
import { RegoError } from "../values/errors.ts";

/**
 * Orders a body so every expression runs once the variables it reads are bound (Rego lets a policy
 * use a variable before the expression that binds it). An expression whose inputs can never be bound
 * is an unsafe-variable compile error, as in OPA.
 */
export function orderBody(body: Body, bound: Set<number>, names: string[]): { body: Body; bound: Set<number> } {
  const infos = body.map((e) => classify(e));
  for (const [n, e] of body.entries()) {
    if (!e.negated) continue;
    // A negated expression binds nothing; it waits for the variables other expressions bind.
    const info = infos[n]!;
    const others = outputsOfOthers(infos, n);
    for (const o of info.outputs) if (others.has(o)) info.inputs.add(o);
    info.outputs.clear();
  }
  const remaining = body.map((e, i) => ({ e, info: infos[i]! }));
  const ordered: Body = [];
  const now = new Set(bound);
  while (remaining.length) {
    const idx = remaining.findIndex(({ info }) => [...info.inputs].every((s) => now.has(s)));
    if (idx < 0) {
      const { e, info } = remaining[0]!;
      const slot = [...info.inputs].find((s) => !now.has(s))!;
      throw new RegoError("rego_unsafe_var_error", `var ${names[slot]} is unsafe`, e.loc);
    }
    const { e, info } = remaining.splice(idx, 1)[0]!;
    ordered.push(orderNested(e, now, names));
    for (const o of info.outputs) now.add(o);
  }
  return { body: ordered, bound: now };
}

function outputsOfOthers(infos: { outputs: Set<number> }[], except: number): Set<number> {
  const out = new Set<number>();
  infos.forEach((info, i) => {
    if (i !== except) for (const o of info.outputs) out.add(o);
  });
  return out;
}

/** Orders the bodies nested in a term (comprehensions) given the variables bound around it. */
export function orderTerm(t: Term, bound: Set<number>, names: string[]): Term {
  switch (t.type) {
    case "ref":
      return { ...t, head: orderTerm(t.head, bound, names), path: t.path.map((p) => orderTerm(p, bound, names)) };
    case "array":
    case "set":
      return { ...t, items: t.items.map((i) => orderTerm(i, bound, names)) };
    case "object":
      return { ...t, items: t.items.map(([k, v]) => [orderTerm(k, bound, names), orderTerm(v, bound, names)] as [Term, Term]) };
    case "call":
      return { ...t, args: t.args.map((a) => orderTerm(a, bound, names)) };
    case "arraycomp":
    case "setcomp": {
      const inner = orderBody(t.body, bound, names);
      return { ...t, body: inner.body, head: orderTerm(t.head, inner.bound, names) };
    }
    case "objectcomp": {
      const inner = orderBody(t.body, bound, names);
      return { ...t, body: inner.body, key: orderTerm(t.key, inner.bound, names), value: orderTerm(t.value, inner.bound, names) };
    }
    default:
      return t;
  }
}

function orderNested(e: Expr, bound: Set<number>, names: string[]): Expr {
  const term = (t: Term) => orderTerm(t, bound, names);
  const compiledWith = e.compiledWith?.map((w) => ({ ...w, value: term(w.value) }));
  switch (e.type) {
    case "term":
      return { ...e, term: term(e.term), compiledWith };
    case "unify":
    case "assign":
      return { ...e, left: term(e.left), right: term(e.right), compiledWith };
    case "somein":
      return { ...e, domain: term(e.domain), compiledWith };
    case "every": {
      const inner = new Set(bound);
      for (const t of e.key ? [e.key, e.value] : [e.value]) collectPattern(t, inner);
      return { ...e, domain: term(e.domain), body: orderBody(e.body, inner, names).body, compiledWith };
    }
    case "logic":
      return { ...e, operands: e.operands.map((body) => orderBody(body, new Set(bound), names).body), compiledWith };
    case "some":
      return e;
  }
}

function collectPattern(t: Term, out: Set<number>): void {
  if (t.type === "var" && t.slot !== undefined) out.add(t.slot);
  else if (t.type === "array") for (const i of t.items) collectPattern(i, out);
  else if (t.type === "object") for (const [, v] of t.items) collectPattern(v, out);
}

interface Info {
  inputs: Set<number>;
  outputs: Set<number>;
}

/** Variables a term reads (those in iteration positions, like `xs[i]`, it binds itself). */
export function termInputs(t: Term): Set<number> {
  const info = classify({ type: "term", term: t, negated: false, with: [], loc: t.loc });
  return info.inputs;
}

function classify(e: Expr): Info {
  const info: Info = { inputs: new Set(), outputs: new Set() };
  const walk = (t: Term, out: boolean): void => {
    switch (t.type) {
      case "var":
        if (t.slot !== undefined) (out ? info.outputs : info.inputs).add(t.slot);
        return;
      case "value":
        return;
      case "ref":
        walk(t.head, false);
        for (const p of t.path) walk(p, true);
        return;
      case "array":
        for (const i of t.items) walk(i, out);
        return;
      case "object":
        for (const [k, v] of t.items) (walk(k, false), walk(v, out));
        return;
      case "set":
        for (const i of t.items) walk(i, false);
        return;
      case "call":
        for (const a of t.args) walk(a, false);
        return;
      case "arraycomp":
      case "setcomp":
      case "objectcomp":
        closures(t, t.firstLocal ?? 0);
        return;
    }
  };
  const closures = (t: Term, firstLocal: number) => {
    visitVars(t, (slot) => {
      if (slot < firstLocal) info.inputs.add(slot);
    });
  };
  switch (e.type) {
    case "term": {
      const t = e.term;
      if (t.type === "call" && t.target && t.args.length === t.target.arity + 1) {
        t.args.forEach((a, i) => walk(a, i === t.args.length - 1));
      } else walk(t, false);
      break;
    }
    case "unify":
    case "assign":
      walk(e.left, true);
      walk(e.right, true);
      break;
    case "somein":
      walk(e.domain, false);
      if (e.key) walk(e.key, true);
      walk(e.value, true);
      break;
    case "every":
      walk(e.domain, false);
      for (const x of e.body) visitExprVars(x, (slot) => slot < (e.firstLocal ?? 0) && info.inputs.add(slot));
      break;
    case "logic":
      // Like `not`: reads the outer variables its operands use, binds none.
      for (const body of e.operands) for (const x of body) visitExprVars(x, (slot) => slot < (e.firstLocal ?? 0) && info.inputs.add(slot));
      break;
    case "some":
      break;
  }
  for (const w of e.compiledWith ?? []) walk(w.value, false);
  for (const o of info.outputs) info.inputs.delete(o);
  return info;
}

function visitVars(t: Term, f: (slot: number) => void): void {
  switch (t.type) {
    case "var":
      if (t.slot !== undefined) f(t.slot);
      return;
    case "value":
      return;
    case "ref":
      visitVars(t.head, f);
      for (const p of t.path) visitVars(p, f);
      return;
    case "array":
    case "set":
      for (const i of t.items) visitVars(i, f);
      return;
    case "object":
      for (const [k, v] of t.items) (visitVars(k, f), visitVars(v, f));
      return;
    case "call":
      for (const a of t.args) visitVars(a, f);
      return;
    case "arraycomp":
    case "setcomp":
      visitVars(t.head, f);
      for (const e of t.body) visitExprVars(e, f);
      return;
    case "objectcomp":
      visitVars(t.key, f);
      visitVars(t.value, f);
      for (const e of t.body) visitExprVars(e, f);
      return;
  }
}

function visitExprVars(e: Expr, f: (slot: number) => void): void {
  switch (e.type) {
    case "term":
      visitVars(e.term, f);
      break;
    case "unify":
    case "assign":
      visitVars(e.left, f);
      visitVars(e.right, f);
      break;
    case "somein":
      if (e.key) visitVars(e.key, f);
      visitVars(e.value, f);
      visitVars(e.domain, f);
      break;
    case "every":
      if (e.key) visitVars(e.key, f);
      visitVars(e.value, f);
      visitVars(e.domain, f);
      for (const x of e.body) visitExprVars(x, f);
      break;
    case "logic":
      for (const body of e.operands) for (const x of body) visitExprVars(x, f);
      break;
    case "some":
      break;
  }
  for (const w of e.compiledWith ?? []) visitVars(w.value, f);
}
