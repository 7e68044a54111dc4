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
 *  - 'fast' (default): the scanner below, an approximation of PTB tokenization made for 12M+
 *    rows. Measured with bench/stats.ts on this project's 2-core machine: it tokenizes ~750-850k
 *    captions/s against ptbTokenize's ~180-190k, and a whole stats pass over 12.4M rows takes
 *    35-39 s instead of ~100 s (7.9 s per million rows with 'ptb'). Rules, on the lower-cased caption:
 *      * whitespace separates tokens; "<PERSON>" (CC12M's name placeholder, any case) is one
 *        token, kept upper-case as the PTB tokenizer here does;
 *      * a word is a run of letters/digits (any non-ASCII character that is not whitespace or
 *        listed punctuation counts as a letter), joined across single inner "-" "." "/"
 *        ("well-known", "3.5", "24/7") and across "," or ":" between digits ("1,000");
 *        letter-dot abbreviations keep a final period ("u.s.");
 *      * clitics split as in PTB: "don't" → do n't, "dog's" → dog 's ('s 'm 'd 'll 're 've);
 *        another apostrophe inside a word is kept ("o'neill");
 *      * other punctuation is one token per character, except runs of "." or "-" and runs of
 *        "!"/"?" which are one token ("...", "--", "?!"); brackets, quotes, dashes and the
 *        ellipsis are written as PTB writes them (-lrb-, ``, '', --, ...), a straight double
 *        quote being `` after a space or bracket and '' otherwise.
 *    It differs from PTB mostly on URLs, e-mails, "&" ("a&b"), and abbreviations with a final
 *    period other than letter-dot ones ("mr.", "etc."); on the benchmark's synthetic web-like
 *    captions token and type counts agree within 0.001% (bench/stats.ts --compare);
 *    real captions with URLs, e-mails or emoji will differ more.
 *  - 'ptb': `ptbTokenize` from ../metrics/ptb-tokenizer (CoreNLP 3.4.1's lexer, lower-cased,
 *    punctuation kept), loaded lazily so the fast path does not depend on it.
 */
import { readTsvBatches, isReject, TsvLayout } from './tsv';
import { readImg2dataset, ShardError } from './webdataset';

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
  /** Malformed rows skipped (TSV only, with malformed: 'reject'). */
  rejects: number;
  tokenizer: StatsTokenizer;
}

export interface StatsOptions {
  tokenizer?: StatsTokenizer;
  rareWords?: readonly string[];
  /** Called about every `progressEvery` rows with the rows seen so far. */
  onProgress?: (rows: number) => void;
  progressEvery?: number;
}

// ---------------------------------------------------------------------------
// The fast tokenizer

const enum C {
  Space = 0,
  Word = 1,
  Punct = 2,
}

