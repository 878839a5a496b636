import { RSet } from "../values/values.ts";
import type { Builtin } from "../syntax/builtin.ts";
import { aggregateBuiltins } from "./aggregates.ts";
import { arithmeticBuiltins } from "./arithmetic.ts";
import { collectionBuiltins } from "./collections.ts";
import { comparisonBuiltins } from "./comparison.ts";
import { encodingBuiltins } from "./encoding.ts";
import { patternBuiltins } from "./patterns.ts";
import { setBuiltins } from "./sets.ts";
import { stringBuiltins } from "./strings.ts";
import { timeBuiltins } from "./time.ts";
import { typeBuiltins } from "./types.ts";
import { unitBuiltins } from "./units.ts";
import { bitsBuiltins } from "./bits.ts";
import { cryptoBuiltins } from "./crypto.ts";
import { graphBuiltins } from "./graphs.ts";
import { graphqlBuiltins } from "./graphql.ts";
import { httpBuiltins } from "./http.ts";
import { jsonBuiltins } from "./json.ts";
import { jwtBuiltins } from "./jwt.ts";
import { netBuiltins } from "./net.ts";
import { opaBuiltins } from "./opa.ts";
import { providerBuiltins } from "./providers.ts";
import { uriBuiltins } from "./uri.ts";
import { semverBuiltins } from "./semver.ts";
import { uuidBuiltins } from "./uuid.ts";

/** Every built-in the engine knows, by its Rego name. */
export const builtins: Map<string, Builtin> = new Map(
  [
    ...comparisonBuiltins,
    ...arithmeticBuiltins,
    ...aggregateBuiltins,
    ...setBuiltins,
    ...stringBuiltins,
    ...patternBuiltins,
    ...collectionBuiltins,
    ...typeBuiltins,
    ...encodingBuiltins,
    ...timeBuiltins,
    ...unitBuiltins,
    ...bitsBuiltins,
    ...cryptoBuiltins,
    ...graphBuiltins,
    ...graphqlBuiltins,
    ...httpBuiltins,
    ...jsonBuiltins,
    ...jwtBuiltins,
    ...netBuiltins,
    ...opaBuiltins,
    ...providerBuiltins,
    ...uriBuiltins,
    ...semverBuiltins,
    ...uuidBuiltins,
    { name: "set", arity: 0, fn: () => new RSet() },
  ].map((b) => [b.name, b]),
);
