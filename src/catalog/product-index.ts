/**
 * Every product's searchable text, category, price, name and creation time, kept in memory, so that a filtered,
 * sorted page and its exact total take well under a millisecond among 100,000 products, for a search never made
 * before as for any other. The database stays the truth; this is a copy that always catches up before it answers.
 *
 * Search is a case-insensitive substring match in name or description. Each product's text is lower-cased once;
 * a trigram index (each run of 3 UTF-16 code units -> the products whose text holds it) narrows a term of 3 or
 * more code units to the products holding all of its trigrams, and each of those is confirmed with a substring
 * test. A shorter term has no trigram and is tested against every product. The outcome of the tests is kept per
 * term and category until a product changes, for the other pages, sorts and price bounds of the same search.
 *
 * Catching up: triggers log every change of a product, by any writer (catalog_product_changes), on any node sharing
 * the store. Before each answer the index applies the changes logged since the last one it saw; when too many came
 * (or the log no longer reaches back that far, which shows as too many), it is built again from the table, a chunk
 * of rows per turn of the event loop.
 */
import type { Db } from "../db/client.ts";
import type { Category, ProductSort } from "./model.ts";
import { categories } from "./model.ts";
import * as repo from "./repo.ts";
import type { Window } from "./repo.ts";

export interface ProductFilter {
  category?: Category;
  search?: string;
  minPriceCents?: number;
  maxPriceCents?: number;
}

/** More logged changes than this at once are cheaper to read as a fresh build than one by one. */
const catchUpLimit = 2_000;
/** Rows read and indexed per turn of the event loop while building: some 10 ms of work. */
const buildChunk = 2_000;
/** How many searches' outcomes are kept (some 12 KB each for 100,000 products). */
const keptSearches = 256;
/** Logged changes kept behind the newest that this index has applied, for other readers of the same database. */
const keptChanges = 10_000;

const categoryCode = new Map<Category | null, number>([[null, 0], ...categories.map((c, i): [Category, number] => [c, i + 1])]);

/**
 * A trigram as one number. Three code units below 1024 (Latin, Greek, Cyrillic and more) pack exactly; any other
 * trigram is hashed to a negative number, where two may share a key: the substring test that confirms every
 * candidate keeps the answer exact.
 */
const trigramKey = (a: number, b: number, c: number) =>
  (a | b | c) < 1024 ? (a << 20) | (b << 10) | c : -1 - ((Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca6b) ^ Math.imul(c, 0xc2b2ae35)) >>> 1);

/** Whether a set of slots, as 32-bit words, holds `slot`. */
const has = (bits: Uint32Array, slot: number) => ((bits[slot >>> 5] ?? 0) & (1 << (slot & 31))) !== 0;

function grown<A extends Int32Array | Uint32Array | Float64Array>(array: A, length: number): A {
  const bigger = new (array.constructor as new (length: number) => A)(Math.max(length, array.length * 2));
  bigger.set(array);
  return bigger;
}

/** The slots whose text holds one trigram, ascending: a list while short, a bitmap once the list would be larger. */
class Posting {
  size = 0;
  list: Int32Array | undefined = new Int32Array(2);
  bits: Uint32Array | undefined;

  add(slot: number): void {
    if (this.bits) {
      const word = slot >>> 5;
      if (word >= this.bits.length) this.bits = grown(this.bits, word + 1);
      if (!has(this.bits, slot)) {
        this.bits[word]! |= 1 << (slot & 31);
        this.size++;
      }
      return;
    }
    const list = this.list!;
    if (this.size && list[this.size - 1] === slot) return; // the same text again
    if (this.size === list.length) {
      if (this.size >= 64 && this.size * 32 >= slot) {
        this.bits = new Uint32Array((slot >>> 5) + 1);
        for (let i = 0; i < this.size; i++) this.bits[list[i]! >>> 5]! |= 1 << (list[i]! & 31);
        this.list = undefined;
        return this.add(slot);
      }
      this.list = grown(list, list.length * 2);
    }
    this.list![this.size++] = slot;
  }
}

/** The indexed products. A product's slot is never reused: a change is a removal and a new slot. */
class Slots {
  count = 0;
  live = 0;
  readonly ids: string[] = [];
  readonly texts: string[] = [];
  readonly names: string[] = [];
  prices = new Float64Array(1024);
  created = new Float64Array(1024);
  /** The slots of products that exist, and of each category (by categoryCode), as bitmaps. */
  alive = new Uint32Array(32);
  byCategory = Array.from(categoryCode.values(), () => new Uint32Array(32));
  readonly slotOf = new Map<string, number>();
  readonly postings = new Map<number, Posting>();

