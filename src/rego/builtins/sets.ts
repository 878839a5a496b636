import { RSet, type Value } from "../values/values.ts";
import { builtin, operandError, set } from "./builtin.ts";

function setOfSets(args: Value[]): RSet[] {
  return set(args, 0)
    .values()
    .map((s) => {
      if (!(s instanceof RSet)) throw operandError(0, "set of sets", args[0]!);
      return s;
    });
}

const intersect = (a: RSet, b: RSet) => RSet.of(a.values().filter((v) => b.has(v)));

export const setBuiltins = [
  builtin("or", 2, (args) => RSet.of([...set(args, 0).values(), ...set(args, 1).values()])),
  builtin("and", 2, (args) => intersect(set(args, 0), set(args, 1))),
  builtin("union", 1, (args) => RSet.of(setOfSets(args).flatMap((s) => s.values()))),
  builtin("intersection", 1, (args) => {
    const sets = setOfSets(args);
    return sets.length ? sets.reduce(intersect) : new RSet();
  }),
];
