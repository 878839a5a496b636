/**
 * Removes credential values from what a service answers before an agent sees it. Every configured value in
 * every encoded form is one Aho-Corasick pattern, so a body is scanned once whatever the number of secrets;
 * well-known token shapes of the configured services are matched by one combined expression. Each removal is
 * marked `[REDACTED:<service>]`.
 *
 * Values written with escapes (percent, JSON, HTML character references; any subset of their bytes, in any
 * case) are found by decoding around each escape (escapes.ts) with the same automaton.
 *
 * Streaming: a redactor holds back only the bytes that could still begin a match (the automaton's current
 * depth, the reach of an escape still to come, and a trailing run of token characters when shapes are in play),
 * plus a match found right before them, so a value split across chunks is still found and the output is the
 * same at any chunk size.
 */
import { Automaton, blockHash } from "./automaton.ts";
import { encodedForms } from "./encodings.ts";
import { EscapeScanner } from "./escapes.ts";

export interface SecretValue {
  service: string;
  value: string;
}

export interface TokenShape {
  service: string;
  /** Source of a regular expression over token characters, e.g. `ghp_[A-Za-z0-9]{36}`. */
  pattern: string;
}

/** Secrets shorter than this are not redacted: they would match ordinary text. */
export const minimumSecretLength = 4;
/** The longest token-character run held back for shape matching; longer runs are cut anyway. */
const maxShapeHold = 4096;
const isTokenByte = new Uint8Array(256);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-.+/=") isTokenByte[c.charCodeAt(0)] = 1;