  add(row: repo.IndexedProduct) {
    this.remove(row.id);
    const slot = this.count++;
    if (slot === this.prices.length) {
      this.prices = grown(this.prices, slot * 2);
      this.created = grown(this.created, slot * 2);
    }
    const word = slot >>> 5;
    if (word === this.alive.length) {
      this.alive = grown(this.alive, word * 2);
      this.byCategory = this.byCategory.map((bits) => grown(bits, word * 2));
    }
    const name = row.name.toLowerCase();
    // NUL never occurs in a search term, so no match spans the name and the description.
    const text = `${name}\0${row.description.toLowerCase()}`;
    this.ids[slot] = row.id;
    this.names[slot] = name;
    this.texts[slot] = text;
    this.prices[slot] = row.priceCents;
    this.created[slot] = row.createdAt;
    this.alive[word]! |= 1 << (slot & 31);
    this.byCategory[categoryCode.get(row.category)!]![word]! |= 1 << (slot & 31);
    this.slotOf.set(row.id, slot);
    this.live++;
    for (let i = 2, a = text.charCodeAt(0), b = text.charCodeAt(1); i < text.length; i++) {
      const c = text.charCodeAt(i);
      const key = trigramKey(a, b, c);
      let posting = this.postings.get(key);
      if (!posting) this.postings.set(key, (posting = new Posting()));
      posting.add(slot);
      a = b;
      b = c;
    }
  }

  remove(id: string) {
    const slot = this.slotOf.get(id);
    if (slot === undefined) return;
    this.slotOf.delete(id);
    this.alive[slot >>> 5]! &= ~(1 << (slot & 31));
    this.texts[slot] = this.names[slot] = "";
    this.live--;
  }

  /** The postings of the term's trigrams, rarest first; null when one occurs nowhere (nothing can match). */
  postingsOf(term: string): Posting[] | null {
    const found: Posting[] = [];
    for (let i = 2; i < term.length; i++) {
      const posting = this.postings.get(trigramKey(term.charCodeAt(i - 2), term.charCodeAt(i - 1), term.charCodeAt(i)));
      if (!posting) return null;
      found.push(posting);
    }
    return found.sort((a, b) => a.size - b.size);
  }
}

const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What a sort compares: a number (price, creation time) or a text (the lower-cased name), then the id. */
interface Order {
  numbers?: Float64Array;
  texts?: string[];
  ids: string[];
  descending: boolean;
}

function orderOf(slots: Slots, sort: ProductSort): Order {
  const field = sort.replace(/^-/, "");
  const key = field === "price" ? { numbers: slots.prices } : field === "name" ? { texts: slots.names } : { numbers: slots.created };
  return { ...key, ids: slots.ids, descending: sort.startsWith("-") };
}

/**
 * The first `k` of `count` slots in `order`, in that order. Each sort is ascending with ties broken by id, and
 * its `-` form the exact reverse, so pages never overlap. A bounded heap keeps the k so far, its root the last of
 * them: a first page costs one pass, and most slots are turned away by one comparison of numbers.
 */
function firstInOrder(slots: Int32Array, count: number, k: number, { numbers, texts, ids, descending }: Order): Int32Array {
  const compare = (a: number, b: number) => {
    const by = numbers ? numbers[a]! - numbers[b]! : byText(texts![a]!, texts![b]!);
    const order = by || byText(ids[a]!, ids[b]!);
    return descending ? -order : order;
  };
  if (k * 8 >= count) return slots.subarray(0, count).sort(compare).subarray(0, k);
  const heap = new Int32Array(k);
  let size = 0;
  const swap = (i: number, j: number) => {
    const kept = heap[i]!;
    heap[i] = heap[j]!;
    heap[j] = kept;
  };
  // Slots come in the order products were indexed, mostly that of their creation: read newest first for a
  // descending sort, so that the heap fills with what it keeps and turns the rest away at once.
  for (let i = 0; i < count; i++) {
    const slot = slots[descending ? count - 1 - i : i]!;
    if (size < k) {
      heap[size] = slot;
      for (let at = size++; at > 0 && compare(heap[(at - 1) >> 1]!, heap[at]!) < 0; at = (at - 1) >> 1) swap(at, (at - 1) >> 1);
      continue;
    }
    if (numbers) {
      const by = numbers[slot]! - numbers[heap[0]!]!;
      if (descending ? by < 0 : by > 0) continue;
    }
    if (compare(slot, heap[0]!) >= 0) continue;
    heap[0] = slot;
    for (let at = 0; ; ) {
      const left = at * 2 + 1;
      if (left >= size) break;
      const child = left + 1 < size && compare(heap[left + 1]!, heap[left]!) > 0 ? left + 1 : left;
      if (compare(heap[child]!, heap[at]!) <= 0) break;
      swap(at, child);
      at = child;
    }
  }
  return heap.sort(compare);
}

