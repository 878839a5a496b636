/**
 * A document edited at a path, copying only what lies on the path: the JSON Patch steps (add, remove) that both
 * the json.patch builtin and OPA's data API apply. Each caller speaks its own errors (a builtin's message, the
 * API's storage codes), so the ways an edit fails are handed in.
 */
import { equal, RObject, RSet, type Value } from "./values.ts";

export type Path = Value[];

export interface EditErrors {
  /** Nothing at `path` (the whole path edited). */
  missing(path: Path): Error;
  /** `key` names no member of an array: not an index, or (`pastEnd`) beyond its last member. */
  badIndex(key: Value, pastEnd: boolean): Error;
}

/** The array's index that `key` names; with `forAdd`, "-" and the length name the place after the last member. */
export function arrayIndex(a: Value[], key: Value, errors: EditErrors, forAdd = false): number {
  if (forAdd && key === "-") return a.length;
  const i = typeof key === "number" ? key : typeof key === "string" && /^(0|[1-9]\d*)$/.test(key) ? Number(key) : NaN;
  if (!Number.isInteger(i) || i < 0) throw errors.badIndex(key, false);
  if (i > (forAdd ? a.length : a.length - 1)) throw errors.badIndex(key, true);
  return i;
}

/**
 * A copy of `doc` with `change` applied to the container the path's last segment names. With `make`, missing
 * objects on the way are made (a PUT), else a missing one is an error.
 */
export function edit(doc: Value, path: Path, change: (parent: Value, key: Value) => Value, errors: EditErrors, make = false, whole = path): Value {
  const [key, ...rest] = path as [Value, ...Path];
  if (!rest.length) return change(doc, key);
  if (doc instanceof RObject) {
    let child = doc.get(key);
    if (child === undefined) {
      if (!make) throw errors.missing(whole);
      child = new RObject();
    }
    const out = doc.copy();
    out.set(key, edit(child, rest, change, errors, make, whole));
    return out;
  }
  if (Array.isArray(doc)) {
    const i = arrayIndex(doc, key, errors);
    const out = doc.slice();
    out[i] = edit(doc[i]!, rest, change, errors, make, whole);
    return out;
  }
  if (doc instanceof RSet && doc.has(key)) {
    const out = RSet.of(doc.values().filter((x) => !equal(x, key)));
    out.add(edit(key, rest, change, errors, make, whole));
    return out;
  }
  throw errors.missing(whole);
}

/** JSON Patch's add at a non-empty path: an object's member set, an array's member inserted, a set's added. */
export function addAt(doc: Value, path: Path, value: Value, errors: EditErrors): Value {
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
        out.splice(arrayIndex(parent, key, errors, true), 0, value);
        return out;
      }
      if (parent instanceof RSet) return RSet.of([...parent.values(), value]);
      throw errors.missing(path);
    },
    errors,
  );
}

/** JSON Patch's remove at a non-empty path: the value must be there. */
export function removeAt(doc: Value, path: Path, errors: EditErrors): Value {
  return edit(
    doc,
    path,
    (parent, key) => {
      if (parent instanceof RObject) {
        if (parent.get(key) === undefined) throw errors.missing(path);
        const out = parent.copy();
        out.delete(key);
        return out;
      }
      if (Array.isArray(parent)) {
        const i = arrayIndex(parent, key, errors);
        return [...parent.slice(0, i), ...parent.slice(i + 1)];
      }
      if (parent instanceof RSet && parent.has(key)) return RSet.of(parent.values().filter((x) => !equal(x, key)));
      throw errors.missing(path);
    },
    errors,
  );
}
