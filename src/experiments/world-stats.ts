/**
 * The statistics `cckit world check` (world-check.ts) measures, on plain inputs: the pools' ratio, caption precision
 * against the world's truth (and that truth, read from `web/truth.jsonl`), person names and placeholders, objects per
 * image, token statistics, word and concept mentions, nocaps' out-of-domain concepts and vocabulary sizes. Pure and
 * exported for the tests and the dataset tables.
 */
import * as fs from 'fs';

import { StatsAccumulator, type CaptionStatistics } from '../data/stats';
import { PERSON_CONCEPT } from '../metrics/grounding';
import { fastTokenize } from '../text/fast-tokenizer';
import { PERSON_TOKEN } from '../text/tokens';
import { plural } from '../wordnet/nouns';
import { World } from '../world/world';

export type Pool = 'cc3m' | 'cc12m';
export const POOLS: readonly Pool[] = ['cc3m', 'cc12m'];

/** CC12M / CC3M kept pairs (NaN without CC3M pairs). */
export function poolRatio(cc3mPairs: number, cc12mPairs: number): number {
  return cc3mPairs === 0 ? NaN : cc12mPairs / cc3mPairs;
}

export interface Precision {
  /** Share of joined rows whose text describes its image. */
  precision: number;
  /** Rows found in the truth. */
  joined: number;
  /** Rows whose URL the truth does not have (left out of the share). */
  unmatched: number;
}

/** Caption precision of kept rows against the truth (`describesImage` by URL). */
export function captionPrecision(keptUrls: Iterable<string>, describesImage: ReadonlyMap<string, boolean>): Precision {
  let joined = 0;
  let good = 0;
  let unmatched = 0;
  for (const url of keptUrls) {
    const truth = describesImage.get(url);
    if (truth === undefined) unmatched++;
    else {
      joined++;
      if (truth) good++;
    }
  }
  return { precision: joined === 0 ? NaN : good / joined, joined, unmatched };
}

/** One web image's ground truth, from a world's `web/truth.jsonl`. */
export interface WebTruth {
  /** Concepts shown in the image. */
  concepts: string[];
  /** Whether the alt-text was generated to describe the image (the world's own label). */
  describesImage: boolean;
  /** The person names the world wrote into the alt-text. */
  persons: string[];
  /** The simulated vision labels the pipelines saw (the hypernymiser's sense choice reads them). */
  tags: string[];
}

/** URL → ground truth from a world's `web/truth.jsonl` (a bad line is an error naming the file and line). */
export function readWebTruth(file: string): Map<string, WebTruth> {
  const map = new Map<string, WebTruth>();
  fs.readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      if (line.trim() === '') return;
      let row: { url?: unknown; concepts?: unknown; describesImage?: unknown; persons?: { name?: unknown }[]; tags?: unknown };
      try {
        row = JSON.parse(line) as typeof row;
      } catch (err) {
        throw new Error(`${file}:${i + 1}: ${(err as Error).message}`);
      }
      if (typeof row.url !== 'string' || !Array.isArray(row.concepts) || typeof row.describesImage !== 'boolean')
        throw new Error(`${file}:${i + 1}: needs "url", "concepts" and "describesImage"`);
      const persons = (Array.isArray(row.persons) ? row.persons : []).map((p) => p.name).filter((n): n is string => typeof n === 'string');
      const tags = Array.isArray(row.tags) ? row.tags.map(String) : [];
      map.set(row.url, { concepts: row.concepts.map(String), describesImage: row.describesImage, persons, tags });
    });
  return map;
}

/** Of the web alt-texts that name a person, how many belong to an image that shows a person (the judge's person concept). */
export function personPresence(truth: Iterable<Pick<WebTruth, 'concepts' | 'persons'>>): { named: number; present: number; share: number } {
  let named = 0;
  let present = 0;
  for (const t of truth) {
    if (t.persons.length === 0) continue;
    named++;
    if (t.concepts.includes(PERSON_CONCEPT)) present++;
  }
  return { named, present, share: named === 0 ? NaN : present / named };
}

/** Distinct object concepts per image: the mean, and the share of images with only one. */
export function objectsPerImage(images: Iterable<{ concepts: readonly string[] }>): { images: number; mean: number; singleShare: number } {
  let count = 0;
  let total = 0;
  let single = 0;
  for (const image of images) {
    const k = new Set(image.concepts).size;
    count++;
    total += k;
    if (k === 1) single++;
  }
  return { images: count, mean: count === 0 ? NaN : total / count, singleShare: count === 0 ? NaN : single / count };
}

