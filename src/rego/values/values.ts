import { BigNum, type Num, compareNum, fromBigInt, numText, toDouble } from "./numbers.ts";
import { RegoError } from "./errors.ts";

/**
 * A Rego value. Scalars and arrays are plain JS values; objects and sets are classes because their keys
 * are arbitrary Rego values compared structurally (a key's identity is `keyOf`).
 */
export type Value = null | boolean | Num | string | Value[] | RObject | RSet;

/** A null-prototype record: JSC builds and reads these several times faster than a small Map. */
type Dict<T> = Record<string, T | undefined>;
const dict = <T>(): Dict<T> => Object.create(null);

export class RObject {
  /** Keys that are not their own identity (non-strings), by identity. */
  private originals: Map<string, Value> | undefined = undefined;
  /** What the entries give (sorted order, columns, identity), computed when asked, dropped on change. */
  private derived: Derived | undefined = undefined;

  constructor(
    /** Values by key identity (`keyOf`). */
    private values: Dict<Value> = dict(),
    /** Key identities in insertion order. */
    private ids: string[] = [],
    /** Whether the keys are plain strings inserted in increasing order (then entries() needs no sort). */
    private inOrder = true,
  ) {}

  static of(entries: Iterable<[Value, Value]>): RObject {
    const o = new RObject();
    for (const [k, v] of entries) o.set(k, v);
    return o;
  }

  /** An object whose keys are distinct plain strings given in increasing order (a literal's, sorted once). */
  static sorted(keys: readonly string[], values: readonly Value[]): RObject {
    const record = dict<Value>();
    for (let i = 0; i < keys.length; i++) record[keys[i]!] = values[i]!;
    return new RObject(record, keys.slice());
  }

  /** A plain record's own properties converted (input and data documents), in one pass. */
  static fromRecord(record: Record<string, unknown>, depth: number, maxDepth: number): RObject {
    const keys = Object.keys(record);
    const values = dict<Value>();
    let inOrder = true;
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const v = record[k];
      if (v === undefined || k.charCodeAt(0) === 0) return RObject.fromIrregular(record, keys, depth, maxDepth);
      if (inOrder && i > 0 && !(k > keys[i - 1]!)) inOrder = false;
      values[k] = convert(v, depth, maxDepth);
    }
    // The key list is the object's own when every key is a plain string with a value (the usual case).
    return new RObject(values, keys, inOrder);
  }

  /** fromRecord for records with undefined values or keys that are not their own identity. */
  private static fromIrregular(record: Record<string, unknown>, keys: string[], depth: number, maxDepth: number): RObject {
    const o = new RObject();
    for (const k of keys) {
      const v = record[k];
      if (v !== undefined) o.set(k, convert(v, depth, maxDepth));
    }
    return o;
  }

  get size() {
    return this.ids.length;
  }
  get(key: Value): Value | undefined {
    return this.values[keyOf(key)];
  }
  /** The value under a key given by its identity (`keyOf`), computed once by the caller. */
  at(identity: string): Value | undefined {
    return this.values[identity];
  }
  /** Only while the object is being built: values are immutable once shared. */
  set(key: Value, value: Value): void {
    const h = keyOf(key);
    if (this.values[h] === undefined) {
      const ids = this.ids;
      if (this.inOrder && (h !== key || (ids.length > 0 && !(h > ids[ids.length - 1]!)))) this.inOrder = false;
      ids.push(h);
      if (h !== key) (this.originals ??= new Map()).set(h, key);
    }
    this.values[h] = value;
    this.derived = undefined;
  }
  delete(key: Value): void {
    const h = keyOf(key);
    if (this.values[h] === undefined) return;
    // Rebuilt rather than `delete`d: a record that loses a property turns slow to read.
    const values = dict<Value>();
    for (const id of this.ids) if (id !== h) values[id] = this.values[id];
    this.values = values;
    this.ids = this.ids.filter((id) => id !== h);
    this.originals?.delete(h);
    this.derived = undefined;
  }
  /** Entries in Rego's key order (the order OPA iterates in). */
  entries(): [Value, Value][] {
    const d = (this.derived ??= {});
    if (!d.sorted) {
      const out: [Value, Value][] = [];
      for (const h of this.ids) out.push([this.keyAt(h), this.values[h]!]);
      d.sorted = this.inOrder ? out : out.sort(byKey);
    }
    return d.sorted;
  }
  /** The keys and the values, each in Rego's key order: what a loop over the object indexes. */
  columns(): [Value[], Value[]] {
    const entries = this.entries();
    return (this.derived!.columns ??= [entries.map((e) => e[0]), entries.map((e) => e[1])]);
  }
  /** Calls `each(key, value)` in Rego's key order; stops when it returns true. */
  some(each: (k: Value, v: Value) => boolean): boolean {
    if (this.inOrder) {
      for (const h of this.ids) if (each(h, this.values[h]!)) return true;
      return false;
    }
    for (const [k, v] of this.entries()) if (each(k, v)) return true;
    return false;
  }
  /** The object as a plain JS record, its values converted by `convert` (toJS), in Rego's key order. */
  toRecord(convert: (v: Value) => unknown): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    if (this.inOrder) for (const h of this.ids) setOwn(out, h, convert(this.values[h]!));
    else for (const [k, v] of this.entries()) setOwn(out, typeof k === "string" ? k : toJSON(k), convert(v));
    return out;
  }
  keyHash(): string {
    const d = (this.derived ??= {});
    d.hash ??= `{${[...this.ids]
      .sort()
      .map((h) => `${encodeKey(h)}:${keyOf(this.values[h]!)}`)
      .join(",")}}`;
    return d.hash;
  }
  copy(): RObject {
    const values = dict<Value>();
    for (const h of this.ids) values[h] = this.values[h];
    const o = new RObject(values, this.ids.slice(), this.inOrder);
    if (this.originals) o.originals = new Map(this.originals);
    // Shared views stay valid for the copy; its own later changes drop only its own.
    o.derived = this.derived && { ...this.derived };
    return o;
  }
  private keyAt(h: string): Value {
    return this.originals?.has(h) ? this.originals.get(h)! : h;
  }
}

