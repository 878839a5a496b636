/**
 * Finds secrets written with escapes, which no fixed pattern can cover because any subset of a value's bytes may
 * be escaped, in any case: percent escapes (`%4c%65`), JSON string escapes (`\u0065`, `\/`, `\n`, surrogate
 * pairs) and HTML character references (`&#76;`, `&#x4C;`, `&lt;`, named ones through the `entities` package).
 * It decodes around each escape and runs the sanitizer's own automaton over the decoded bytes, so an encoded form
 * written with escapes (a percent-encoded base64 value, say) is found too; each match is mapped back to the bytes
 * it came from.
 *
 * Cheap where there are no escapes: it jumps from one escape character to the next with indexOf, and decodes
 * only around an escape that stands for a byte some pattern contains (no match can pass through any other).
 * Decoding starts `longest - 1` bytes before such an escape and stops once `longest` decoded bytes have passed
 * without another, as no match containing an escape can reach further. Streaming: the decoding state carries
 * across chunks, and `pending` says where the earliest match still to come could begin.
 */
import { decodeHTML } from "entities/decode";
import type { Automaton } from "./automaton.ts";

export interface EscapedSpan {
  start: number;
  end: number;
  service: string;
}

const percent = 0x25; // %
const backslash = 0x5c; // \
const ampersand = 0x26; // &
/** `&` and the longest run of name characters a character reference can have, `;` included. */
const maxReference = 40;

/** What #decodeAt found: that many decoded bytes in `#out`, or none, or a buffer ending inside what may be one. */
const none = 0;
const incomplete = -1;
const encoder = new TextEncoder();

export class EscapeScanner {
  /** Stream offset of buffer[0]: offsets are kept stream-wide so a release does not touch them. */
  #base = 0;
  /** Stream offset of the next byte to read. */
  #next = 0;
  #active = false;
  #row = 0;
  /** Decoded bytes since the window opened, and the count when the last escape was decoded. */
  #decoded = 0;
  #lastEscape = 0;
  /** Stream offset where each of the last `ring.length` decoded bytes came from. */
  readonly #origins: Float64Array;
  readonly #mask: number;
  readonly #longest: number;
  /** The bytes the last escape decoded to, and how many input bytes it took. */
  readonly #out = new Uint8Array(4);
  #taken = 0;
  /** Named character references decoded so far (few names recur): the bytes each stands for, or none. */
  readonly #named = new Map<number | string, Uint8Array | null>();

