/** Documents edited by path: json.filter, json.remove (paths as "a/b" or ["a", "b"]) and json.patch (RFC 6902). */
import { BuiltinError } from "../values/errors.ts";
import { addAt, arrayIndex, type EditErrors, type Path, removeAt } from "../values/edit.ts";
import { equal, RObject, RSet, toJSON, typeName, type Value } from "../values/values.ts";
import { arr, builtin, obj, oneOfError } from "./builtin.ts";


/** A path as a string ("/a/b", "~1" for '/', "~0" for '~') or an array of segments. */
function parsePath(p: Value): Path {
  if (typeof p === "string") {
    if (p === "") return [];
    return p
      .replace(/^\/+/, "")
      .split("/")
      .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
  }
  if (Array.isArray(p)) return p;
  throw new BuiltinError(`operand 2 must be one of {set, array} containing string paths or array of path segments but got ${typeName(p)}`, "type");
}

function pathsOf(args: Value[], i: number): Path[] {
  const v = args[i]!;
  if (Array.isArray(v)) return v.map(parsePath);
  if (v instanceof RSet) return v.values().map(parsePath);
  throw oneOfError(i, v, "set", "array");
}

/** The paths as a tree of objects whose leaves are null: a prefix already whole (null) absorbs longer paths. */
function pathTree(paths: Path[]): RObject {
  const root = new RObject();
  for (const path of paths) {
    if (!path.length) continue;
    let node = root;
    let whole = false;
    for (const key of path.slice(0, -1)) {
      const child = node.get(key);
      if (child === null) {
        whole = true;
        break;
      }
      if (child instanceof RObject) node = child;
      else {
        const next = new RObject();
        node.set(key, next);
        node = next;
      }
    }
    if (!whole) node.set(path[path.length - 1]!, null);
  }
  return root;
}

/** The tree's entry for a collection member: arrays are addressed by their index as text. */
const entry = (tree: RObject, key: Value, isArray: boolean) => tree.get(isArray ? String(key) : key);

function remove(v: Value, tree: Value | undefined): Value | undefined {
  if (tree === undefined || !(tree instanceof RObject)) return tree === null ? undefined : v;
  if (v instanceof RObject) {
    const out = new RObject();
    for (const [k, x] of v.entries()) {
      const kept = remove(x, tree.get(k));
      if (kept !== undefined) out.set(k, kept);
    }
    return out;
  }
  if (Array.isArray(v)) return v.flatMap((x, i) => {
    const kept = remove(x, entry(tree, i, true));
    return kept === undefined ? [] : [kept];
  });
  if (v instanceof RSet) return RSet.of(v.values().flatMap((x) => {
    const kept = remove(x, tree.get(x));
    return kept === undefined ? [] : [kept];
  }));
  return v;
}

function filter(v: Value, tree: RObject): Value {
  if (v instanceof RObject) {
    const out = new RObject();
    for (const [k, t] of tree.entries()) {
      const x = v.get(k);
      if (x !== undefined) out.set(k, t instanceof RObject ? filter(x, t) : x);
    }
    return out;
  }
  if (Array.isArray(v)) {
    const out: Value[] = [];
    v.forEach((x, i) => {
      const t = entry(tree, i, true);
      if (t !== undefined) out.push(t instanceof RObject ? filter(x, t) : x);
    });
    return out;
  }
  if (v instanceof RSet) return RSet.of(v.values().filter((x) => tree.get(x) !== undefined));
  return v;
}

// ---- JSON Patch

const segmentText = (path: Path) => `/${path.map((p) => (typeof p === "string" ? p : toJSON(p))).join("/")}`;

/** An edit's failures in the builtin's words. */
const errors: EditErrors = {
  missing: (path) => new BuiltinError(`path ${segmentText(path)} does not exist`),
  badIndex: (key) => new BuiltinError(`invalid patch path: index ${toJSON(key)} out of range`),
};

function getAt(v: Value, path: Path): Value {
  let cur = v;
  for (const key of path) {
    const next: Value | undefined = cur instanceof RObject ? cur.get(key) : Array.isArray(cur) ? cur[arrayIndex(cur, key, errors)] : cur instanceof RSet ? (cur.has(key) ? key : undefined) : undefined;
    if (next === undefined) throw errors.missing(path);
    cur = next;
  }
  return cur;
}

const add = (doc: Value, path: Path, value: Value): Value => (path.length ? addAt(doc, path, value, errors) : value);
const removePath = (doc: Value, path: Path): Value => (path.length ? removeAt(doc, path, errors) : null);