interface Derived {
  sorted?: [Value, Value][];
  columns?: [Value[], Value[]];
  hash?: string;
}

/** Object entries by key; string keys (nearly all of them) compare without the general order. */
const byKey = (a: [Value, Value], b: [Value, Value]) => {
  const x = a[0];
  const y = b[0];
  if (typeof x === "string" && typeof y === "string") return x < y ? -1 : 1;
  return compare(x, y);
};

export class RSet {
  /** Members by identity (`keyOf`), in insertion order. */
  private members: Dict<Value> = dict();
  private ids: string[] = [];
  private sorted: Value[] | undefined;
  private hash: string | undefined;

  static of(items: Iterable<Value>): RSet {
    const s = new RSet();
    for (const v of items) s.add(v);
    return s;
  }

  get size() {
    return this.ids.length;
  }
  has(v: Value): boolean {
    return this.members[keyOf(v)] !== undefined;
  }
  add(v: Value): void {
    const k = keyOf(v);
    if (this.members[k] !== undefined) return;
    this.members[k] = v;
    this.ids.push(k);
    this.sorted = undefined;
    this.hash = undefined;
  }
  values(): Value[] {
    this.sorted ??= this.ids.map((k) => this.members[k]!).sort(compare);
    return this.sorted;
  }
  keyHash(): string {
    this.hash ??= `<${[...this.ids].sort().map(encodeKey).join(",")}>`;
    return this.hash;
  }
}

const encodeKey = (h: string) => (h.charCodeAt(0) === 0 ? h : JSON.stringify(h));

/**
 * The identity of a value as a Map key: strings are themselves (the fast, common case), anything else is
 * a canonical text after a NUL, which no plain string starts with (such strings are escaped too).
 */
export function keyOf(v: Value): string {
  switch (typeof v) {
    case "string":
      return v.charCodeAt(0) === 0 ? `\0s${v}` : v;
    case "number":
      return `\0n${v}`;
    case "boolean":
      return v ? "\0t" : "\0f";
    default:
      if (v === null) return "\0z";
      if (v instanceof BigNum) return `\0d${v.toString()}`;
      if (Array.isArray(v)) return `\0[${v.map((x) => encodeKey(keyOf(x))).join(",")}]`;
      return `\0${v.keyHash()}`;
  }
}

const rank = (v: Value): number => {
  switch (typeof v) {
    case "boolean":
      return 1;
    case "number":
      return 2;
    case "string":
      return 3;
    default:
      if (v === null) return 0;
      if (v instanceof BigNum) return 2;
      if (Array.isArray(v)) return 4;
      return v instanceof RObject ? 5 : 6;
  }
};

/** Rego's total order: null < booleans < numbers < strings < arrays < objects < sets. */
export function compare(a: Value, b: Value): number {
  if (a === b) return 0;
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return 0;
    case 1:
      return a ? 1 : -1;
    case 2:
      return compareNum(a as Num, b as Num);
    case 3:
      return (a as string) < (b as string) ? -1 : 1;
    case 4:
      return compareLists(a as Value[], b as Value[]);
    case 5: {
      const x = (a as RObject).entries();
      const y = (b as RObject).entries();
      const n = Math.min(x.length, y.length);
      for (let i = 0; i < n; i++) {
        const c = compare(x[i]![0], y[i]![0]) || compare(x[i]![1], y[i]![1]);
        if (c) return c;
      }
      return x.length - y.length;
    }
    default:
      return compareLists((a as RSet).values(), (b as RSet).values());
  }
}

function compareLists(x: Value[], y: Value[]): number {
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) {
    const c = compare(x[i]!, y[i]!);
    if (c) return c;
  }
  return x.length - y.length;
}

export function equal(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!equal(a[i]!, b[i]!)) return false;
    return true;
  }
  if (a instanceof BigNum) return b instanceof BigNum && a.mant === b.mant && a.exp === b.exp;
  if (a instanceof RObject) {
    if (!(b instanceof RObject) || a.size !== b.size) return false;
    for (const [k, v] of a.entries()) {
      const w = b.get(k);
      if (w === undefined || !equal(v, w)) return false;
    }
    return true;
  }
  if (!(b instanceof RSet) || a.size !== b.size) return false;
  for (const v of a.values()) if (!b.has(v)) return false;
  return true;
}

