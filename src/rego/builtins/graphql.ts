/**
 * GraphQL: graphql.schema_is_valid, graphql.is_valid and the verdict of graphql.parse_and_verify, with
 * graphql-js (loaded with its first use) reading schemas the way OPA's gqlparser does: an extension of a type
 * the schema does not define defines it, and a schema needs no Query type of its own to be valid.
 * The parse functions that answer gqlparser's syntax tree are not here (docs/rego.md).
 */
import type { DefinitionNode, DocumentNode, GraphQLSchema } from "graphql";
import { BuiltinError } from "../values/errors.ts";
import { RObject, type Value } from "../values/values.ts";
import { builtin, oneOfError } from "./builtin.ts";

type GraphQL = typeof import("graphql");
let graphql: GraphQL | undefined;
const lib = () => (graphql ??= require("graphql") as GraphQL);

const EXTENSIONS: Record<string, string> = {
  ObjectTypeExtension: "ObjectTypeDefinition",
  InterfaceTypeExtension: "InterfaceTypeDefinition",
  UnionTypeExtension: "UnionTypeDefinition",
  EnumTypeExtension: "EnumTypeDefinition",
  InputObjectTypeExtension: "InputObjectTypeDefinition",
  ScalarTypeExtension: "ScalarTypeDefinition",
};

/** A schema or query given as text, or already as an object (gqlparser's AST is not read back). */
function text(args: Value[], i: number): string {
  const v = args[i]!;
  if (typeof v === "string") return v;
  throw oneOfError(i, v, "string", "object");
}

function parse(source: string): DocumentNode {
  try {
    return lib().parse(source);
  } catch (e) {
    throw new BuiltinError((e as Error).message);
  }
}

/** The schema as gqlparser builds it: the first extension of an undefined type is its definition. */
function schema(source: string): GraphQLSchema {
  const doc = parse(source);
  const named = (d: DefinitionNode) => ("name" in d && d.name ? d.name.value : undefined);
  const defined = new Set(doc.definitions.filter((d) => d.kind.endsWith("Definition")).map(named));
  const definitions = doc.definitions.map((d) => {
    const name = named(d);
    if (!(d.kind in EXTENSIONS) || !name || defined.has(name)) return d;
    defined.add(name);
    return { ...d, kind: EXTENSIONS[d.kind] } as DefinitionNode;
  });
  const { buildASTSchema, validateSchema } = lib();
  let built: GraphQLSchema;
  try {
    built = buildASTSchema({ ...doc, definitions });
  } catch (e) {
    throw new BuiltinError((e as Error).message);
  }
  const errors = validateSchema(built).filter((e) => !/root type must be provided/.test(e.message));
  if (errors.length) throw new BuiltinError(errors[0]!.message);
  return built;
}

function validQuery(query: string, against: GraphQLSchema): boolean {
  if (query.trim() === "") return true; // gqlparser takes an empty document as a valid query
  const errors = lib().validate(against, parse(query));
  return errors.length === 0;
}

const holds = (check: () => unknown) => {
  try {
    check();
    return true;
  } catch (e) {
    if (e instanceof BuiltinError) return false;
    throw e;
  }
};

export const graphqlBuiltins = [
  builtin("graphql.schema_is_valid", 1, (args) => holds(() => schema(text(args, 0)))),
  builtin("graphql.is_valid", 2, (args) => {
    const query = text(args, 0);
    const source = text(args, 1);
    return holds(() => {
      if (!validQuery(query, schema(source))) throw new BuiltinError("invalid query");
    });
  }),
  builtin("graphql.parse_and_verify", 2, (args) => {
    const query = text(args, 0);
    const source = text(args, 1);
    const ok = holds(() => {
      if (!validQuery(query, schema(source))) throw new BuiltinError("invalid query");
    });
    // Without gqlparser's syntax tree, only the verdict: the trees are empty objects either way.
    return [ok, new RObject(), new RObject()];
  }),
];