const isWordByte = new Uint8Array(256);
for (const c of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") isWordByte[c.charCodeAt(0)] = 1;

const encoder = new TextEncoder();

export class Sanitizer {
  readonly #automaton: Automaton | undefined;
  readonly #labels: string[];
  readonly #shapes: { regex: RegExp; services: string[] } | undefined;

  constructor(secrets: SecretValue[], shapes: TokenShape[] = []) {
    const patterns = new Map<string, string>();
    for (const { service, value } of secrets) {
      if (value.length < minimumSecretLength) continue;
      for (const form of encodedForms(value)) if (!patterns.has(form)) patterns.set(form, service);
    }
    this.#labels = [...patterns.values()];
    this.#automaton = patterns.size ? new Automaton([...patterns.keys()].map((p) => encoder.encode(p))) : undefined;
    if (shapes.length) {
      // One group around each shape, so the first group that took part says which service it belongs to; a
      // shape's own groups come after its outer one and are labelled alike.
      const source = shapes.map(({ pattern }) => `(${pattern})`).join("|");
      const services = [""];
      for (const { service, pattern } of shapes) services.push(...Array<string>(groupCount(pattern) + 1).fill(service));
      // Word boundaries are checked after a match: a look-behind here would stop the engine's fast literal scan.
      this.#shapes = { regex: new RegExp(source, "g"), services };
    }
  }

  get empty(): boolean {
    return !this.#automaton && !this.#shapes;
  }

  /** A redactor for one stream. */
  redactor(): Redactor {
    return new Redactor(this.#automaton, this.#labels, this.#shapes);
  }

  /** A web stream that redacts what flows through it. */
  stream(): TransformStream<Uint8Array, Uint8Array> {
    const redactor = this.redactor();
    return new TransformStream({
      transform: (chunk, controller) => {
        const out = redactor.push(chunk);
        if (out.length) controller.enqueue(out);
      },
      flush: (controller) => {
        const out = redactor.end();
        if (out.length) controller.enqueue(out);
      },
    });
  }

  /** Redacts one whole text; `services` names whose values were found. */
  text(input: string): { text: string; services: string[] } {
    const redactor = this.redactor();
    const head = redactor.push(encoder.encode(input));
    const tail = redactor.end();
    return { text: Buffer.concat([head, tail]).toString("utf8"), services: [...redactor.found] };
  }
}

interface Span {
  start: number;
  end: number;
  service: string;
}

export class Redactor {
  #held: Uint8Array = new Uint8Array(0);
  /** Stream offset of the first held byte. */
  #offset = 0;
  #state = 0;
  /** Matches found in the held bytes, positions relative to them: the plain scan's, in order of their end. */
  #spans: Span[] = [];
  /** Those found through escapes, in no particular order. */
  #escapedSpans: Span[] = [];
  readonly #escapes: EscapeScanner | undefined;
  /** The byte just before the held ones, for the word boundary of a shape starting there; -1 at the start. */
  #before = -1;
  readonly found = new Set<string>();

  constructor(
    private readonly automaton: Automaton | undefined,
    private readonly labels: string[],
    private readonly shapes: { regex: RegExp; services: string[] } | undefined,
  ) {
    this.#escapes = automaton && new EscapeScanner(automaton, labels);
  }

  /** Takes the next chunk; returns what can be released now, already redacted. */
  push(chunk: Uint8Array): Buffer {
    const buffer = this.#held.length ? Buffer.concat([this.#held, chunk]) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (!this.automaton) return this.#release(buffer, buffer.length, buffer.length);
    this.#scan(buffer, this.#held.length, this.#spans);
    this.#escapes!.scan(buffer, this.#offset, this.#escapedSpans);
    // The earliest a match still to come can start.
    const pending = Math.min(buffer.length - this.automaton.depth[this.#state]!, this.#escapes!.pending(this.#offset));
    return this.#release(buffer, pending, pending);
  }

  /** Releases everything still held. */
  end(): Buffer {
    const buffer = Buffer.from(this.#held);
    this.#escapes?.scan(buffer, this.#offset, this.#escapedSpans, true);
    return this.#release(buffer, buffer.length, Infinity);
  }

  #scan(buffer: Uint8Array, from: number, spans: Span[]): void {
    const { next, match, width, columns, lengths, window, shift, shallowRows } = this.automaton!;
    const labels = this.labels;
    const length = buffer.length;
    const lastStart = length - window;
    const jumpRows = window ? shallowRows : 0;
    let row = this.#state * width;
    let checked = -1;
    let i = from;
    while (i < length) {
      // At most one byte into a possible match, with a whole window ahead: the shift table may rule out the
      // match under way and the next few starts at once.
      if (row < jumpRows) {
        const start = row === 0 ? i : i - 1;
        if (start > checked && start <= lastStart) {
          checked = start;
          const skip = shift[blockHash(buffer, start + window - 1)]!;
          if (skip && start + skip >= i) {
            i = start + skip;
            row = 0;
            continue;
          }
        }
      }
      row = next[row + columns[buffer[i]!]!]!;
      i++;
      if (row < 0) {
        row = -row - 1;
        const found = match[row / width]!;
        addSpan(spans, i - lengths[found]!, i, labels[found]!);
      }
    }
    this.#state = row / width;
  }

  #release(buffer: Buffer, cut: number, pending: number): Buffer {
    const spans = this.#escapedSpans.length ? [...this.#spans, ...this.#escapedSpans] : this.#spans;
    // Never cut through a match, nor right after one where a match can still start (the two would be one marker),
    // nor through a run of token characters that a shape could cover; keep it for the next round instead.
    for (let moved = true; moved; ) {
      moved = false;
      for (let i = spans.length - 1; i >= 0; i--) {
        const span = spans[i]!;
        if (span.start < cut && (span.end > cut || span.end === pending)) (cut = span.start), (moved = true);
      }
      const run = this.shapes && pending < Infinity ? tokenRunStart(buffer, cut) : cut;
      if (run < cut) (cut = run), (moved = true);
    }
    cut = Math.max(0, cut);
    const released = spans.filter((s) => s.end <= cut);
    if (this.shapes && cut > 0) this.#shapeSpans(buffer, cut, released);
    const kept = (list: Span[]) => list.filter((s) => s.end > cut).map((s) => ({ ...s, start: s.start - cut, end: s.end - cut }));
    this.#spans = kept(this.#spans);
    this.#escapedSpans = kept(this.#escapedSpans);
    this.#offset += cut;
    if (cut > 0) this.#before = buffer[cut - 1]!;
    this.#held = buffer.subarray(cut).slice();
    if (!released.length) return buffer.subarray(0, cut);
    released.sort((a, b) => a.start - b.start);
    const parts: Uint8Array[] = [];
    let at = 0;
    for (const span of merge(released)) {
      if (span.start < at) continue;
      parts.push(buffer.subarray(at, span.start), encoder.encode(`[REDACTED:${span.service}]`));
      this.found.add(span.service);
      at = span.end;
    }
    parts.push(buffer.subarray(at, cut));
    return Buffer.concat(parts);
  }

  #shapeSpans(buffer: Buffer, cut: number, spans: Span[]): void {
    const { regex, services } = this.shapes!;
    const text = buffer.toString("latin1", 0, cut);
    regex.lastIndex = 0;
    for (let m = regex.exec(text); m; m = regex.exec(text)) {
      const end = m.index + m[0].length;
      // The bytes either side may lie beyond the text: the one before was released earlier, the one after is held.
      if (isWordByte[m.index > 0 ? buffer[m.index - 1]! : this.#before] || isWordByte[buffer[end]!]) continue;
      const group = m.findIndex((g, i) => i > 0 && g !== undefined);
      spans.push({ start: m.index, end, service: services[group]! });
    }
  }
}

function addSpan(spans: Span[], start: number, end: number, service: string): void {
  const last = spans[spans.length - 1];
  // Matches arrive in order of their end; one that overlaps the previous extends it.
  if (last && start <= last.end) {
    if (start < last.start) last.start = start;
    last.end = end;
  } else spans.push({ start, end, service });
}

function merge(sorted: Span[]): Span[] {
  const out: Span[] = [];
  for (const span of sorted) {
    const last = out[out.length - 1];
    if (last && span.start <= last.end) last.end = Math.max(last.end, span.end);
    else out.push({ ...span });
  }
  return out;
}

/** Where the run of token characters that ends the buffer begins (bounded, so plain base64 still flows). */
function tokenRunStart(buffer: Uint8Array, end: number): number {
  let i = end;
  while (i > 0 && end - i < maxShapeHold && isTokenByte[buffer[i - 1]!]) i--;
  return end - i >= maxShapeHold ? end : i;
}

/** How many capturing groups a regular expression source has (an empty alternative makes it match ""). */
function groupCount(source: string): number {
  return new RegExp(`${source}|`).exec("")!.length - 1;
}
