/**
 * n-gram counting shared by BLEU and CIDEr-D. Tokens and n-grams are interned to integer
 * ids once, and a sentence's counts are kept as sorted id arrays: matching two sentences
 * is then a merge of two short sorted arrays, with no string keys built on the hot path.
 */
import { Candidates, References, imageIdsOf, splitTokens } from './types';

/** Counts of one n-gram order in one sentence: ids ascending, counts aligned with them. */
export interface SparseCounts {
  ids: Int32Array;
  counts: Int32Array;
}

/**
 * Interns tokens and n-grams (an n-gram = its (n−1)-gram prefix id + one token id) to dense ids.
 * The (prefix, token) → id lookup is an open-addressing hash table over typed arrays: a Map keyed
 * by a combined number was the hot spot (non-small-integer keys are boxed and slow to hash).
 */
export class NgramTable {
  private readonly tokenIds = new Map<string, number>();
  /** Open addressing, one slot = [prefix, token, id + 1] side by side so a probe touches one cache line; 0 = empty. */
  private slots: Int32Array;
  private capacity: number;
  private count_ = 0;

  /** @param expectedNgrams a size hint that saves rehashing */
  constructor(expectedNgrams = 1 << 15) {
    this.capacity = 2 ** Math.ceil(Math.log2(Math.max(1 << 16, 2 * expectedNgrams)));
    this.slots = new Int32Array(this.capacity * 3);
  }

  /** Number of distinct n-grams seen so far (ids are 0 .. size−1). */
  get size(): number {
    return this.count_;
  }

  private tokenId(token: string): number {
    let id = this.tokenIds.get(token);
    if (id === undefined) {
      id = this.tokenIds.size;
      this.tokenIds.set(token, id);
    }
    return id;
  }

  /** Offset of the slot holding (prefix, token), or of the empty slot where it belongs. */
  private slotOf(prefix: number, token: number): number {
    const mask = this.capacity - 1;
    let h = Math.imul(prefix, 0x9e3779b1) + token;
    h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
    let slot = (h ^ (h >>> 13)) & mask;
    const slots = this.slots;
    for (;;) {
      const at = slot * 3;
      if (slots[at + 2] === 0 || (slots[at] === prefix && slots[at + 1] === token)) return at;
      slot = (slot + 1) & mask;
    }
  }

  private ngramId(prefix: number, token: number): number {
    let at = this.slotOf(prefix, token);
    if (this.slots[at + 2] !== 0) return this.slots[at + 2] - 1;
    if (2 * (this.count_ + 1) > this.capacity) {
      this.grow();
      at = this.slotOf(prefix, token);
    }
    this.slots[at] = prefix;
    this.slots[at + 1] = token;
    this.slots[at + 2] = this.count_ + 1;
    return this.count_++;
  }

  private grow(): void {
    const old = this.slots;
    this.capacity *= 2;
    this.slots = new Int32Array(this.capacity * 3);
    for (let i = 0; i < old.length; i += 3) {
      if (old[i + 2] === 0) continue;
      const at = this.slotOf(old[i], old[i + 1]);
      this.slots[at] = old[i];
      this.slots[at + 1] = old[i + 1];
      this.slots[at + 2] = old[i + 2];
    }
  }

  /** Counts of every n-gram of order 1..maxN in the sentence, one entry per order (index 0 = unigrams). */
  count(tokens: readonly string[], maxN: number): SparseCounts[] {
    const pool = new CountPool(maxN);
    this.countInto(tokens, maxN, pool);
    return pool.sentence(0);
  }

  /** Appends the sentence's sorted n-gram ids and counts, order by order, to the pool. */
  countInto(tokens: readonly string[], maxN: number, pool: CountPool): void {
    const length = tokens.length;
    const byOrder: number[][] = [];
    for (let n = 1; n <= maxN; n++) byOrder.push([]);
    const tokenIds = tokens.map((t) => this.tokenId(t));
    for (let start = 0; start < length; start++) {
      let prefix = -1;
      for (let n = 1; n <= maxN && start + n <= length; n++) {
        prefix = this.ngramId(prefix, tokenIds[start + n - 1]);
        byOrder[n - 1].push(prefix);
      }
    }
    for (const grams of byOrder) pool.addOrder(grams);
    pool.endSentence(length);
  }
}

/** A growable Int32Array. */
class IntList {
  data = new Int32Array(1024);
  length = 0;

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }
}

