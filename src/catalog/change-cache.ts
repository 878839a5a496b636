/**
 * Values read from the database, kept until it changes. Each lookup passes the database's current change mark
 * (repo.changeMark); when the mark has moved, every kept value is dropped before anything is read, so a value is
 * never served after a write that could have changed it, whoever made the write. What is served stays exact;
 * the cache only spares reading and shaping the same rows again while nothing changes, which for a catalog is
 * most of the time.
 */
export class ChangeCache<V> {
  readonly #values = new Map<string, Promise<V>>();
  #mark: string | undefined;

  constructor(readonly capacity: number) {}

  /** The value for `key` as of `mark`: the kept one, or `compute()`'s, which is then kept (unless it fails). */
  get(mark: string, key: string, compute: () => Promise<V>): Promise<V> {
    let value = this.peek(mark, key);
    if (value === undefined) {
      value = compute();
      // Full: the value kept longest goes (a Map iterates in insertion order).
      if (this.#values.size >= this.capacity) this.#values.delete(this.#values.keys().next().value!);
      this.#values.set(key, value);
      const kept = value;
      value.catch(() => {
        if (this.#values.get(key) === kept) this.#values.delete(key);
      });
    }
    return value;
  }

  /** The value kept for `key` as of `mark`, if any. */
  peek(mark: string, key: string): Promise<V> | undefined {
    if (mark !== this.#mark) {
      this.#values.clear();
      this.#mark = mark;
    }
    return this.#values.get(key);
  }
}