export type TypeName = "null" | "boolean" | "number" | "string" | "array" | "object" | "set";

export function typeName(v: Value): TypeName {
  switch (typeof v) {
    case "boolean":
      return "boolean";
    case "number":
      return "number";
    case "string":
      return "string";
    default:
      if (v === null) return "null";
      if (v instanceof BigNum) return "number";
      if (Array.isArray(v)) return "array";
      return v instanceof RObject ? "object" : "set";
  }
}

export const isNumber = (v: Value): v is Num => typeof v === "number" || v instanceof BigNum;

/** Indexes a collection: objects by key, arrays by integer index, sets by membership. */
export function lookup(coll: Value, key: Value): Value | undefined {
  if (coll instanceof RObject) return coll.get(key);
  if (Array.isArray(coll)) return typeof key === "number" && Number.isInteger(key) ? coll[key] : undefined;
  if (coll instanceof RSet) return coll.has(key) ? key : undefined;
  return undefined;
}

/**
 * `lookup` in the base data document: an integer key also finds an object's key of its digits (`data[2]`
 * reads `{"2": ...}`), as the document came from JSON, whose keys are strings, as in OPA's store.
 */
export function lookupStored(coll: Value, key: Value): Value | undefined {
  const v = lookup(coll, key);
  return v === undefined && typeof key === "number" && coll instanceof RObject ? coll.get(String(key)) : v;
}

/** Calls `each(key, value)` over a collection in Rego order; stops when it returns true. */
export function iterate(coll: Value, each: (k: Value, v: Value) => boolean): boolean {
  if (Array.isArray(coll)) {
    for (let i = 0; i < coll.length; i++) if (each(i, coll[i]!)) return true;
  } else if (coll instanceof RObject) {
    return coll.some(each);
  } else if (coll instanceof RSet) {
    for (const v of coll.values()) if (each(v, v)) return true;
  }
  return false;
}

export const isCollection = (v: Value) => Array.isArray(v) || v instanceof RObject || v instanceof RSet;

export interface FromJSOptions {
  maxDepth?: number;
}

/** Converts plain JS (parsed JSON; bigint for big integers) into a Rego value. */
export function fromJS(x: unknown, options: FromJSOptions = {}): Value {
  return convert(x, 0, options.maxDepth ?? 1000);
}

function convert(y: unknown, depth: number, maxDepth: number): Value {
  if (depth > maxDepth) throw new RegoError("invalid_input", `document nesting exceeds ${maxDepth} levels`);
  switch (typeof y) {
    case "string":
    case "boolean":
      return y;
    case "number":
      if (!Number.isFinite(y)) throw new RegoError("invalid_input", `not a JSON number: ${y}`);
      return y === 0 ? 0 : y;
    case "bigint":
      return fromBigInt(y);
    case "object":
      if (y === null) return null;
      if (Array.isArray(y)) {
        const out = new Array<Value>(y.length);
        for (let i = 0; i < y.length; i++) out[i] = convert(y[i], depth + 1, maxDepth);
        return out;
      }
      if (y instanceof RObject || y instanceof RSet || y instanceof BigNum) return y;
      if (y instanceof Set) return RSet.of([...y].map((e) => convert(e, depth + 1, maxDepth)));
      return RObject.fromRecord(y as Record<string, unknown>, depth + 1, maxDepth);
    default:
      throw new RegoError("invalid_input", `cannot convert a ${typeof y} to a Rego value`);
  }
}

/** Sets an own property, `__proto__` included: assigning that key would set the object's prototype instead. */
export function setOwn(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

/**
 * Converts a Rego value to plain JS as OPA's JSON output does: sets become sorted arrays, non-string
 * object keys become their JSON text, and integers beyond a double's exact range become bigint.
 */
export function toJS(v: Value): unknown {
  switch (typeof v) {
    case "string":
    case "boolean":
    case "number":
      return v;
    default:
      if (v === null) return null;
      if (v instanceof BigNum) return v.isInteger ? BigInt(v.toString()) : toDouble(v);
      if (Array.isArray(v)) return v.map(toJS);
      if (v instanceof RSet) return v.values().map(toJS);
      return v.toRecord(toJS);
  }
}

/** Compact JSON text of a value (exact for big numbers), as json.marshal writes it. */
export function toJSON(v: Value): string {
  switch (typeof v) {
    case "string":
      return JSON.stringify(v);
    case "boolean":
      return String(v);
    case "number":
      return numText(v);
    default:
      if (v === null) return "null";
      if (v instanceof BigNum) return v.toString();
      if (Array.isArray(v)) return `[${v.map(toJSON).join(",")}]`;
      if (v instanceof RSet) return `[${v.values().map(toJSON).join(",")}]`;
      return `{${v
        .entries()
        .map(([k, x]) => `${JSON.stringify(typeof k === "string" ? k : toJSON(k))}:${toJSON(x)}`)
        .join(",")}}`;
  }
}
