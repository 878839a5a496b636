/**
 * Text PostgreSQL cannot hold: NUL, and half of a UTF-16 surrogate pair, in text or jsonb (SQLite stores both). Such
 * text comes from outside (a page's text in a tool's result, a caller's metadata); a write PostgreSQL refuses for
 * it is made again with U+FFFD in its place, rather than losing the whole change.
 */

/** PostgreSQL refused a write for the text in it (SQLSTATE 22P05, 22021, or 22P02 over a surrogate escape). */
export function refusedText(error: unknown): boolean {
  for (let at = error, depth = 0; at && depth < 8; at = (at as { cause?: unknown }).cause, depth++) {
    const { errno, message } = at as { errno?: unknown; message?: unknown };
    if (errno === "22P05" || errno === "22021") return true;
    if (errno === "22P02" && typeof message === "string" && /surrogate|unicode/i.test(message)) return true;
  }
  return false;
}

/** `text` with U+FFFD for each NUL and each unpaired surrogate. */
export const storableText = (text: string): string => text.toWellFormed().replaceAll("\0", "\uFFFD");

/** Replaces, in place, every such text among the keys and values of plain objects and arrays under `value`. */
export function makeStorable(value: unknown): void {
  if (Array.isArray(value)) {
    value.forEach((item, i) => (typeof item === "string" ? (value[i] = storableText(item)) : makeStorable(item)));
    return;
  }
  if (value === null || typeof value !== "object" || Object.getPrototypeOf(value) !== Object.prototype) return;
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    const safeKey = storableText(key);
    if (safeKey !== key) delete record[key];
    if (typeof item === "string") record[safeKey] = storableText(item);
    else {
      record[safeKey] = item;
      makeStorable(item);
    }
  }
}

/** A request's own text was refused by the store: the client's to correct, as a 400. */
export class UnstorableText extends Error {
  readonly status = 400;
  readonly code = "UNSTORABLE_TEXT";
  constructor(cause: unknown) {
    super("The request carries text the store cannot hold: a NUL character or half of a UTF-16 surrogate pair", { cause });
    this.name = "UnstorableText";
  }
}
