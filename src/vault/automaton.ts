/**
 * Aho-Corasick over bytes, compiled to a dense table: one array load per input byte finds every pattern at once,
 * and the scan state carries across chunk boundaries. Bytes that occur in no pattern share one column, which
 * keeps the table small enough to stay in cache.
 */
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
  readonly lengths: Int32Array;

  constructor(patterns: Uint8Array[]) {
    let width = 1;
    for (const pattern of patterns) for (const byte of pattern) if (this.columns[byte] === 0) this.columns[byte] = width++;
    this.width = width;
    this.lengths = Int32Array.from(patterns, (p) => p.length);

    // The trie, then failure links in breadth-first order, then the dense table.
    const goto: Int32Array[] = [new Int32Array(width).fill(-1)];
    const depth = [0];
    const match = [-1];
    patterns.forEach((pattern, index) => {
      let state = 0;
      for (const byte of pattern) {
        const column = this.columns[byte]!;
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
      if (match[state]! < 0 || this.lengths[match[state]!]! < pattern.length) match[state] = index;
    });

    const states = goto.length;
    this.next = new Int32Array(states * width);
    this.match = Int32Array.from(match);
    this.depth = Int32Array.from(depth);
    const fail = new Int32Array(states);
    const queue: number[] = [];
    for (let column = 0; column < width; column++) {
      const target = goto[0]![column]!;
      this.next[column] = target < 0 ? 0 : target;
      if (target > 0) queue.push(target);
    }
    for (let head = 0; head < queue.length; head++) {
      const state = queue[head]!;
      // A state's own match is the longest one ending here; its failure state's is a suffix of it.
      if (this.match[state]! < 0) this.match[state] = this.match[fail[state]!]!;
      for (let column = 0; column < width; column++) {
        const target = goto[state]![column]!;
        const fallback = this.next[fail[state]! * width + column]!;
        if (target < 0) this.next[state * width + column] = fallback;
        else {
          this.next[state * width + column] = target;
          fail[target] = fallback;
          queue.push(target);
        }
      }
    }
    for (let i = 0; i < this.next.length; i++) {
      const target = this.next[i]!;
      this.next[i] = this.match[target]! >= 0 ? -(target * width) - 1 : target * width;
    }
  }
}
