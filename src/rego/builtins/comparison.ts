import { compare, equal, isCollection, lookup, RObject, RSet, type Value } from "../values/values.ts";
import { builtin, operator } from "./builtin.ts";

/** `in` membership: values of arrays and objects, members of sets; false for anything else. */
function member(x: Value, coll: Value): boolean {
  if (Array.isArray(coll)) {
    for (let i = 0; i < coll.length; i++) if (equal(coll[i]!, x)) return true;
    return false;
  }
  if (coll instanceof RSet) return coll.has(x);
  if (coll instanceof RObject) return coll.some((_, v) => equal(v, x));
  return false;
}

export const comparisonBuiltins = [
  operator("equal", equal),
  operator("neq", (a, b) => !equal(a, b)),
  operator("lt", (a, b) => compare(a, b) < 0),
  operator("lte", (a, b) => compare(a, b) <= 0),
  operator("gt", (a, b) => compare(a, b) > 0),
  operator("gte", (a, b) => compare(a, b) >= 0),
  operator("internal.member_2", member),
  builtin("internal.member_3", 3, ([k, v, coll]) => {
    if (!isCollection(coll!)) return false;
    const found = lookup(coll!, k!);
    return found !== undefined && equal(found, v!);
  }),
];