/** Share of captions containing the <PERSON> placeholder (NaN without captions). */
export function personShare(captions: readonly string[]): number {
  if (captions.length === 0) return NaN;
  return captions.filter((c) => c.includes(PERSON_TOKEN)).length / captions.length;
}

/** Table 1 statistics of captions with `cckit stats`'s tokenisation (the fast tokenizer). */
export function tokenStats(captions: Iterable<string>): CaptionStatistics {
  const stats = new StatsAccumulator({ tokenizer: 'fast', rareWords: [] });
  for (const caption of captions) stats.add(caption);
  return stats.result();
}

/** Lower-cased words of a text: runs of letters and digits (the placeholder <PERSON> is dropped). */
export function wordsOf(text: string): string[] {
  return text
    .split(PERSON_TOKEN)
    .join(' ')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * Finds names (one or more words) and their plurals in texts, as whole words: "quiche" and
 * "quiches" match "Quiches, fresh", not "quichefoo".
 */
export class NameMatcher {
  private readonly forms = new Map<string, string>();
  private readonly lengths: number[];

  constructor(names: Iterable<string>) {
    const lengths = new Set<number>();
    for (const name of names) {
      for (const form of [name, plural(name.toLowerCase())]) {
        const words = wordsOf(form);
        if (words.length === 0) continue;
        const key = words.join(' ');
        if (!this.forms.has(key)) this.forms.set(key, name);
        lengths.add(words.length);
      }
    }
    this.lengths = [...lengths].sort((a, b) => a - b);
  }

  /** Occurrences of each name (and its plural) in one text. */
  occurrences(text: string): Map<string, number> {
    const words = wordsOf(text);
    const found = new Map<string, number>();
    for (let i = 0; i < words.length; i++) {
      for (const n of this.lengths) {
        if (i + n > words.length) break;
        const name = this.forms.get(n === 1 ? words[i]! : words.slice(i, i + n).join(' '));
        if (name !== undefined) found.set(name, (found.get(name) ?? 0) + 1);
      }
    }
    return found;
  }
}

/** Occurrences of each word (or its plural, as a whole word) over all captions. */
export function countWords(captions: Iterable<string>, words: readonly string[]): Record<string, number> {
  const matcher = new NameMatcher(words);
  const counts: Record<string, number> = Object.fromEntries(words.map((w) => [w, 0]));
  for (const caption of captions) for (const [word, n] of matcher.occurrences(caption)) counts[word]! += n;
  return counts;
}

/** Captions mentioning each concept (name or plural as words) at least once. */
export function mentionCounts(captions: Iterable<string>, concepts: readonly string[]): Map<string, number> {
  const matcher = new NameMatcher(concepts);
  const counts = new Map<string, number>(concepts.map((c) => [c, 0]));
  for (const caption of captions) for (const name of matcher.occurrences(caption).keys()) counts.set(name, counts.get(name)! + 1);
  return counts;
}

/** For each k, the share of `concepts` mentioned in ≥ k captions (Table 9's coverage). */
export function conceptCoverage(captions: Iterable<string>, concepts: readonly string[], ks: readonly number[]): Record<number, number> {
  const unique = [...new Set(concepts)];
  const counts = mentionCounts(captions, unique);
  const coverage: Record<number, number> = {};
  for (const k of ks) coverage[k] = unique.length === 0 ? NaN : unique.filter((c) => counts.get(c)! >= k).length / unique.length;
  return coverage;
}

/** Concepts present in the out-of-domain images of nocaps val (ids < size), from the world's truth. */
export function nocapsOutConcepts(world: World, size: number): string[] {
  const concepts = new Set<string>();
  for (let id = 0; id < size; id++) {
    const image = world.captionedImage('nocaps-val', id);
    if (image.domain === 'out') for (const c of image.truth.concepts) concepts.add(c);
  }
  return [...concepts].sort();
}

/** Word types seen at least `minCount` times in the captions (the fast tokenizer, lower-cased). */
export function typesAtMinCount(captions: Iterable<string>, minCount = 4): number {
  const counts = new Map<string, number>();
  for (const caption of captions) for (const token of fastTokenize(caption.toLowerCase())) counts.set(token, (counts.get(token) ?? 0) + 1);
  let types = 0;
  for (const c of counts.values()) if (c >= minCount) types++;
  return types;
}