/**
 * Every sentence's sparse counts in three flat typed arrays (ids, counts, and where each sentence's
 * order starts): on 100k images the per-sentence arrays were most of `cckit score`'s memory.
 */
export class CountPool {
  private readonly ids = new IntList();
  private readonly counts = new IntList();
  /** starts[s·maxN + n]: offset of sentence s's order n+1; one more entry closes the last. */
  private readonly starts = new IntList();
  private readonly lengths = new IntList();

  constructor(readonly maxN: number) {
    this.starts.push(0);
  }

  get sentences(): number {
    return this.lengths.length;
  }

  /** Adds one order's n-gram ids (sorted here, repeats counted). */
  addOrder(grams: number[]): void {
    grams.sort((a, b) => a - b);
    for (let i = 0; i < grams.length; i++) {
      if (i > 0 && grams[i] === grams[i - 1]) this.counts.data[this.counts.length - 1]++;
      else {
        this.ids.push(grams[i]);
        this.counts.push(1);
      }
    }
    this.starts.push(this.ids.length);
  }

  endSentence(tokens: number): void {
    this.lengths.push(tokens);
  }

  length(s: number): number {
    return this.lengths.data[s];
  }

  /** Sentence s's counts per order, as views into the pool (valid until more is added). */
  sentence(s: number): SparseCounts[] {
    const out: SparseCounts[] = [];
    for (let n = 0; n < this.maxN; n++) {
      const from = this.starts.data[s * this.maxN + n];
      const to = this.starts.data[s * this.maxN + n + 1];
      out.push({ ids: this.ids.data.subarray(from, to), counts: this.counts.data.subarray(from, to) });
    }
    return out;
  }
}

/** Count of `id` in sorted sparse counts, 0 when absent (binary search). */
export function countOf(sparse: SparseCounts, id: number): number {
  let lo = 0;
  let hi = sparse.ids.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const value = sparse.ids[mid];
    if (value === id) return sparse.counts[mid];
    if (value < id) lo = mid + 1;
    else hi = mid - 1;
  }
  return 0;
}

/** One image's n-gram counts (orders 1..maxN) and lengths, for BLEU and CIDEr-D. */
export interface CountedImage {
  candidate: SparseCounts[];
  candidateLength: number;
  references: SparseCounts[][];
  referenceLengths: number[];
}

/** Every image of a scoring call counted once over one n-gram table, shared by BLEU and CIDEr-D. */
export interface CountedCorpus {
  imageIds: string[];
  /** Image i's counts (made on demand from the flat pool: hold one at a time). */
  image(i: number): CountedImage;
  /** Number of distinct n-grams (ids are below it). */
  ngramCount: number;
  maxN: number;
}

export const COUNTED_MAX_N = 4;

function roughTokenCount(text: string): number {
  let spaces = 1;
  for (let i = text.indexOf(' '); i >= 0; i = text.indexOf(' ', i + 1)) spaces++;
  return spaces;
}

export function countCorpus(references: References, candidates: Candidates, maxN = COUNTED_MAX_N): CountedCorpus {
  const imageIds = imageIdsOf(references, candidates);
  let tokens = 0;
  for (const id of imageIds) {
    tokens += roughTokenCount(candidates[id]);
    for (const ref of references[id]) tokens += roughTokenCount(ref);
  }
  const table = new NgramTable((tokens * maxN) / 4); // real captions repeat most n-grams
  const pool = new CountPool(maxN);
  // Image i's sentences: its candidate at firstSentence[i], then its references.
  const firstSentence = new Int32Array(imageIds.length + 1);
  imageIds.forEach((id, i) => {
    firstSentence[i] = pool.sentences;
    table.countInto(splitTokens(candidates[id]), maxN, pool);
    for (const ref of references[id]) table.countInto(splitTokens(ref), maxN, pool);
  });
  firstSentence[imageIds.length] = pool.sentences;
  const image = (i: number): CountedImage => {
    const candidate = firstSentence[i];
    const references: SparseCounts[][] = [];
    const referenceLengths: number[] = [];
    for (let s = candidate + 1; s < firstSentence[i + 1]; s++) {
      references.push(pool.sentence(s));
      referenceLengths.push(pool.length(s));
    }
    return { candidate: pool.sentence(candidate), candidateLength: pool.length(candidate), references, referenceLengths };
  };
  return { imageIds, image, ngramCount: table.size, maxN };
}
