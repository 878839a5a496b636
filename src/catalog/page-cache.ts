/**
 * Product list pages, kept until the database changes. Each lookup passes the database's current change mark
 * (repo.changeMark); when the mark has moved, every kept page is dropped before anything is read, so a page is
 * never served after a write that could have changed it, whoever made the write. Pages and totals stay exact;
 * the cache only spares recomputing a search while nothing changes, which for a catalog is most of the time.
 */
export class PageCache<V> {
  readonly #pages = new Map<string, V>();
  #mark: string | undefined;

  constructor(readonly capacity: number) {}

  /** The page for `key` as of `mark`: the kept one, or `compute()`'s, which is then kept. */
  get(mark: string, key: string, compute: () => V): V {
    if (mark !== this.#mark) {
      this.#pages.clear();
      this.#mark = mark;
    }
    let page = this.#pages.get(key);
    if (page === undefined) {
      page = compute();
      // Full: the page kept longest goes (a Map iterates in insertion order).
      if (this.#pages.size >= this.capacity) this.#pages.delete(this.#pages.keys().next().value!);
      this.#pages.set(key, page);
    }
    return page;
  }
}
