/** Terms compiled into closures: each has a direct value when its variables are bound, and a general walk. */
import type { Term } from "../syntax/ast.ts";
import { forEachVar } from "../plan/compiler.ts";
import type { DocNode } from "../plan/tree.ts";
import { keyConflictError } from "../values/errors.ts";
import { equal, RObject, RSet, type Value } from "../values/values.ts";
import { callSite, invoker } from "./calls.ts";
import type { CTerm, Each, Match, One, Operand } from "./closures.ts";
import { bind, type Run, type Vals, type VK } from "./evaluator.ts";
import { late } from "./late.ts";
import { CLOSURE, CONSTANT, cterm, eachOf, fetch, fetchAll, never, operand, PATH, SLOT, union, unsafe, withGeneral } from "./operands.ts";
import { docPath, reference } from "./refs.ts";

export function compileTerm(t: Term, root: DocNode): CTerm {
  switch (t.type) {
    case "value":
      return constant(t);
    case "var": {
      const slot = t.slot;
      if (slot !== undefined) {
        const one: One = (_run, vals) => vals[slot];
        const each: Each = (_run, vals, k) => {
          const v = vals[slot];
          if (v === undefined) throw unsafe(t.name, t.loc);
          return k(v);
        };
        return cterm(t, [slot], one, each, operand(SLOT, one, undefined, slot));
      }
      if (t.name === "input") {
        const one: One = (run) => run.ctx.input;
        return cterm(t, [], one, (run, _vals, k) => (run.ctx.input === undefined ? false : k(run.ctx.input)), operand(PATH, one));
      }
      const whole = docPath([], root);
      return cterm(t, false, never, (run, vals, k) => late.walkDoc(run, run.tree, run.ctx.data, whole, 0, vals, k), operand(CLOSURE, never));
    }
    case "ref":
      return reference(t, root);
    case "call": {
      const args = t.args.map((a) => compileTerm(a, root));
      const invoke = invoker(t.target!, t.loc);
      const all = eachOf(args);
      if (t.target!.kind === "builtin" && t.target!.builtin.relation)
        // A relation (walk) has a value per result: the term iterates them.
        return cterm(t, false, never, (run, vals, k) => all(run, vals, (values) => {
          const results = invoke(run, values);
          return Array.isArray(results) && results.some(k);
        }), operand(CLOSURE, never));
      return withGeneral(t, union(args), callSite(t.target!, args, t.loc), (run, vals, k) =>
        all(run, vals, (values) => {
          const r = invoke(run, values);
          return r === undefined ? false : k(r);
        }),
      );
    }
    case "array": {
      const items = t.items.map((i) => compileTerm(i, root));
      const all = eachOf(items);
      return withGeneral(t, union(items), oneArray(items), (run, vals, k) => all(run, vals, k));
    }
    case "set": {
      const items = t.items.map((i) => compileTerm(i, root));
      const array = oneArray(items);
      const all = eachOf(items);
      return withGeneral(
        t,
        union(items),
        (run, vals) => {
          const xs = array(run, vals);
          return xs && RSet.of(xs as Value[]);
        },
        (run, vals, k) => all(run, vals, (xs) => k(RSet.of(xs))),
      );
    }
    case "object":
      return objectTerm(t, t.items.map(([key, value]) => [compileTerm(key, root), compileTerm(value, root)] as const));
    case "arraycomp": {
      const body = late.compileBody(t.body, root).goal;
      const head = compileTerm(t.head, root);
      return comprehension(t, (run, vals) => {
        const out: Value[] = [];
        body(run, vals, () => head.each(run, vals, (v) => (out.push(v), false)));
        return out;
      });
    }
    case "setcomp": {
      const body = late.compileBody(t.body, root).goal;
      const head = compileTerm(t.head, root);
      return comprehension(t, (run, vals) => {
        const out = new RSet();
        body(run, vals, () => head.each(run, vals, (v) => (out.add(v), false)));
        return out;
      });
    }
    case "objectcomp": {
      const body = late.compileBody(t.body, root).goal;
      const key = compileTerm(t.key, root);
      const value = compileTerm(t.value, root);
      return comprehension(t, (run, vals) => {
        const out = new RObject();
        body(run, vals, () =>
          key.each(run, vals, (kv) =>
            value.each(run, vals, (v) => {
              const prev = out.get(kv);
              if (prev !== undefined && !equal(prev, v)) throw keyConflictError(t.loc);
              out.set(kv, v);
              return false;
            }),
          ),
        );
        return out;
      });
    }
  }
}

function constant(t: Term & { type: "value" }): CTerm {
  const value = t.value;
  const one: One = () => value;
  return cterm(t, [], one, (_run, _vals, k) => k(value), operand(CONSTANT, one, value));
}

