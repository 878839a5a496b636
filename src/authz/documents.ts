/**
 * The base data document as OPA's REST API writes it: put a value at a path (making the objects above it),
 * delete one, or apply a JSON Patch, each a new document swapped in whole (the engine recompiles nothing but
 * the data). Errors carry OPA's storage codes and texts.
 */
import { addAt, arrayIndex, edit, type EditErrors, removeAt } from "../rego/values/edit.ts";
import { RObject, type Value } from "../rego/values/values.ts";
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
    else if (Array.isArray(cur)) cur = cur[arrayIndex(cur, key, errors)];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

/** An edit's failures in OPA's words: a missing document is 404, a bad array index 400, one past the end 404. */
const errors: EditErrors = {
  missing: () => notFound(),
  badIndex: (key, pastEnd) => (pastEnd ? notFound() : invalidPatch(`array index ${JSON.stringify(key)} is not an integer`)),
};

/** PUT /v1/data/<path>: the value replaces what is there, the objects above it made as needed. */
export function put(doc: RObject, path: Path, value: Value): RObject {
  if (!path.length) {
    if (!(value instanceof RObject)) throw invalidPatch("root must be object");
    return value;
  }
  const replace = (parent: Value, key: Value) => {
    if (parent instanceof RObject) {
      const out = parent.copy();
      out.set(key, value);
      return out;
    }
    if (Array.isArray(parent)) {
      const out = parent.slice();
      out[arrayIndex(parent, key, errors)] = value;
      return out;
    }
    throw notFound();
  };
  return edit(doc, path, replace, errors, true) as RObject;
}

function add(doc: Value, path: Path, value: Value): Value {
  if (path.length) return addAt(doc, path, value, errors);
  if (!(value instanceof RObject)) throw invalidPatch("root must be object");
  return value;
}

/** DELETE /v1/data/<path> and the patch's remove: the value must be there. */
export const remove = (doc: Value, path: Path): Value => (path.length ? removeAt(doc, path, errors) : new RObject());

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