  constructor(
    private readonly automaton: Automaton,
    private readonly labels: string[],
  ) {
    this.#longest = Math.max(...automaton.lengths);
    const size = 2 ** Math.ceil(Math.log2(this.#longest + 1));
    this.#origins = new Float64Array(size);
    this.#mask = size - 1;
  }

  /**
   * Reads `buffer` (whose first byte is at stream offset `base`) from where it left off, adding a span for each
   * match that crosses an escape. `final` at the end of the stream: a half-written escape is then plain text.
   */
  scan(buffer: Uint8Array, base: number, spans: EscapedSpan[], final = false): void {
    this.#base = base;
    let i = this.#next - base;
    const length = buffer.length;
    // Where the next of each escape character is (length: none left), searched again only once passed: a text
    // full of one of them must not make the search for the others start over each time.
    let nextPercent = -1;
    let nextBackslash = -1;
    let nextAmpersand = -1;
    while (i < length) {
      if (!this.#active) {
        if (nextPercent < i) nextPercent = indexOr(buffer, percent, i, length);
        if (nextBackslash < i) nextBackslash = indexOr(buffer, backslash, i, length);
        if (nextAmpersand < i) nextAmpersand = indexOr(buffer, ampersand, i, length);
        const at = Math.min(nextPercent, nextBackslash, nextAmpersand);
        if (at === length) {
          i = length;
          break;
        }
        const count = this.#decodeAt(buffer, at, final);
        if (count === incomplete) {
          i = at;
          break;
        }
        if (count === none || !this.#relevant(count)) {
          i = at + 1;
          continue;
        }
        // A match through this escape can begin up to longest - 1 bytes before it.
        i = Math.max(0, at - (this.#longest - 1));
        this.#active = true;
        this.#row = 0;
        this.#decoded = 0;
        this.#lastEscape = 0;
        continue;
      }
      const byte = buffer[i]!;
      if (byte === percent || byte === backslash || byte === ampersand) {
        const count = this.#decodeAt(buffer, i, final);
        if (count === incomplete) break;
        if (count !== none) {
          const taken = this.#taken;
          for (let k = 0; k < count; k++) this.#feed(this.#out[k]!, base + i, base + i + taken, spans);
          this.#lastEscape = this.#decoded;
          i += taken;
          continue;
        }
      }
      this.#feed(byte, base + i, base + i + 1, spans);
      i++;
      if (this.#decoded - this.#lastEscape >= this.#longest) this.#active = false;
    }
    this.#next = base + i;
  }

  /**
   * The earliest buffer position (for a buffer of `length` bytes at stream offset `base`) where a match found
   * later could begin: the start of a match under way, or `longest - 1` bytes before where reading resumes, which
   * a window opened by the next escape reaches back to.
   */
  pending(base: number): number {
    let earliest = this.#next - (this.#longest - 1);
    if (this.#active) {
      const depth = this.automaton.depth[this.#row]!;
      if (depth > 0) earliest = Math.min(earliest, this.#origins[(this.#decoded - depth) & this.#mask]!);
    }
    return Math.max(0, earliest - base);
  }

  /** Whether any of the decoded bytes occurs in some pattern: otherwise no match can pass through them. */
  #relevant(count: number): boolean {
    for (let k = 0; k < count; k++) if (this.automaton.columns[this.#out[k]!] !== 0) return true;
    return false;
  }

  /** Decodes the escape at `at` into `#out` (count returned, input length in `#taken`). */
  #decodeAt(buffer: Uint8Array, at: number, final: boolean): number {
    const byte = buffer[at];
    if (byte === percent) {
      const value = hexDigits(buffer, at + 1, 2);
      if (value === -2) return final ? none : incomplete;
      return value < 0 ? none : this.#decoded1(value, 3);
    }
    if (byte === backslash) return this.#json(buffer, at, final);
    return this.#reference(buffer, at, final);
  }

  #decoded1(value: number, taken: number): number {
    this.#out[0] = value;
    this.#taken = taken;
    return 1;
  }

  /** A code point as UTF-8 into `#out`. */
  #codePoint(point: number, taken: number): number {
    this.#taken = taken;
    if (point < 0x80) return this.#decoded1(point, taken);
    const { written } = encoder.encodeInto(String.fromCodePoint(point), this.#out);
    return written;
  }

  #json(buffer: Uint8Array, at: number, final: boolean): number {
    if (at + 1 >= buffer.length) return final ? none : incomplete;
    const kind = buffer[at + 1]!;
    if (kind !== 0x75) {
      const single = jsonSingles[kind]!;
      return single < 0 ? none : this.#decoded1(single, 2);
    }
    const unit = hexDigits(buffer, at + 2, 4);
    if (unit === -2) return final ? none : incomplete;
    if (unit < 0) return none;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      // A high surrogate stands for a character together with the low one that follows it as `\uDCxx`.
      if (at + 7 >= buffer.length) return final ? this.#codePoint(0xfffd, 6) : incomplete;
      const low = buffer[at + 6] === backslash && buffer[at + 7] === 0x75 ? hexDigits(buffer, at + 8, 4) : -1;
      if (low === -2) return final ? this.#codePoint(0xfffd, 6) : incomplete;
      if (low >= 0xdc00 && low <= 0xdfff) return this.#codePoint(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00), 12);
    }
    return this.#codePoint(unit, 6);
  }

  /** `&#76;`, `&#x4C;` or `&name;` (a legacy name without `;` too), as HTML decodes it. */
  #reference(buffer: Uint8Array, at: number, final: boolean): number {
    let end = at + 1;
    while (end < buffer.length && end - at < maxReference && referenceBytes[buffer[end]!]) end++;
    if (end === buffer.length && end - at < maxReference && !final) return incomplete;
    if (buffer[end] === 0x3b) end++; // the closing `;`
    if (end - at < 3) return none;
    if (buffer[at + 1] === 0x23) {
      const hex = (buffer[at + 2]! | 0x20) === 0x78;
      let point = 0;
      let digits = 0;
      for (let k = at + (hex ? 3 : 2); k < end && buffer[k] !== 0x3b; k++, digits++) {
        const digit = hex ? hexValues[buffer[k]!]! : buffer[k]! >= 0x30 && buffer[k]! <= 0x39 ? buffer[k]! - 0x30 : -1;
        if (digit < 0) return none;
        point = point * (hex ? 16 : 10) + digit;
        if (point > 0x10ffff) return none;
      }
      return digits ? this.#codePoint(point, end - at) : none;
    }
    // Names recur (`&amp;` most of all): each is decoded once, then found by a number packed from its bytes.
    const key = packedName(buffer, at + 1, end);
    let bytes = this.#named.get(key);
    if (bytes === undefined) {
      const name = String.fromCharCode(...buffer.subarray(at, end));
      const decoded = decodeHTML(name);
      bytes = decoded !== name && [...decoded].length === 1 ? encoder.encode(decoded) : null;
      if (this.#named.size < 1024) this.#named.set(key, bytes);
    }
    // One character, at most four bytes of UTF-8.
    if (!bytes) return none;
    this.#out.set(bytes);
    this.#taken = end - at;
    return bytes.length;
  }

  #feed(byte: number, start: number, end: number, spans: EscapedSpan[]): void {
    const { next, columns, match, width, lengths } = this.automaton;
    this.#origins[this.#decoded & this.#mask] = start;
    this.#decoded++;
    let row = next[this.#row * width + columns[byte]!]!;
    if (row < 0) {
      row = -row - 1;
      const found = match[row / width]!;
      // A match without an escape in it is the plain scan's too; the two spans merge when released.
      spans.push({ start: this.#origins[(this.#decoded - lengths[found]!) & this.#mask]! - this.#base, end: end - this.#base, service: this.labels[found]! });
    }
    this.#row = row / width;
  }
}

/** byte -> its value as a hex digit, or -1 */
const hexValues = new Int8Array(256).fill(-1);
for (const [from, to, value] of [[0x30, 0x39, 0], [0x41, 0x46, 10], [0x61, 0x66, 10]] as const)
  for (let byte = from; byte <= to; byte++) hexValues[byte] = value + byte - from;

/** Reads `count` hex digits at `at`: their value, -1 if one is not a digit, -2 if the buffer ends first. */
function hexDigits(buffer: Uint8Array, at: number, count: number): number {
  if (at + count > buffer.length) {
    for (let k = at; k < buffer.length; k++) if (hexValues[buffer[k]!]! < 0) return -1;
    return -2;
  }
  let value = 0;
  for (let k = at; k < at + count; k++) {
    const digit = hexValues[buffer[k]!]!;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** The byte after a backslash -> what the JSON escape stands for, or -1 (`u` is read apart). */
const jsonSingles = new Int16Array(256).fill(-1);
for (const [kind, byte] of [[0x22, 0x22], [0x5c, 0x5c], [0x2f, 0x2f], [0x62, 0x08], [0x66, 0x0c], [0x6e, 0x0a], [0x72, 0x0d], [0x74, 0x09]])
  jsonSingles[kind!] = byte!;

const indexOr = (buffer: Uint8Array, byte: number, from: number, none: number) => {
  const at = buffer.indexOf(byte, from);
  return at < 0 ? none : at;
};

/** A reference name's bytes (after `&`) packed into one number, when short enough; else the name itself. */
function packedName(buffer: Uint8Array, from: number, end: number): number | string {
  if (end - from > 7) return String.fromCharCode(...buffer.subarray(from, end));
  let key = end - from;
  for (let k = from; k < end; k++) key = key * 128 + buffer[k]!;
  return key;
}

/** Bytes a character reference's name (or number) is made of: letters, digits and `#`. */
const referenceBytes = new Uint8Array(256);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789#") referenceBytes[c.charCodeAt(0)] = 1;
