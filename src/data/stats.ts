/**
 * The caption statistics of the CC12M paper's Table 1, computed in one streaming pass over a
 * CC3M- or CC12M-style TSV or over img2dataset shards:
 *  - number of pairs (well-formed rows; malformed rows are counted apart as `rejects`),
 *  - token/type ratio (all tokens / distinct tokens),
 *  - caption length in tokens, mean ± std (population std, as numpy's default),
 *  - occurrence counts of chosen rare words (default mangosteen, durian, quiche, pokemon;
 *    a count is the number of tokens equal to the word, so "durian durian" counts 2).
 * Tokens are lower-cased (except the <PERSON> placeholder). Memory stays flat in the number of rows; only the type table grows
 * (one entry per distinct token).
 *
 * Tokenizers:
 *  - 'fast' (default): `scanTokens` of src/text/fast-tokenizer.ts, an approximation of PTB
 *    tokenization made for 12M+ rows (its rules and measured speed are there).
 *  - 'ptb': `ptbTokenize` from src/text/ptb-tokenizer (CoreNLP 3.4.1's lexer, lower-cased,
 *    punctuation kept), loaded lazily so the fast path does not depend on it.
 */
import { scanTokens, type TokenSink } from '../text/fast-tokenizer';
import { readTsvBatches, isReject, TsvLayout } from './tsv';
import { readImg2dataset, ShardError, type ReadShardOptions, type UnreadableShard } from './webdataset';
import { quoteInput } from '../util/untrusted-text';

export const DEFAULT_RARE_WORDS: readonly string[] = ['mangosteen', 'durian', 'quiche', 'pokemon'];

export type StatsTokenizer = 'fast' | 'ptb';

export interface CaptionStatistics {
  pairs: number;
  tokens: number;
  types: number;
  tokenTypeRatio: number;
  /** Caption length in tokens. */
  lengthMean: number;
  /** Population standard deviation of the caption length. */
  lengthStd: number;
  /** Token occurrences of each chosen rare word. */
  rareWords: Record<string, number>;
  /** Malformed rows (TSV) or samples (shards: no caption, or a caption over the member cap) skipped, with malformed: 'reject'. */
  rejects: number;
  /** Shards (tars) that could not be read to their end: each one rejected shard, reported, whatever `malformed` says. */
  unreadableShards: number;
  tokenizer: StatsTokenizer;
}

export interface StatsOptions {
  tokenizer?: StatsTokenizer;
  rareWords?: readonly string[];
  /** Called about every `progressEvery` rows with the rows seen so far. */
  onProgress?: (rows: number) => void;
  progressEvery?: number;
  /** 'throw' (default) stops at the first malformed row or sample; 'reject' counts it in `rejects` and goes on. */
  malformed?: 'throw' | 'reject';
  /** Called with each rejected row or sample (malformed: 'reject'): where it is (`file:line`, `shard#key`) and why. */
  onReject?: (where: string, reason: string) => void;
}

/** Calls `sink` with each PTB token (ptbTokenize, lower-cased, punctuation kept). */
function ptbScanner(): (caption: string, sink: TokenSink) => void {
  // Loaded on demand: the PTB lexer is only needed when asked for.
  const ptb = require('../text/ptb-tokenizer') as typeof import('../text/ptb-tokenizer');
  return (caption, sink) => {
    for (const token of ptb.ptbTokenize(caption.replace(/\n/g, ' '))) sink.literal(token);
  };
}

// ---------------------------------------------------------------------------
// The type table

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) | 0;
}

/**
 * Distinct tokens and their counts, keyed by a 64-bit fingerprint of the token's UTF-16 code
 * units (two independent 32-bit hashes), in one open-addressing table: no token string is kept
 * or even allocated, which makes a pass over 250M tokens several times faster than a Map of
 * strings. Two distinct tokens share a fingerprint with probability about types² / 2^65
 * (3·10⁻⁸ for a million types), so counts are exact in practice.
 */
