import { BigNum, type Num, compareNum, fromBigInt, numText, toDouble } from "./numbers.ts";
import { RegoError } from "./errors.ts";

/**
 * A Rego value. Scalars and arrays are plain JS values; objects and sets are classes because their keys
 * are arbitrary Rego values compared structurally (a key's identity is `keyOf`).
 */
export type Value = null | boolean | Num | string | Value[] | RObject | RSet;

export class RObject {
  /** Values by key identity (`keyOf`); a key that is not its own identity is kept in `keys`. */
  private values = new Map<string, Value>();
  private keys: Map<string, Value> | undefined;
  /** Whether the keys are plain strings inserted in increasing order (then entries() needs no sort). */
  private inOrder = true;
  private last = "";
  private sorted: [Value, Value][] | undefined;
  private hash: string | undefined;

  static of(entries: Iterable<[Value, Value]>): RObject {
    const o = new RObject();
    for (const [k, v] of entries) o.set(k, v);
    return o;
  }

  get size() {
    return this.values.size;
  }
  get(key: Value): Value | undefined {
    return this.values.get(keyOf(key));
  }
  /** Only while the object is being built: values are immutable once shared. */
  set(key: Value, value: Value): void {
    const h = keyOf(key);
    if (this.inOrder && (h !== key || (this.values.size > 0 && !(h > this.last)))) this.inOrder = false;
    this.last = h;
    this.values.set(h, value);
    if (h !== key) (this.keys ??= new Map()).set(h, key);
    this.sorted = undefined;
    this.hash = undefined;
  }
  delete(key: Value): void {
    const h = keyOf(key);
    this.values.delete(h);
    this.keys?.delete(h);
    this.sorted = undefined;
    this.hash = undefined;
  }
  /** Entries in Rego's key order (the order OPA iterates in). */
  entries(): [Value, Value][] {
    if (!this.sorted) {
      const out: [Value, Value][] = [];
      for (const [h, v] of this.values) out.push([this.keys?.get(h) ?? h, v]);
      this.sorted = this.inOrder ? out : out.sort(byKey);
    }
    return this.sorted;
  }
  keyHash(): string {
    this.hash ??= `{${[...this.values.entries()]
      .sort((a, b) => (a[0] < b[0] ? -1 : 1))
      .map(([h, v]) => `${encodeKey(h)}:${keyOf(v)}`)
      .join(",")}}`;
    return this.hash;
  }
  copy(): RObject {
    const o = new RObject();
    o.values = new Map(this.values);
    if (this.keys) o.keys = new Map(this.keys);
    o.inOrder = this.inOrder;
    o.last = this.last;
    return o;
  }
}

/** Object entries by key; string keys (nearly all of them) compare without the general order. */
const byKey = (a: [Value, Value], b: [Value, Value]) => {
  const x = a[0];
  const y = b[0];
  if (typeof x === "string" && typeof y === "string") return x < y ? -1 : 1;
  return compare(x, y);
};

export class RSet {
  private readonly map = new Map<string, Value>();
  private sorted: Value[] | undefined;
  private hash: string | undefined;

  static of(items: Iterable<Value>): RSet {
    const s = new RSet();
    for (const v of items) s.add(v);
    return s;
  }

  get size() {
    return this.map.size;
  }
  has(v: Value): boolean {
    return this.map.has(keyOf(v));
  }
  add(v: Value): void {
    const k = keyOf(v);
    if (this.map.has(k)) return;
    this.map.set(k, v);
    this.sorted = undefined;
    this.hash = undefined;
  }
  values(): Value[] {
    this.sorted ??= [...this.map.values()].sort(compare);
    return this.sorted;
  }
  keyHash(): string {
    this.hash ??= `<${[...this.map.keys()].sort().map(encodeKey).join(",")}>`;
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

/** Calls `each(key, value)` over a collection in Rego order; stops when it returns true. */
export function iterate(coll: Value, each: (k: Value, v: Value) => boolean): boolean {
  if (Array.isArray(coll)) {
    for (let i = 0; i < coll.length; i++) if (each(i, coll[i]!)) return true;
  } else if (coll instanceof RObject) {
    for (const [k, v] of coll.entries()) if (each(k, v)) return true;
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
  const maxDepth = options.maxDepth ?? 1000;
  const convert = (y: unknown, depth: number): Value => {
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
        if (Array.isArray(y)) return y.map((e) => convert(e, depth + 1));
        if (y instanceof RObject || y instanceof RSet || y instanceof BigNum) return y;
        if (y instanceof Set) return RSet.of([...y].map((e) => convert(e, depth + 1)));
        {
          const o = new RObject();
          const record = y as Record<string, unknown>;
          for (const k in record) {
            const v = record[k];
            if (v !== undefined && Object.hasOwn(record, k)) o.set(k, convert(v, depth + 1));
          }
          return o;
        }
      default:
        throw new RegoError("invalid_input", `cannot convert a ${typeof y} to a Rego value`);
    }
  };
  return convert(x, 0);
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
      {
        const out: Record<string, unknown> = {};
        for (const [k, x] of v.entries()) out[typeof k === "string" ? k : toJSON(k)] = toJS(x);
        return out;
      }
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
