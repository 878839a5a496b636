import { BuiltinError } from "../values/errors.ts";
import { parseNumber } from "../values/numbers.ts";
import { isNumber, RObject, RSet, typeName } from "../values/values.ts";
import { builtin, operandError } from "./builtin.ts";

export const typeBuiltins = [
  builtin("is_string", 1, ([v]) => typeof v === "string"),
  builtin("is_number", 1, ([v]) => isNumber(v!)),
  builtin("is_boolean", 1, ([v]) => typeof v === "boolean"),
  builtin("is_array", 1, ([v]) => Array.isArray(v)),
  builtin("is_set", 1, ([v]) => v instanceof RSet),
  builtin("is_object", 1, ([v]) => v instanceof RObject),
  builtin("is_null", 1, ([v]) => v === null),
  builtin("type_name", 1, ([v]) => typeName(v!)),
  builtin("to_number", 1, ([v]) => {
    if (v === null) return 0;
    if (typeof v === "boolean") return v ? 1 : 0;
    if (isNumber(v!)) return v;
    if (typeof v === "string") {
      // Go's ParseFloat reads NaN and infinities; OPA refuses them as a type error.
      if (/^[+-]?(nan|inf|infinity)$/i.test(v)) throw new BuiltinError(`operand 1 must be a valid number string but got ${JSON.stringify(v)}`, "type");
      const n = parseNumber(v.trim() === v ? v : "");
      if (n === undefined) throw new BuiltinError(`invalid syntax: ${JSON.stringify(v)}`);
      return n;
    }
    throw operandError(0, "one of {null, boolean, number, string}", v!);
  }),
];