function patch(doc: Value, operations: Value[]): Value {
  let out = doc;
  for (const op of operations) {
    if (!(op instanceof RObject)) throw new BuiltinError("must be an array of JSON-Patch objects, but at least one element is not an object");
    const attr = (name: string) => {
      const v = op.get(name);
      if (v === undefined) throw new BuiltinError(`missing required attribute '${name}'`);
      return v;
    };
    const path = parsePath(attr("path"));
    const kind = attr("op");
    if (typeof kind !== "string") throw new BuiltinError(`attribute 'op' must be a string but found: ${typeName(kind)}`);
    switch (kind) {
      case "add":
        out = add(out, path, attr("value"));
        break;
      case "remove":
        out = removePath(out, path);
        break;
      case "replace":
        out = add(removePath(out, path), path, attr("value"));
        break;
      case "move": {
        const from = parsePath(attr("from"));
        const moved = getAt(out, from);
        out = add(removePath(out, from), path, moved);
        break;
      }
      case "copy": {
        const from = parsePath(attr("from"));
        out = add(out, path, getAt(out, from));
        break;
      }
      case "test": {
        const value = attr("value");
        if (!equal(getAt(out, path), value)) throw new BuiltinError(`value from EditTree != patch value.\n\nExpected: ${toJSON(value)}\n\nFound: ${toJSON(getAt(out, path))}`);
        break;
      }
      default:
        throw new BuiltinError(`unrecognized op: '${kind}'`);
    }
  }
  return out;
}

// ---- JSON Schema

type Ajv = import("ajv").default;
let ajv: Ajv | undefined;
/** ajv (draft-07, OPA's gojsonschema reads the same), made with the first schema: most policies use none. */
const validator = () => {
  if (!ajv) {
    const Ajv = (require("ajv") as { default: new (options: object) => Ajv }).default;
    ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });
  }
  return ajv;
};

const PRIMITIVES = ["array", "boolean", "integer", "number", "null", "object", "string"];

/** A schema given as an object or as JSON text, as plain JS. */
function schemaOf(v: Value): unknown {
  if (typeof v === "string") {
    try {
      return JSON.parse(v);
    } catch (e) {
      throw new BuiltinError((e as Error).message);
    }
  }
  return JSON.parse(toJSON(v));
}

/** Why a schema is not one (gojsonschema's words for a bad `type`), or undefined when it is. */
function schemaProblem(schema: unknown): string | undefined {
  const types: unknown[] = [];
  const collect = (s: unknown) => {
    if (!s || typeof s !== "object") return;
    const t = (s as { type?: unknown }).type;
    if (t !== undefined) types.push(...(Array.isArray(t) ? t : [t]));
    for (const v of Object.values(s as object)) if (v && typeof v === "object") collect(v);
  };
  collect(schema);
  const bad = types.find((t) => typeof t !== "string" || !PRIMITIVES.includes(t));
  if (bad !== undefined) return `has a primitive type that is NOT VALID -- given: /${String(bad)}/ Expected valid values are:[${PRIMITIVES.join(" ")}]`;
  try {
    validator().compile(schema as object);
  } catch (e) {
    return (e as Error).message;
  }
  return undefined;
}

/** A validation error in gojsonschema's shape: error, type, field, desc. */
function schemaError(e: { instancePath: string; keyword: string; params: Record<string, unknown>; message?: string }, doc: unknown): Value {
  const path = e.instancePath.split("/").slice(1).join(".");
  let field = path || "(root)";
  let type = e.keyword;
  let desc = e.message ?? "";
  if (e.keyword === "type") {
    const at = e.instancePath.split("/").slice(1).reduce<unknown>((v, k) => (v as Record<string, unknown>)?.[k], doc);
    const given = at === null ? "null" : Array.isArray(at) ? "array" : Number.isInteger(at) ? "integer" : typeof at;
    type = "invalid_type";
    desc = `Invalid type. Expected: ${String(e.params.type)}, given: ${given}`;
  } else if (e.keyword === "required") {
    field = path ? `${path}.${String(e.params.missingProperty)}` : String(e.params.missingProperty);
    desc = `${String(e.params.missingProperty)} is required`;
  }
  return RObject.of([
    ["desc", desc],
    ["error", `${field}: ${desc}`],
    ["field", field],
    ["type", type],
  ]);
}

export const jsonBuiltins = [
  builtin("json.verify_schema", 1, ([schema]) => {
    const problem = schemaProblem(schemaOf(schema!));
    return problem === undefined ? [true, null] : [false, `jsonschema: ${problem}`];
  }),
  builtin("json.match_schema", 2, ([document, schema]) => {
    const s = schemaOf(schema!);
    const problem = schemaProblem(s);
    if (problem !== undefined) throw new BuiltinError(problem);
    const doc = schemaOf(document!);
    const validate = validator().compile(s as object);
    if (validate(doc)) return [true, []];
    return [false, (validate.errors ?? []).map((e) => schemaError(e, doc))];
  }),
  builtin("json.remove", 2, (args) => remove(obj(args, 0), pathTree(pathsOf(args, 1)))),
  builtin("json.filter", 2, (args) => filter(obj(args, 0), pathTree(pathsOf(args, 1)))),
  builtin("json.patch", 2, (args) => patch(args[0]!, arr(args, 1))),
];
