/** JSON text to and from Rego values, numbers exact both ways (`1e400`, integers beyond a double). */
import { RegoError } from "./errors.ts";
import { parseNumber } from "./numbers.ts";
import { fromJS, type Value } from "./values.ts";

const LONG_NUMBER = /\d{16}|\d[eE]/;

/**
 * Parses JSON text keeping every number as written (JSON.parse with the source text of each number).
 * Malformed text or a number past the engine's range is an `invalid_input` RegoError.
 */
export function parseJSON(text: string, maxDepth?: number): Value {
  // Numbers of up to 15 digits and no exponent are exact as doubles: most documents take the fast parse.
  if (!LONG_NUMBER.test(text)) {
    try {
      return fromJS(JSON.parse(text), { maxDepth });
    } catch (e) {
      if (e instanceof RegoError) throw e;
      throw new RegoError("invalid_input", e instanceof Error ? e.message : String(e));
    }
  }
  const exact = (_key: string, value: unknown, context?: { source?: string }) => {
    if (typeof value !== "number" || !context?.source) return value;
    const n = parseNumber(context.source);
    if (n === undefined) throw new RegoError("invalid_input", `invalid number: ${context.source}`);
    return n;
  };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, exact);
  } catch (e) {
    if (e instanceof RegoError) throw e;
    throw new RegoError("invalid_input", e instanceof Error ? e.message : String(e));
  }
  return fromJS(parsed, { maxDepth });
}