export class TypeTable {
  /** Slots of 4 ints: fingerprint low, fingerprint high, count, unused. count 0 = empty. */
  private slots = new Int32Array(4 << 16);
  private mask = (1 << 16) - 1;
  size = 0;

  /** Adds one occurrence of the token with fingerprint (a, b). */
  add(a: number, b: number): void {
    const slots = this.slots;
    let i = fmix(a ^ Math.imul(b, 0x27d4eb2d)) & this.mask;
    for (;;) {
      const at = i << 2;
      const count = slots[at + 2];
      if (count === 0) {
        slots[at] = a;
        slots[at + 1] = b;
        slots[at + 2] = 1;
        if (++this.size * 2 > this.mask) this.grow();
        return;
      }
      if (slots[at] === a && slots[at + 1] === b) {
        slots[at + 2] = count + 1;
        return;
      }
      i = (i + 1) & this.mask;
    }
  }

  /** Occurrences of the token with fingerprint (a, b). */
  get(a: number, b: number): number {
    let i = fmix(a ^ Math.imul(b, 0x27d4eb2d)) & this.mask;
    for (;;) {
      const at = i << 2;
      const count = this.slots[at + 2];
      if (count === 0) return 0;
      if (this.slots[at] === a && this.slots[at + 1] === b) return count;
      i = (i + 1) & this.mask;
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2);
    this.mask = this.mask * 2 + 1;
    for (let at = 0; at < old.length; at += 4) {
      if (old[at + 2] === 0) continue;
      let i = fmix(old[at] ^ Math.imul(old[at + 1], 0x27d4eb2d)) & this.mask;
      while (this.slots[(i << 2) + 2] !== 0) i = (i + 1) & this.mask;
      this.slots.set(old.subarray(at, at + 4), i << 2);
    }
  }
}

/** The fingerprint of text[start, end): FNV-1a and a multiplicative hash, each finalised. */
function fingerprint(text: string, start: number, end: number, table: TypeTable): void {
  let a = 0x811c9dc5 | 0;
  let b = end - start;
  for (let k = start; k < end; k++) {
    const c = text.charCodeAt(k);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 13);
  }
  table.add(fmix(a), fmix(b));
}

function lookup(table: TypeTable, token: string): number {
  let a = 0x811c9dc5 | 0;
  let b = token.length;
  for (let k = 0; k < token.length; k++) {
    const c = token.charCodeAt(k);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 13);
  }
  return table.get(fmix(a), fmix(b));
}

// ---------------------------------------------------------------------------
// The accumulator

/** Streaming accumulator: feed captions with `add`, read the statistics with `result`. */
export class StatsAccumulator implements TokenSink {
  private readonly scan: (caption: string, sink: TokenSink) => void;
  private readonly types = new TypeTable();
  private pairs = 0;
  private tokens = 0;
  private sumSquares = 0;
  private length = 0;
  rejects = 0;
  unreadableShards = 0;

  constructor(private readonly options: StatsOptions = {}) {
    this.scan = (options.tokenizer ?? 'fast') === 'fast' ? scanTokens : ptbScanner();
  }

  /** TokenSink: one token, a range of the lower-cased caption. */
  range(text: string, start: number, end: number): void {
    fingerprint(text, start, end, this.types);
    this.length++;
  }

  /** TokenSink: one token given as a string. */
  literal(token: string): void {
    fingerprint(token, 0, token.length, this.types);
    this.length++;
  }

  add(caption: string): void {
    this.length = 0;
    this.scan(caption, this);
    const length = this.length;
    this.pairs++;
    this.tokens += length;
    this.sumSquares += length * length;
  }

  /** Occurrences of one token (as the tokenizer writes it: lower-case). */
  count(token: string): number {
    return lookup(this.types, token);
  }

