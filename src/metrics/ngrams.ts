/**
 * n-gram counting shared by BLEU and CIDEr-D. Tokens and n-grams are interned to integer
 * ids once, and a sentence's counts are kept as sorted id arrays: matching two sentences
 * is then a merge of two short sorted arrays, with no string keys built on the hot path.
 */
import { Candidates, References, imageIdsOf, splitTokens } from './types';

/** Counts of one n-gram order in one sentence: ids ascending, counts aligned with them. */
export interface SparseCounts {
  ids: number[];
  counts: number[];
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
    return byOrder.map(runLengths);
  }
}

/** Sorts ids (insertion sort: sentences are short) and counts repeats. */
function runLengths(ids: number[]): SparseCounts {
  for (let i = 1; i < ids.length; i++) {
    const value = ids[i];
    let j = i - 1;
    while (j >= 0 && ids[j] > value) {
      ids[j + 1] = ids[j];
      j--;
    }
    ids[j + 1] = value;
  }
  const uniqueIds: number[] = [];
  const counts: number[] = [];
  for (let i = 0; i < ids.length; i++) {
    if (i === 0 || ids[i] !== ids[i - 1]) {
      uniqueIds.push(ids[i]);
      counts.push(1);
    } else counts[counts.length - 1]++;
  }
  return { ids: uniqueIds, counts };
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
  images: CountedImage[];
  /** Number of distinct n-grams (ids are below it). */
  ngramCount: number;
  maxN: number;
}

export const COUNTED_MAX_N = 4;

export function countCorpus(references: References, candidates: Candidates, maxN = COUNTED_MAX_N): CountedCorpus {
  const imageIds = imageIdsOf(references, candidates);
  const split = imageIds.map((id) => ({ candidate: splitTokens(candidates[id]), references: references[id].map(splitTokens) }));
  let tokens = 0;
  for (const image of split) {
    tokens += image.candidate.length;
    for (const ref of image.references) tokens += ref.length;
  }
  const table = new NgramTable((tokens * maxN) / 4); // real captions repeat most n-grams
  const images = split.map((image): CountedImage => ({
    candidate: table.count(image.candidate, maxN),
    candidateLength: image.candidate.length,
    references: image.references.map((ref) => table.count(ref, maxN)),
    referenceLengths: image.references.map((ref) => ref.length),
  }));
  return { imageIds, images, ngramCount: table.size, maxN };
}