export class ProductIndex {
  #slots = new Slots();
  /** The last logged change applied. */
  #seq = 0;
  /** The database's change mark when the index last caught up (repo.changeMark). */
  #mark: string | undefined;
  /** Whether the copy cannot be caught up change by change (never built, or the log no longer reaches back). */
  #stale = true;
  #building: Promise<void> | undefined;
  #closed = false;
  #prunedTo = 0;
  #matched = new Int32Array(0);
  /** Recent searches' outcomes (#found), by category and term; emptied whenever a product changes. */
  readonly #kept = new Map<string, Uint32Array>();

  constructor(readonly db: Db) {}

  /**
   * Catches up with the store and resolves with the change mark (repo.changeMark) it is level with: usually after
   * applying a few logged changes, after building the copy first when it must. `page()` reads the copy as it is
   * when called, so a page taken right after this is as of that mark or later.
   */
  async level(): Promise<string> {
    for (;;) {
      if (this.#stale) await this.#build();
      const mark = await repo.changeMark(this.db);
      if (mark === this.#mark && !this.#stale) return mark;
      if (this.#stale) continue;
      if (!this.#catchingUp) this.#catchingUp = this.#catchUp(mark).finally(() => (this.#catchingUp = undefined));
      const caught = await this.#catchingUp;
      if (caught !== undefined) return caught;
    }
  }
  #catchingUp: Promise<string | undefined> | undefined;

  /** Applies what was logged since the last change seen; undefined when the copy must be built afresh instead. */
  async #catchUp(mark: string): Promise<string | undefined> {
    const changes = await repo.productChangesAfter(this.db, this.#seq, catchUpLimit + 1);
    // Too many, or a log that no longer reaches back to the next change this copy needs (pruned by a reader further
    // ahead; a number PostgreSQL skipped for a write that rolled back is no such gap): build afresh.
    const pruned = changes.length > 0 && changes[0]!.seq !== this.#seq + 1 && (await repo.firstProductChange(this.db)) > this.#seq + 1;
    if (changes.length > catchUpLimit || pruned) {
      this.#stale = true;
      return undefined;
    }
    if (changes.length) {
      const changed = [...new Set(changes.map((c) => c.productId))];
      const current = new Map((await repo.indexedProducts(this.db, changed)).map((row) => [row.id, row]));
      for (const id of changed) {
        const row = current.get(id);
        if (row) this.#slots.add(row);
        else this.#slots.remove(id);
      }
      this.#seq = Math.max(this.#seq, changes.at(-1)!.seq);
      this.#kept.clear();
    }
    // Mostly removed slots: build a compact copy, answering from this one (still exact) meanwhile. Should that
    // fail, this copy stays in use and a later catch-up tries again.
    if (!this.#building && this.#slots.count - this.#slots.live > Math.max(10_000, this.#slots.live)) this.#build().catch(() => {});
    // Forgetting old log rows is a write: the mark moves with it.
    return (this.#mark = (await this.#prune()) ? await repo.changeMark(this.db) : mark);
  }

  /** One page of the products that pass `filter`, in `sort` order, and how many pass in all. Call when `level()`. */
  page(filter: ProductFilter, sort: ProductSort, { offset, limit }: Window): { ids: string[]; total: number } {
    const slots = this.#slots;
    const found = this.#found(filter.search?.toLowerCase() ?? "", filter.category);
    const { prices } = slots;
    const min = filter.minPriceCents ?? -Infinity;
    const max = filter.maxPriceCents ?? Infinity;
    if (this.#matched.length < slots.count) this.#matched = new Int32Array(slots.count * 2);
    const matched = this.#matched;
    let total = 0;
    for (let word = 0; word < found.length; word++) {
      for (let bits = found[word]!; bits; bits &= bits - 1) {
        const slot = (word << 5) | (31 - Math.clz32(bits & -bits));
        if (prices[slot]! >= min && prices[slot]! <= max) matched[total++] = slot;
      }
    }
    if (offset >= total) return { ids: [], total };
    const first = firstInOrder(matched, total, Math.min(total, offset + limit), orderOf(slots, sort));
    return { ids: Array.from(first.subarray(offset), (slot) => slots.ids[slot]!), total };
  }

  /**
   * The live slots in `category` (any when undefined) whose text holds `term`, as a bitmap. Substring tests are
   * the cost of a search: their outcome for a term and category is kept, for other pages, sorts and prices, until
   * a product changes.
   */
  #found(term: string, category: Category | undefined): Uint32Array {
    const slots = this.#slots;
    const { alive, texts } = slots;
    const inCategory = category === undefined ? undefined : slots.byCategory[categoryCode.get(category)!]!;
    // A term of exactly one trigram packed without loss is answered by its posting alone.
    const exact = term.length === 3 && trigramKey(term.charCodeAt(0), term.charCodeAt(1), term.charCodeAt(2)) >= 0;
    const key = term && !exact ? `${category ?? ""}\0${term}` : undefined;
    const kept = key === undefined ? undefined : this.#kept.get(key);
    if (kept) return kept;
    const words = (slots.count + 31) >>> 5;
    const found = new Uint32Array(words);
    const postings = term.length >= 3 ? slots.postingsOf(term) : [];
    if (!postings) return found;
    const rarest = postings[0];
    if (rarest?.list) {
      // Few candidates: each is checked against the rest.
      const others = postings.flatMap((posting) => (posting.bits ? [posting.bits] : []));
      next: for (let i = 0; i < rarest.size; i++) {
        const slot = rarest.list[i]!;
        if (!has(alive, slot) || (inCategory && !has(inCategory, slot))) continue;
        for (const bits of others) if (!has(bits, slot)) continue next;
        if (exact || texts[slot]!.includes(term)) found[slot >>> 5]! |= 1 << (slot & 31);
      }
    } else {
      // Many: whole words of 32 slots are narrowed at once, by every bitmap that applies, before any is tested.
      const bitmaps = postings.flatMap((posting) => (posting.bits ? [posting.bits] : []));
      if (inCategory) bitmaps.push(inCategory);
      for (let word = 0; word < words; word++) {
        let bits = alive[word]!;
        for (let b = 0; b < bitmaps.length && bits; b++) bits &= bitmaps[b]![word] ?? 0;
        if (term && !exact) for (let rest = bits; rest; rest &= rest - 1) {
          const bit = rest & -rest;
          if (!texts[(word << 5) | (31 - Math.clz32(bit))]!.includes(term)) bits &= ~bit;
        }
        found[word] = bits;
      }
    }
    if (key !== undefined) {
      if (this.#kept.size >= keptSearches) this.#kept.delete(this.#kept.keys().next().value!);
      this.#kept.set(key, found);
    }
    return found;
  }

  /** Stops a build in progress at its next chunk (the database is about to close). */
  close() {
    this.#closed = true;
  }

  /** Reads the whole table into a fresh copy, a chunk per turn, then catches up with what was logged meanwhile. */
  #build(): Promise<void> {
    return (this.#building ??= (async () => {
      try {
        const from = await repo.lastProductChange(this.db);
        const fresh = new Slots();
        for (let after = ""; ; ) {
          const rows = await repo.indexedProductsAfter(this.db, after, buildChunk);
          for (const row of rows) fresh.add(row);
          if (rows.length < buildChunk) break;
          after = rows.at(-1)!.id;
          await new Promise((resolve) => setImmediate(resolve));
          if (this.#closed) throw new Error("the catalog is shutting down");
        }
        this.#slots = fresh;
        this.#kept.clear();
        this.#seq = from;
        this.#mark = undefined;
        this.#stale = false;
      } finally {
        this.#building = undefined;
      }
    })());
  }

  /** Forgets logged changes well behind the last one applied, now and then; whether it did. */
  async #prune(): Promise<boolean> {
    if (this.#seq - this.#prunedTo < keptChanges * 2) return false;
    this.#prunedTo = this.#seq - keptChanges;
    await repo.forgetProductChanges(this.db, this.#prunedTo);
    return true;
  }
}
