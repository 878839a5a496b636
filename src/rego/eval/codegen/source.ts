import type { DocNode } from "../../plan/tree.ts";
import { builtinFailure } from "../calls.ts";
import { keyConflictError, recursionError } from "../../values/errors.ts";
import { late } from "../late.ts";
import { compare, equal, isCollection, lookup, lookupStored, RObject, RSet, setOwn, toJS, toJSON, type Value } from "../../values/values.ts";

/**
 * What generated code is made of besides its own shapes: a table of constants it closes over, and the
 * helpers it may call by name. Policy text never becomes code: a constant, key, node, built-in or location
 * reaches the source only as its index in the table (`k3`); every other identifier is the generator's.
 */

/** The values one generated function closes over, each named by its index. */
export class Constants {
  private readonly values: unknown[] = [];
  private readonly names = new Map<unknown, string>();

  name(value: unknown): string {
    let name = this.names.get(value);
    if (name === undefined) {
      name = `k${this.values.length}`;
      this.values.push(value);
      this.names.set(value, name);
    }
    return name;
  }

  /** The value a name stands for, when it names a constant of this table (`k3`). */
  valueOf(name: string): { value: unknown } | undefined {
    const i = /^k(\d+)$/.exec(name);
    return i ? { value: this.values[Number(i[1])] } : undefined;
  }

  /** Makes the function `body` returns: the constants and the helpers it names are bound around it. */
  make<F>(body: string): F {
    const source = [
      `"use strict";`,
      `const { ${Object.keys(helperTable()).filter((name) => helperUse(name).test(body)).join(", ")} } = H;`,
      ...this.values.map((_, i) => `const k${i} = K[${i}];`),
      body,
    ].join("\n");
    return new Function("K", "H", source)(this.values, helperTable()) as F;
  }
}

/** What generated code calls: fixed names, bound when a function is made (only those its source names). */
let helpers: Record<string, unknown> | undefined;
// Made on first use, once the document functions are in `late` (rules.ts puts them there as it loads).
const helperTable = () => (helpers ??= { RObject, RSet, equal, compare, lookup, isCollection, docValue: late.docValue, callFunction: late.callFunction, merge: late.merge, allEqual: late.allEqual, builtinFailure, recursion, readData, valuesOf, keysOf, conflict, put, keyOrder, NO_MEMBERS });
const uses = new Map<string, RegExp>();
const helperUse = (name: string) => uses.get(name) ?? uses.set(name, new RegExp(`\\b${name}\\b`)).get(name)!;

/** A constant path into the data document, looked up once per document (documents never change). */
export interface DataPath {
  keys: Value[];
  from: Value | undefined;
  found: Value | undefined;
}

function readData(c: DataPath, data: Value): Value | undefined {
  let v: Value | undefined = data;
  for (let i = 0; i < c.keys.length && v !== undefined; i++) v = lookupStored(v, c.keys[i]!);
  c.from = data;
  c.found = v;
  return v;
}

const NO_MEMBERS: Value[] = [];

/** The members of a collection in Rego's order (for arrays, themselves); none for anything else. */
function valuesOf(c: Value): readonly Value[] {
  if (Array.isArray(c)) return c;
  if (c instanceof RObject) return c.columns()[1];
  if (c instanceof RSet) return c.values();
  return NO_MEMBERS;
}

/** The keys beside `valuesOf`: null for arrays (the key is the index). */
function keysOf(c: Value): readonly Value[] | null {
  if (c instanceof RObject) return c.columns()[0];
  if (c instanceof RSet) return c.values();
  return null;
}

const recursion = (node: DocNode) => recursionError(node.name);
const conflict = keyConflictError;

/** Puts one entry of a document into a JS answer, converted as OPA writes JSON. */
function put(out: Record<string, unknown>, key: Value, v: Value): void {
  setOwn(out, typeof key === "string" ? key : toJSON(key), typeof v === "object" && v !== null ? toJS(v) : v);
}

/** Rego's key order, strings (nearly all keys) compared directly. */
const keyOrder = (a: Value, b: Value) => (typeof a === "string" && typeof b === "string" ? (a < b ? -1 : a === b ? 0 : 1) : compare(a, b));