/** Character classes of the first 0x3100 code units; everything above is a word character. */
const CLASS = new Uint8Array(0x3100).fill(C.Word);
for (let c = 0; c <= 0x20; c++) CLASS[c] = C.Space;
for (const c of [0x7f, 0x85, 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0x200b]) CLASS[c] = C.Space;
for (let c = 0x2000; c <= 0x200a; c++) CLASS[c] = C.Space;
for (let c = 0x21; c <= 0x7e; c++) {
  const isAlnum = (c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f;
  CLASS[c] = isAlnum ? C.Word : C.Punct;
}
for (const c of [0xa1, 0xa6, 0xa7, 0xab, 0xb6, 0xb7, 0xbb, 0xbf, 0xd7, 0xf7]) CLASS[c] = C.Punct;
for (let c = 0x2010; c <= 0x2027; c++) CLASS[c] = C.Punct; // dashes, curly quotes, bullets, ellipsis
for (let c = 0x2030; c <= 0x205e; c++) CLASS[c] = C.Punct;

function classOf(code: number): number {
  return code < 0x3100 ? CLASS[code] : code === 0xfeff ? C.Space : C.Word;
}

const QUOTE = 0x27;
const CURLY_QUOTE = 0x2019;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Length of a clitic starting at the apostrophe at `i` ("'s", "'ll", …), or 0. */
function cliticLength(text: string, i: number): number {
  const a = text.charCodeAt(i + 1);
  const b = text.charCodeAt(i + 2);
  // s m d
  if (a === 0x73 || a === 0x6d || a === 0x64) return classOf(b) === C.Word && !Number.isNaN(b) ? 0 : 2;
  // ll re ve
  if ((a === 0x6c && b === 0x6c) || (a === 0x72 && b === 0x65) || (a === 0x76 && b === 0x65)) {
    const c = text.charCodeAt(i + 3);
    return !Number.isNaN(c) && classOf(c) === C.Word ? 0 : 3;
  }
  return 0;
}

/** Single punctuation characters PTB writes differently (brackets, typographic quotes, dashes). */
const PTB_PUNCTUATION = new Map<number, string>([
  [0x28, '-lrb-'], [0x29, '-rrb-'], [0x5b, '-lsb-'], [0x5d, '-rsb-'], [0x7b, '-lcb-'], [0x7d, '-rcb-'],
  [0x201c, '``'], [0x201d, "''"], [0x2018, '`'], [0x2019, "'"], [0x2014, '--'], [0x2013, '--'], [0x2026, '...'],
]);

/** Whether text[start, end) is single letters joined by dots ("u.s", "e.g"). */
function isLetterDotAbbreviation(text: string, start: number, end: number): boolean {
  if (end - start < 3) return false;
  for (let k = start; k < end; k++) {
    const isDot = text.charCodeAt(k) === 0x2e;
    if (isDot !== ((k - start) % 2 === 1)) return false;
  }
  return true;
}

/** Receives tokens from the scanner: a range of the lower-cased caption, or a fixed string. */
export interface TokenSink {
  range(text: string, start: number, end: number): void;
  literal(token: string): void;
}

function clitic(text: string, i: number, length: number): string {
  const a = text.charCodeAt(i + 1);
  if (length === 2) return a === 0x73 ? "'s" : a === 0x6d ? "'m" : "'d";
  return a === 0x6c ? "'ll" : a === 0x72 ? "'re" : "'ve";
}

/** Scans a caption by the fast rules (see the file comment), handing each token to `sink`. */
export function scanTokens(caption: string, sink: TokenSink): void {
  const text = caption.toLowerCase();
  const n = text.length;
  let i = 0;
  while (i < n) {
    const code = text.charCodeAt(i);
    const cls = classOf(code);
    if (cls === C.Space) {
      i++;
      continue;
    }
    if (cls === C.Word) {
      const start = i;
      i++;
      for (;;) {
        while (i < n && classOf(text.charCodeAt(i)) === C.Word) i++;
        if (i + 1 >= n) break;
        const joiner = text.charCodeAt(i);
        const next = text.charCodeAt(i + 1);
        if (classOf(next) !== C.Word) break;
        if (joiner === 0x2d || joiner === 0x2e || joiner === 0x2f) {
          i += 2;
          continue;
        }
        if ((joiner === 0x2c || joiner === 0x3a) && isDigit(text.charCodeAt(i - 1)) && isDigit(next)) {
          i += 2;
          continue;
        }
        if (joiner === QUOTE || joiner === CURLY_QUOTE) {
          // n't: split "do|n't"; other clitics end the word; otherwise the apostrophe joins.
          if (next === 0x74 && text.charCodeAt(i - 1) === 0x6e && i - 1 > start && (i + 2 >= n || classOf(text.charCodeAt(i + 2)) !== C.Word)) break;
          if (cliticLength(text, i) > 0) break;
          i += 2;
          continue;
        }
        break;
      }
      if (i < n) {
        const after = text.charCodeAt(i);
        if (after === QUOTE || after === CURLY_QUOTE) {
          // A word followed by n't gives back its final "n"; 's 'll … become their own token.
          if (text.charCodeAt(i + 1) === 0x74 && text.charCodeAt(i - 1) === 0x6e && i - 1 > start && (i + 2 >= n || classOf(text.charCodeAt(i + 2)) !== C.Word)) {
            sink.range(text, start, i - 1);
            sink.literal("n't");
            i += 2;
            continue;
          }
          sink.range(text, start, i);
          const length = cliticLength(text, i);
          if (length > 0) {
            sink.literal(clitic(text, i, length));
            i += length;
          }
          continue;
        }
        // Letter-dot abbreviations keep their final period ("u.s." "e.g."), as PTB does.
        if (after === 0x2e && isLetterDotAbbreviation(text, start, i)) i++;
      }
      sink.range(text, start, i);
      continue;
    }
    // punctuation
    if (code === 0x3c && text.startsWith('<person>', i)) {
      sink.literal('<PERSON>');
      i += 8;
      continue;
    }
    if ((code === QUOTE || code === CURLY_QUOTE) && i > 0 && classOf(text.charCodeAt(i - 1)) !== C.Space) {
      // a clitic after a non-word token ("<PERSON>'s")
      const length = cliticLength(text, i);
      if (length > 0) {
        sink.literal(clitic(text, i, length));
        i += length;
        continue;
      }
    }
    const start = i;
    i++;
    if (code === 0x2e || code === 0x2d) {
      while (i < n && text.charCodeAt(i) === code) i++;
    } else if (code === 0x21 || code === 0x3f) {
      while (i < n && (text.charCodeAt(i) === 0x21 || text.charCodeAt(i) === 0x3f)) i++;
    } else if (code === 0x22) {
      const before = start === 0 ? 0x20 : text.charCodeAt(start - 1);
      sink.literal(classOf(before) === C.Space || before === 0x28 || before === 0x5b ? '``' : "''");
      continue;
    } else {
      const ptb = PTB_PUNCTUATION.get(code);
      if (ptb !== undefined) {
        sink.literal(ptb);
        continue;
      }
    }
    sink.range(text, start, i);
  }
}

class ArraySink implements TokenSink {
  out: string[] = [];
  range(text: string, start: number, end: number): void {
    this.out.push(text.slice(start, end));
  }
  literal(token: string): void {
    this.out.push(token);
  }
}

/** Lower-cased tokens of a caption by the fast rules (see the file comment). */
export function fastTokenize(caption: string): string[] {
  const sink = new ArraySink();
  scanTokens(caption, sink);
  return sink.out;
}

/** Calls `sink` with each PTB token (ptbTokenize, lower-cased, punctuation kept). */
function ptbScanner(): (caption: string, sink: TokenSink) => void {
  // Loaded on demand: the PTB lexer is only needed when asked for.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
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
    let slots = this.slots;
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
      tokenizer: this.options.tokenizer ?? 'fast',
    };
  }
}

