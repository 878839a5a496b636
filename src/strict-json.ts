/**
 * JSON read strictly, for answers a decision rests on: one pass over the text refuses what JSON.parse lets
 * through or cannot bear (an object with the same key twice, where JSON.parse keeps the last; nesting deeper
 * than `maxDepth`, which JSON.parse and every walk after it would take on at any depth), then JSON.parse reads
 * it (which refuses anything that is not exactly one JSON value).
 */
export class StrictJsonError extends Error {
  override name = "StrictJsonError";
}

/** Nesting past the limit: refused before anything parses or walks the document. */
export class JsonTooDeep extends StrictJsonError {
  override name = "JsonTooDeep";
  constructor(readonly maxDepth: number) {
    super(`JSON nests deeper than ${maxDepth} levels`);
  }
}

export interface StrictJsonOptions {
  /** Arrays and objects inside one another, at most. */
  maxDepth?: number;
}

/** Throws JsonTooDeep when `text`, read as JSON, nests deeper than `maxDepth`; reads nothing else into it. */
export function checkJsonDepth(text: string, maxDepth: number): void {
  scan(text, maxDepth, false);
}

const quote = 0x22;
const backslash = 0x5c;

export function parseStrictJson(text: string, { maxDepth = 512 }: StrictJsonOptions = {}): unknown {
  scan(text, maxDepth, true);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new StrictJsonError((error as Error).message);
  }
}

/** One pass over the text: its nesting, and (with `uniqueKeys`) each object's keys. */
function scan(text: string, maxDepth: number, uniqueKeys: boolean): void {
  let depth = 0;
  // With `uniqueKeys`: each open object's keys so far, null for an open array.
  const open: (Set<string> | null)[] = [];
  // In an object, the next string is a key when it follows `{` or `,`.
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === quote) {
      const end = stringEnd(text, i);
      if (end < 0) return; // unterminated: JSON.parse says so
      if (expectKey) {
        const raw = text.slice(i, end + 1);
        const key = raw.includes("\\") ? safeKey(raw) : raw.slice(1, -1);
        const keys = open.at(-1)!;
        if (key !== undefined && keys.has(key)) throw new StrictJsonError(`duplicate key ${JSON.stringify(key)} in an object`);
        if (key !== undefined) keys.add(key);
        expectKey = false;
      }
      i = end;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (++depth > maxDepth) throw new JsonTooDeep(maxDepth);
      if (uniqueKeys) open.push(c === 0x7b ? new Set() : null);
      expectKey = uniqueKeys && c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      depth--;
      if (uniqueKeys) open.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) expectKey = uniqueKeys && open.at(-1) instanceof Set;
  }
}

/** The index of the quote that closes the string opened at `start`, or -1. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === backslash) i++;
    else if (c === quote) return i;
  }
  return -1;
}

/** A key written with escapes, as it reads; undefined when the escapes are malformed (JSON.parse refuses it). */
function safeKey(raw: string): string | undefined {
  try {
    return JSON.parse(raw) as string;
  } catch {
    return undefined;
  }
}
