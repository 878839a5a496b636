/**
 * The base data document as OPA's REST API writes it: put a value at a path (making the objects above it),
 * delete one, or apply a JSON Patch, each a new document swapped in whole (the engine recompiles nothing but
 * the data). Errors carry OPA's storage codes and texts.
 */
import { RObject, RSet, type Value } from "../rego/values/values.ts";
import { OpaError } from "./errors.ts";

export type Path = string[];

const notFound = () => new OpaError(404, "resource_not_found", "storage_not_found_error: document does not exist");
const invalidPatch = (message: string) => new OpaError(400, "invalid_parameter", `storage_invalid_patch_error: ${message}`);

/** A URL path (`a/b/c`, already split on '/') or a JSON Pointer (`/a/b`, with ~0 and ~1 escapes) as segments. */
export const pointer = (text: string): Path =>
  text
    .split("/")
    .filter((s, i) => i > 0 || s !== "")
    .map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));

/** The value at `path`, undefined when there is none. */
export function read(doc: Value, path: Path): Value | undefined {
  let cur: Value | undefined = doc;
  for (const key of path) {
    if (cur instanceof RObject) cur = cur.get(key);
    else if (Array.isArray(cur)) cur = cur[arrayIndex(cur, key)];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

function arrayIndex(a: Value[], key: string, forAdd = false): number {
  if (forAdd && key === "-") return a.length;
  if (!/^(0|[1-9]\d*)$/.test(key)) throw invalidPatch(`array index ${JSON.stringify(key)} is not an integer`);
  const i = Number(key);
  if (i > (forAdd ? a.length : a.length - 1)) throw notFound();
  return i;
}

/** A copy of `doc` with `change` applied to the container the path's last segment names. */
function edit(doc: Value, path: Path, change: (parent: Value, key: string) => Value, make = false): Value {
  const [key, ...rest] = path as [string, ...Path];
  if (!rest.length) return change(doc, key);
  if (doc instanceof RObject) {
    let child = doc.get(key);
    if (child === undefined) {
      if (!make) throw notFound();
      child = new RObject();
    }
    const out = doc.copy();
    out.set(key, edit(child, rest, change, make));
    return out;
  }
  if (Array.isArray(doc)) {
    const i = arrayIndex(doc, key);
    const out = doc.slice();
    out[i] = edit(doc[i]!, rest, change, make);
    return out;
  }
  throw notFound();
}

/** PUT /v1/data/<path>: the value replaces what is there, the objects above it made as needed. */
export function put(doc: RObject, path: Path, value: Value): RObject {
  if (!path.length) {
    if (!(value instanceof RObject)) throw invalidPatch("root must be object");
    return value;
  }
  return edit(
    doc,
    path,
    (parent, key) => {
      if (parent instanceof RObject) {
        const out = parent.copy();
        out.set(key, value);
        return out;
      }
      if (Array.isArray(parent)) {
        const out = parent.slice();
        out[arrayIndex(parent, key)] = value;
        return out;
      }
      throw notFound();
    },
    true,
  ) as RObject;
}

function add(doc: Value, path: Path, value: Value): Value {
  if (!path.length) {
    if (!(value instanceof RObject)) throw invalidPatch("root must be object");
    return value;
  }
  return edit(doc, path, (parent, key) => {
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
    throw notFound();
  });
}

/** DELETE /v1/data/<path> and the patch's remove: the value must be there. */
export function remove(doc: Value, path: Path): Value {
  if (!path.length) return new RObject();
  return edit(doc, path, (parent, key) => {
    if (parent instanceof RObject) {
      if (parent.get(key) === undefined) throw notFound();
      const out = parent.copy();
      out.delete(key);
      return out;
    }
    if (Array.isArray(parent)) {
      const i = arrayIndex(parent, key);
      return [...parent.slice(0, i), ...parent.slice(i + 1)];
    }
    throw notFound();
  });
}

/** PATCH /v1/data/<path>: JSON Patch operations (add, remove, replace), paths relative to `base`. */
export function patch(doc: RObject, base: Path, operations: Value): RObject {
  if (!Array.isArray(operations)) throw new OpaError(400, "invalid_parameter", "the body must be an array of JSON Patch operations");
  let out: Value = doc;
  for (const op of operations) {
    if (!(op instanceof RObject)) throw new OpaError(400, "invalid_parameter", "each patch operation must be an object");
    const kind = op.get("op");
    const where = op.get("path");
    if (typeof where !== "string") throw new OpaError(400, "invalid_parameter", "a patch operation needs a string path");
    const path = [...base, ...pointer(where)];
    const value = op.get("value");
    switch (kind) {
      case "add":
        if (value === undefined) throw new OpaError(400, "invalid_parameter", "an add operation needs a value");
        out = add(out, path, value);
        break;
      case "remove":
        out = remove(out, path);
        break;
      case "replace":
        if (value === undefined) throw new OpaError(400, "invalid_parameter", "a replace operation needs a value");
        if (read(out, path) === undefined) throw notFound();
        out = add(remove(out, path), path, value);
        break;
      default:
        throw new OpaError(400, "invalid_parameter", `invalid patch operation ${JSON.stringify(kind ?? null)}`);
    }
  }
  if (!(out instanceof RObject)) throw invalidPatch("root must be object");
  return out;
}