  result(): CaptionStatistics {
    const mean = this.pairs === 0 ? 0 : this.tokens / this.pairs;
    const variance = this.pairs === 0 ? 0 : Math.max(0, this.sumSquares / this.pairs - mean * mean);
    const rareWords: Record<string, number> = {};
    for (const word of this.options.rareWords ?? DEFAULT_RARE_WORDS) rareWords[word] = this.count(word.toLowerCase());
    return {
      pairs: this.pairs,
      tokens: this.tokens,
      types: this.types.size,
      tokenTypeRatio: this.types.size === 0 ? 0 : this.tokens / this.types.size,
      lengthMean: mean,
      lengthStd: Math.sqrt(variance),
      rareWords,
      rejects: this.rejects,
      unreadableShards: this.unreadableShards,
      tokenizer: this.options.tokenizer ?? 'fast',
    };
  }
}

export interface TsvStatsOptions extends StatsOptions {
  layout?: TsvLayout | 'auto';
  unescape?: boolean;
}

/** Statistics of a CC3M- or CC12M-style TSV (column order auto-detected unless given). */
export async function tsvStats(file: string, options: TsvStatsOptions = {}): Promise<CaptionStatistics> {
  const stats = new StatsAccumulator(options);
  const every = options.progressEvery ?? 1_000_000;
  let rows = 0;
  let nextReport = every;
  for await (const batch of readTsvBatches(file, { layout: options.layout, malformed: options.malformed, unescape: options.unescape })) {
    for (let i = 0; i < batch.length; i++) {
      const item = batch[i];
      if (isReject(item)) {
        stats.rejects++;
        options.onReject?.(`${file}:${item.line}`, item.reject);
      } else stats.add(item.caption);
    }
    rows += batch.length;
    if (options.onProgress && rows >= nextReport) {
      options.onProgress(rows);
      nextReport = rows + every;
    }
  }
  return stats.result();
}

export type ShardStatsOptions = StatsOptions & Pick<ReadShardOptions, 'maxMemberBytes'>;

/**
 * Statistics of the captions (KEY.txt) in an img2dataset output folder, tar shards or files layout. Only the
 * captions are read: images and metadata are skipped unread, and a caption over `maxMemberBytes` is not
 * read either (its sample is malformed).
 */
export async function shardStats(folder: string, options: ShardStatsOptions = {}): Promise<CaptionStatistics> {
  const stats = new StatsAccumulator(options);
  const every = options.progressEvery ?? 100_000;
  let rows = 0;
  // a damaged tar is one rejected shard (counted and reported) and the count goes on with the next, as filter,
  // features and split do; `malformed` governs the captions inside readable shards
  const onUnreadableShard = (shard: UnreadableShard) => {
    stats.unreadableShards++;
    options.onReject?.(shard.source, `shard:unreadable: ${shard.reason} (${shard.read} samples read before)`);
  };
  for await (const raw of readImg2dataset(folder, { members: ['txt'], maxMemberBytes: options.maxMemberBytes, onUnreadableShard })) {
    const txt = raw.files.txt;
    if (txt === undefined) {
      const present = [...Object.keys(raw.files), ...Object.keys(raw.oversized ?? {}), ...(raw.unread ?? [])];
      const reason = raw.oversized?.txt ?? `no .txt member (has ${present.map((ext) => quoteInput(ext)).join(', ')})`;
      if (options.malformed !== 'reject') throw new ShardError(raw.source, `sample ${quoteInput(raw.key)}: ${reason}`);
      stats.rejects++;
      options.onReject?.(`${raw.source}#${quoteInput(raw.key)}`, reason);
      continue;
    }
    stats.add(txt.toString('utf8'));
    if (options.onProgress && ++rows % every === 0) options.onProgress(rows);
  }
  return stats.result();
}

/** "20.2 ± 16.3"-style formatting of the length statistic. */
export function formatLength(stats: CaptionStatistics, digits = 1): string {
  return `${stats.lengthMean.toFixed(digits)} ± ${stats.lengthStd.toFixed(digits)}`;
}