export interface TsvStatsOptions extends StatsOptions {
  layout?: TsvLayout | 'auto';
  /** 'throw' (default) stops at the first malformed line; 'reject' counts it in `rejects` and goes on. */
  malformed?: 'throw' | 'reject';
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
      if (isReject(item)) stats.rejects++;
      else stats.add(item.caption);
    }
    rows += batch.length;
    if (options.onProgress && rows >= nextReport) {
      options.onProgress(rows);
      nextReport = rows + every;
    }
  }
  return stats.result();
}

/** Statistics of the captions (KEY.txt) in an img2dataset output folder, tar shards or files layout. */
export async function shardStats(folder: string, options: StatsOptions = {}): Promise<CaptionStatistics> {
  const stats = new StatsAccumulator(options);
  const every = options.progressEvery ?? 100_000;
  let rows = 0;
  for await (const raw of readImg2dataset(folder)) {
    const txt = raw.files.txt;
    if (txt === undefined) throw new ShardError(raw.source, `sample ${raw.key}: no .txt member (has ${Object.keys(raw.files).join(', ')})`);
    stats.add(txt.toString('utf8'));
    if (options.onProgress && ++rows % every === 0) options.onProgress(rows);
  }
  return stats.result();
}

/** "20.2 ± 16.3"-style formatting of the length statistic. */
export function formatLength(stats: CaptionStatistics, digits = 1): string {
  return `${stats.lengthMean.toFixed(digits)} ± ${stats.lengthStd.toFixed(digits)}`;
}
