/**
 * Aho-Corasick over bytes, compiled to a dense table: one array load per input byte finds every pattern at once,
 * and the scan state carries across chunk boundaries. Bytes that occur in no pattern share one column, which
 * keeps the table small enough to stay in cache.
 *
 * While the scan is at most one byte into a possible match, a Wu-Manber shift table lets it jump: every pattern
 * is at least `window` bytes long, so if the three bytes ending a window of that size at position i occur nowhere
 * near the end of any pattern's first `window` bytes, no match can start at i, nor at the next few positions.
 * Ordinary text between secrets is then passed over many bytes at a time instead of one transition per byte.
 */
const block = 3;
/** Below this, jumps are too short to repay the look-ups (measured: no gain at 8, a loss at 6). */
const minWindow = 8;
/** Shifts are stored in bytes; longer windows gain little, as the table fills up with their blocks. */
const maxWindow = 255;

/** Which shift-table entry the three bytes ending at `end` use. */
export const blockHash = (bytes: Uint8Array, end: number): number =>
  Math.imul((bytes[end - 2]! << 16) | (bytes[end - 1]! << 8) | bytes[end]!, 0x9e3779b1) >>> 16;

export class Automaton {
  /** byte -> column */
  readonly columns = new Uint8Array(256);
  readonly width: number;
  /**
   * (state * width + column) -> next state, itself pre-multiplied by width; negative (-(next * width) - 1) when a
   * pattern ends in the next state, so the scan loop tests one sign per byte.
   */
  readonly next: Int32Array;
  /** state -> index of the longest pattern ending here, or -1 */
  readonly match: Int32Array;
  /** state -> length of the input suffix it stands for (the bytes a future match could still start in) */
  readonly depth: Int32Array;
  /** Rows below this belong to the root or a state one byte deep (states are numbered breadth-first). */
  readonly shallowRows: number;
  readonly lengths: Int32Array;
  /** The length every pattern reaches (capped), or 0 when patterns are too short for jumping to pay. */
  readonly window: number;
  /** blockHash -> how far the window may move on: 0 when a match could start at its first byte */
  readonly shift = new Uint8Array(1 << 16);

  constructor(patterns: Uint8Array[]) {
    let width = 1;
    for (const pattern of patterns) for (const byte of pattern) if (this.columns[byte] === 0) this.columns[byte] = width++;
    this.width = width;
    this.lengths = Int32Array.from(patterns, (p) => p.length);
    this.window = this.#buildShifts(patterns);

    // The trie, renumbered breadth-first, then failure links in that order, then the dense table.
    const trie = buildTrie(patterns, this.columns, width);
    const order = [0];
    for (let head = 0; head < order.length; head++)
      for (const target of trie.goto[order[head]!]!) if (target > 0) order.push(target);
    const rank = new Int32Array(order.length);
    order.forEach((state, r) => (rank[state] = r));
    const goto = order.map((state) => trie.goto[state]!.map((target) => (target < 0 ? -1 : rank[target]!)));
    this.depth = Int32Array.from(order, (state) => trie.depth[state]!);
    this.match = Int32Array.from(order, (state) => trie.match[state]!);
    const firstDeep = this.depth.findIndex((d) => d > 1);
    this.shallowRows = (firstDeep < 0 ? order.length : firstDeep) * width;

    const states = order.length;
    this.next = new Int32Array(states * width);
    const fail = new Int32Array(states);
    for (let column = 0; column < width; column++) this.next[column] = Math.max(0, goto[0]![column]!);
    for (let state = 1; state < states; state++) {
      // A state's own match is the longest one ending here; its failure state's is a suffix of it.
      if (this.match[state]! < 0) this.match[state] = this.match[fail[state]!]!;
      for (let column = 0; column < width; column++) {
        const target = goto[state]![column]!;
        const fallback = this.next[fail[state]! * width + column]!;
        if (target < 0) this.next[state * width + column] = fallback;
        else {
          this.next[state * width + column] = target;
          fail[target] = fallback;
        }
      }
    }
    for (let i = 0; i < this.next.length; i++) {
      const target = this.next[i]!;
      this.next[i] = this.match[target]! >= 0 ? -(target * width) - 1 : target * width;
    }
  }

  #buildShifts(patterns: Uint8Array[]): number {
    const window = Math.min(maxWindow, ...patterns.map((p) => p.length));
    if (window < minWindow) return 0;
    this.shift.fill(window - block + 1);
    for (const pattern of patterns)
      for (let end = block - 1; end < window; end++) {
        const h = blockHash(pattern, end);
        this.shift[h] = Math.min(this.shift[h]!, window - 1 - end);
      }
    return window;
  }
}

/** The plain trie: goto[state][column] is the child or -1; match[state] the longest pattern ending there or -1. */
function buildTrie(patterns: Uint8Array[], columns: Uint8Array, width: number) {
  const goto: Int32Array[] = [new Int32Array(width).fill(-1)];
  const depth = [0];
  const match = [-1];
  patterns.forEach((pattern, index) => {
    let state = 0;
    for (const byte of pattern) {
      const column = columns[byte]!;
      let target = goto[state]![column]!;
      if (target < 0) {
        target = goto.length;
        goto.push(new Int32Array(width).fill(-1));
        depth.push(depth[state]! + 1);
        match.push(-1);
        goto[state]![column] = target;
      }
      state = target;
    }
    if (match[state]! < 0 || patterns[match[state]!]!.length < pattern.length) match[state] = index;
  });
  return { goto, depth, match };
}
