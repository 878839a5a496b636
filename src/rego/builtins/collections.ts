import { BuiltinError } from "../values/errors.ts";
import { equal, isCollection, lookup, RObject, RSet, type Value } from "../values/values.ts";
import { arr, builtin, int, obj, operandError } from "./builtin.ts";

/** Keys to remove or keep: given as an array, a set or an object's keys. */
function keySet(args: Value[], i: number): RSet {
  const v = args[i]!;
  if (Array.isArray(v)) return RSet.of(v);
  if (v instanceof RSet) return v;
  if (v instanceof RObject) return RSet.of(v.entries().map(([k]) => k));
  throw operandError(i, "one of {object, set, array}", v);
}

/** object.union: right wins, nested objects merge recursively. */
function merge(a: RObject, b: RObject): RObject {
  const out = a.copy();
  for (const [k, v] of b.entries()) {
    const prev = out.get(k);
    out.set(k, prev instanceof RObject && v instanceof RObject ? merge(prev, v) : v);
  }
  return out;
}

function objectGet(o: RObject, key: Value, fallback: Value): Value {
  if (!Array.isArray(key)) return o.get(key) ?? fallback;
  let cur: Value = o;
  for (const k of key) {
    if (!isCollection(cur)) return fallback;
    const next = lookup(cur, k);
    if (next === undefined) return fallback;
    cur = next;
  }
  return cur;
}

/**
 * object.subset: every key of `sub` in `sup` with a value equal or (both objects, sets or arrays) itself a
 * subset; a set within a set; an array a contiguous run of the other; a set's members all in an array.
 * Undefined for any other pair of types.
 */
function subset(sup: Value, sub: Value): boolean | undefined {
  if (sup instanceof RObject && sub instanceof RObject)
    return sub.entries().every(([k, v]) => {
      const w = sup.get(k);
      return w !== undefined && (equal(w, v) || subset(w, v) === true);
    });
  if (sup instanceof RSet && sub instanceof RSet) return sub.values().every((v) => sup.has(v));
  if (Array.isArray(sup) && Array.isArray(sub)) {
    if (sub.length > sup.length) return false;
    for (let at = 0; at + sub.length <= sup.length; at++) if (sub.every((v, i) => equal(v, sup[at + i]!))) return true;
    return false;
  }
  if (Array.isArray(sup) && sub instanceof RSet) return sub.values().every((v) => sup.some((w) => equal(v, w)));
  return undefined;
}

export const collectionBuiltins = [
  builtin("array.concat", 2, (args) => [...arr(args, 0), ...arr(args, 1)]),
  builtin("array.slice", 3, (args) => {
    const a = arr(args, 0);
    const start = Math.max(0, int(args, 1));
    const stop = Math.min(a.length, int(args, 2));
    return start >= stop ? [] : a.slice(start, stop);
  }),
  builtin("array.reverse", 1, (args) => [...arr(args, 0)].reverse()),
  builtin("array.flatten", 1, (args) => arr(args, 0).flatMap((x) => (Array.isArray(x) ? x : [x]))),
  builtin("object.get", 3, (args) => objectGet(obj(args, 0), args[1]!, args[2]!)),
  builtin("object.keys", 1, (args) => RSet.of(obj(args, 0).entries().map(([k]) => k))),
  builtin("object.union", 2, (args) => merge(obj(args, 0), obj(args, 1))),
  builtin("object.union_n", 1, (args) =>
    arr(args, 0).reduce<RObject>((acc, o) => {
      if (!(o instanceof RObject)) throw operandError(0, "array of objects", args[0]!);
      return merge(acc, o);
    }, new RObject()),
  ),
  builtin("object.remove", 2, (args) => {
    const o = obj(args, 0);
    const drop = keySet(args, 1);
    return RObject.of(o.entries().filter(([k]) => !drop.has(k)));
  }),
  builtin("object.filter", 2, (args) => {
    const o = obj(args, 0);
    const keep = keySet(args, 1);
    return RObject.of(o.entries().filter(([k]) => keep.has(k)));
  }),
  builtin("object.subset", 2, (args) => {
    const result = subset(args[0]!, args[1]!);
    if (result === undefined) throw new BuiltinError("both arguments object.subset must be of the same type or array and set");
    return result;
  }),
];
