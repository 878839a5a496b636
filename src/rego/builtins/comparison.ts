import { compare, equal, isCollection, iterate, lookup, type Value } from "../values.ts";
import { builtin } from "./builtin.ts";

/** `in` membership: values of arrays and objects, members of sets; false for anything else. */
function member(x: Value, coll: Value): boolean {
  if (!isCollection(coll)) return false;
  return iterate(coll, (_, v) => equal(v, x));
}

export const comparisonBuiltins = [
  builtin("equal", 2, ([a, b]) => equal(a!, b!)),
  builtin("neq", 2, ([a, b]) => !equal(a!, b!)),
  builtin("lt", 2, ([a, b]) => compare(a!, b!) < 0),
  builtin("lte", 2, ([a, b]) => compare(a!, b!) <= 0),
  builtin("gt", 2, ([a, b]) => compare(a!, b!) > 0),
  builtin("gte", 2, ([a, b]) => compare(a!, b!) >= 0),
  builtin("internal.member_2", 2, ([x, coll]) => member(x!, coll!)),
  builtin("internal.member_3", 3, ([k, v, coll]) => {
    if (!isCollection(coll!)) return false;
    const found = lookup(coll!, k!);
    return found !== undefined && equal(found, v!);
  }),
];
