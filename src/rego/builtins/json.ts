/** Documents edited by path: json.filter, json.remove (paths as "a/b" or ["a", "b"]) and json.patch (RFC 6902). */
import { BuiltinError } from "../values/errors.ts";
import { equal, RObject, RSet, toJSON, typeName, type Value } from "../values/values.ts";
import { arr, builtin, obj, oneOfError } from "./builtin.ts";

type Path = Value[];

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

function arrayIndex(a: Value[], key: Value, forAdd: boolean): number {
  if (forAdd && key === "-") return a.length;
  const i = typeof key === "number" ? key : typeof key === "string" && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : NaN;
  if (!Number.isInteger(i) || i < 0 || i > (forAdd ? a.length : a.length - 1)) throw new BuiltinError(`invalid patch path: index ${toJSON(key)} out of range`);
  return i;
}

function getAt(v: Value, path: Path, whole: Path): Value {
  let cur = v;
  for (const key of path) {
    const next: Value | undefined = cur instanceof RObject ? cur.get(key) : Array.isArray(cur) ? cur[arrayIndex(cur, key, false)] : cur instanceof RSet ? (cur.has(key) ? key : undefined) : undefined;
    if (next === undefined) throw new BuiltinError(`path ${segmentText(whole)} does not exist`);
    cur = next;
  }
  return cur;
}

/** The document with `change` applied to the parent of the path's last segment, copying only what changes. */
function edit(v: Value, path: Path, whole: Path, change: (parent: Value, key: Value) => Value): Value {
  if (path.length === 1) return change(v, path[0]!);
  const [key, ...rest] = path as [Value, ...Path];
  if (v instanceof RObject) {
    const child = v.get(key);
    if (child === undefined) throw new BuiltinError(`path ${segmentText(whole)} does not exist`);
    const out = v.copy();
    out.set(key, edit(child, rest, whole, change));
    return out;
  }
  if (Array.isArray(v)) {
    const i = arrayIndex(v, key, false);
    const out = v.slice();
    out[i] = edit(v[i]!, rest, whole, change);
    return out;
  }
  if (v instanceof RSet && v.has(key)) {
    const out = RSet.of(v.values().filter((x) => !equal(x, key)));
    out.add(edit(key, rest, whole, change));
    return out;
  }
  throw new BuiltinError(`path ${segmentText(whole)} does not exist`);
}

function add(doc: Value, path: Path, value: Value): Value {
  if (!path.length) return value;
  return edit(doc, path, path, (parent, key) => {
    if (parent instanceof RObject) {
      const out = parent.copy();
      out.set(key, value);
      return out;
    }
    if (Array.isArray(parent)) {
      const out = parent.slice();
      out.splice(arrayIndex(parent, key, true), 0, value);
      return out;
    }
    if (parent instanceof RSet) return RSet.of([...parent.values(), value]);
    throw new BuiltinError(`path ${segmentText(path)} does not exist`);
  });
}

function removeAt(doc: Value, path: Path): Value {
  if (!path.length) return null;
  return edit(doc, path, path, (parent, key) => {
    if (parent instanceof RObject) {
      if (parent.get(key) === undefined) throw new BuiltinError(`path ${segmentText(path)} does not exist`);
      return RObject.of(parent.entries().filter(([k]) => !equal(k, key)));
    }
    if (Array.isArray(parent)) {
      const i = arrayIndex(parent, key, false);
      return [...parent.slice(0, i), ...parent.slice(i + 1)];
    }
    if (parent instanceof RSet && parent.has(key)) return RSet.of(parent.values().filter((x) => !equal(x, key)));
    throw new BuiltinError(`path ${segmentText(path)} does not exist`);
  });
}

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
        out = removeAt(out, path);
        break;
      case "replace":
        out = add(removeAt(out, path), path, attr("value"));
        break;
      case "move": {
        const from = parsePath(attr("from"));
        const moved = getAt(out, from, from);
        out = add(removeAt(out, from), path, moved);
        break;
      }
      case "copy": {
        const from = parsePath(attr("from"));
        out = add(out, path, getAt(out, from, from));
        break;
      }
      case "test": {
        const value = attr("value");
        if (!equal(getAt(out, path, path), value)) throw new BuiltinError(`value from EditTree != patch value.\n\nExpected: ${toJSON(value)}\n\nFound: ${toJSON(getAt(out, path, path))}`);
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