/** A comprehension has exactly one value: it is built directly once the variables it closes over are bound. */
function comprehension(t: Term & { firstLocal?: number }, build: (run: Run, vals: Vals) => Value): CTerm {
  const first = t.firstLocal ?? 0;
  const needs: number[] = [];
  forEachVar(t, (v) => {
    if (v.slot !== undefined && v.slot < first && !needs.includes(v.slot)) needs.push(v.slot);
  });
  return withGeneral(t, needs, build, (run, vals, k) => k(build(run, vals)));
}

/** The values of terms evaluated directly, or undefined when one has none. */
function oneArray(items: readonly CTerm[]): (run: Run, vals: Vals) => Value[] | undefined {
  const ops = items.map((i) => i.operand);
  return (run, vals) => fetchAll(ops, run, vals);
}

function objectTerm(t: Term, items: (readonly [CTerm, CTerm])[]): CTerm {
  const n = items.length;
  const needs = union(items.flat());
  const keys = items.map(([kt]) => (kt.term.type === "value" && typeof kt.term.value === "string" ? kt.term.value : undefined));
  const one: One = keys.every((k) => k !== undefined) ? sortedObject(keys as string[], items.map(([, vt]) => vt.operand)) : (run, vals) => {
    const o = new RObject();
    for (let i = 0; i < n; i++) {
      const [kt, vt] = items[i]!;
      const key = fetch(kt.operand, run, vals);
      const value = key === undefined ? undefined : fetch(vt.operand, run, vals);
      if (value === undefined) return undefined;
      o.set(key!, value);
    }
    return o;
  };
  const from = (run: Run, vals: Vals, i: number, acc: RObject, k: VK): boolean => {
    if (i === n) return k(acc.copy());
    const [kt, vt] = items[i]!;
    return kt.each(run, vals, (key) =>
      vt.each(run, vals, (v) => {
        acc.set(key, v);
        const r = from(run, vals, i + 1, acc, k);
        acc.delete(key);
        return r;
      }),
    );
  };
  return withGeneral(t, needs, one, (run, vals, k) => from(run, vals, 0, new RObject(), k));
}

/**
 * An object literal with constant string keys (the usual kind): values evaluated in source order, then
 * inserted in key order, so the object never needs sorting when it is iterated or converted.
 */
function sortedObject(keys: string[], values: Operand[]): One {
  const n = keys.length;
  const order = keys.map((_, i) => i).sort((a, b) => (keys[a]! < keys[b]! ? -1 : keys[a]! > keys[b]! ? 1 : a - b));
  return (run, vals) => {
    const got = new Array<Value>(n);
    for (let i = 0; i < n; i++) {
      const v = fetch(values[i]!, run, vals);
      if (v === undefined) return undefined;
      got[i] = v;
    }
    const o = new RObject();
    for (let i = 0; i < n; i++) o.set(keys[order[i]!]!, got[order[i]!]!);
    return o;
  };
}

// ---- patterns

/** `compiled`: the term already compiled, when the caller has it. */
export function compileMatch(t: Term, root: DocNode, compiled?: CTerm): Match {
  switch (t.type) {
    case "value": {
      const c = t.value;
      return (_run, _vals, v, k) => (equal(c, v) ? k() : false);
    }
    case "var":
      if (t.slot !== undefined) {
        const slot = t.slot;
        return (_run, vals, v, k) => {
          const cur = vals[slot];
          if (cur === undefined) return bind(vals, slot, v, k);
          return equal(cur, v) ? k() : false;
        };
      }
      break;
    case "array": {
      const items = t.items.map((i) => compileMatch(i, root));
      const n = items.length;
      return (run, vals, v, k) => {
        if (!Array.isArray(v) || v.length !== n) return false;
        const from = (i: number): boolean => (i === n ? k() : items[i]!(run, vals, v[i]!, () => from(i + 1)));
        return from(0);
      };
    }
    case "object": {
      const items = t.items.map(([key, value]) => [compileTerm(key, root), compileMatch(value, root)] as const);
      const n = items.length;
      return (run, vals, v, k) => {
        if (!(v instanceof RObject) || v.size !== n) return false;
        const from = (i: number): boolean => {
          if (i === n) return k();
          const [key, value] = items[i]!;
          return key.each(run, vals, (kv) => {
            const x = v.get(kv);
            return x === undefined ? false : value(run, vals, x, () => from(i + 1));
          });
        };
        return from(0);
      };
    }
  }
  const term = compiled ?? compileTerm(t, root);
  return (run, vals, v, k) => term.each(run, vals, (x) => (equal(x, v) ? k() : false));
}

late.compileTerm = compileTerm;
late.compileMatch = compileMatch;
