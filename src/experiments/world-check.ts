/**
 * `cckit world check`: how well a built world matches the papers' statistics. It prepares the
 * same inputs the experiments use (`prepareWorldInputs`: the world in
 * `<cache>/world-<preset>-seed<seed>`, both paper pipelines over its web pool, cached and shared
 * with table3), then measures each statistic of src/world/calibration.ts on the kept pools and the
 * world's ground truth, and judges it against the accepted range there.
 *
 * The statistic functions below are pure and exported for the tests; `worldCheck` wires them to a
 * world's files. Nothing measured is stored or hard-coded: the numbers change with the world.
 */
import * as fs from 'fs';
import * as path from 'path';

import { StatsAccumulator, type CaptionStatistics } from '../data/stats';
import { readTsv } from '../data/tsv';
import { PERSON_CONCEPT } from '../metrics/grounding';
import { leaveOneOutCider, type HumanScores } from '../metrics/human';
import { formatTable } from '../report/table';
import { fastTokenize } from '../text/fast-tokenizer';
import { PERSON_TOKEN } from '../text/tokens';
import { readJsonFile } from '../util/json';
import { plural } from '../wordnet/nouns';
import { CALIBRATION, CalibrationId, CalibrationTarget } from '../world/calibration';
import { WORLD_PRESETS, WorldPresetName, WorldSplit } from '../world/splits';
import { World } from '../world/world';
import { RECIPES } from './recipe';
import { prepareWorldInputs, worldRoot } from './runner';

export type Pool = 'cc3m' | 'cc12m';
export const POOLS: readonly Pool[] = ['cc3m', 'cc12m'];

// ------------------------------------------------------------------ statistics on plain inputs

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

// ------------------------------------------------------------------ verdicts

export interface StatisticResult {
  id: CalibrationId;
  description: string;
  /** Measured values (keys depend on the statistic; all finite unless a pool is empty). */
  measured: Record<string, number>;
  /** The papers' values. */
  target: CalibrationTarget['paper'];
  /** The accepted range or rule, with its numbers. */
  accept: string;
  met: boolean;
  source: string;
  calibratedBy: string[];
  note?: string;
}

export interface WorldCheckMeasures {
  pairs: Record<Pool, number>;
  precision: Record<Pool, Precision>;
  personShare: Record<Pool, number>;
  tokens: Record<Pool, CaptionStatistics>;
  /** Token/type of the CC12M pool's first captions holding as many tokens as the whole CC3M pool (equal corpus size). */
  cc12mTokenTypeAtCc3mTokens?: number;
  rareWords: Record<Pool, Record<string, number>>;
  /** Out-of-domain concepts of nocaps val, and each pool's coverage at each k. */
  outConcepts: number;
  coverage: Record<Pool, Record<number, number>>;
  humanNocaps: HumanScores;
  humanCoco: HumanScores;
  /** The world's preset (targets that scale with it). */
  preset: WorldPresetName;
  /** Captions of the COCO-like training split. */
  cocoTrainCaptions: number;
  /** CC3M-like kept pairs whose URL is also in the CC12M-like pool. */
  sharedPairs: number;
  /** Word types seen at least 4 times: COCO-like training captions and the CC3M-like pool. */
  types: { coco: number; cc3m: number };
  /** Web alt-texts naming a person, and how many of their images show one. */
  personPresence: { named: number; present: number; share: number };
  /** COCO categories per COCO-like image (train and val; its non-COCO objects left out, as COCO counts). */
  cocoObjects: { images: number; mean: number; singleShare: number };
}

const num = (v: number | readonly number[] | undefined, what: string): number => {
  if (typeof v !== 'number') throw new Error(`calibration: ${what} is not a number`);
  return v;
};
const pair = (v: number | readonly number[] | undefined, what: string): readonly [number, number] => {
  if (!Array.isArray(v) || v.length !== 2) throw new Error(`calibration: ${what} is not a pair`);
  return [v[0] as number, v[1] as number];
};
const inRange = (x: number, min: number, max: number) => Number.isFinite(x) && x >= min && x <= max;
const fmt = (x: number, digits = 3) => (Number.isFinite(x) ? x.toFixed(digits) : String(x));

/** Judges measured values against the calibration targets: one result per target, in CALIBRATION's order. */
export function judge(m: WorldCheckMeasures, targets: readonly CalibrationTarget[] = CALIBRATION): StatisticResult[] {
  return targets.map((t): StatisticResult => {
    const a = t.accept;
    const base = { id: t.id, description: t.description, target: t.paper, source: t.source, calibratedBy: [...t.calibratedBy] };
    switch (t.id) {
      case 'pool-ratio': {
        const ratio = poolRatio(m.pairs.cc3m, m.pairs.cc12m);
        const [min, max] = [num(a.min, 'min'), num(a.max, 'max')];
        return { ...base, measured: { cc3m: m.pairs.cc3m, cc12m: m.pairs.cc12m, ratio }, accept: `ratio in ${min}–${max}`, met: inRange(ratio, min, max) };
      }
      case 'caption-precision': {
        const tol = num(a.tolerance, 'tolerance');
        const [gMin, gMax] = pair(a.gap, 'gap');
        const p3 = m.precision.cc3m.precision;
        const p12 = m.precision.cc12m.precision;
        const gap = p3 - p12;
        const t3 = num(t.paper.cc3m, 'paper.cc3m');
        const t12 = num(t.paper.cc12m, 'paper.cc12m');
        const met = inRange(gap, gMin, gMax) && inRange(p3, t3 - tol, t3 + tol) && inRange(p12, t12 - tol, t12 + tol);
        return {
          ...base,
          measured: { cc3m: p3, cc12m: p12, gap },
          accept: `gap ${gMin}–${gMax}, each ±${tol}`,
          met,
          ...(m.precision.cc3m.unmatched + m.precision.cc12m.unmatched > 0
            ? { note: `${m.precision.cc3m.unmatched + m.precision.cc12m.unmatched} kept rows had no truth by URL` }
            : {}),
        };
      }
      case 'person-share': {
        const [min, max] = [num(a.min, 'min'), num(a.max, 'max')];
        const share = m.personShare.cc12m;
        return { ...base, measured: { cc12m: share, cc3m: m.personShare.cc3m }, accept: `CC12M ${min}–${max}`, met: inRange(share, min, max) };
      }
      case 'caption-length-mean':
      case 'caption-length-std': {
        const key = t.id === 'caption-length-mean' ? 'lengthMean' : 'lengthStd';
        const minRatio = num(a.minRatio, 'minRatio');
        const v3 = m.tokens.cc3m[key];
        const v12 = m.tokens.cc12m[key];
        const ratio = v3 === 0 ? NaN : v12 / v3;
        return { ...base, measured: { cc3m: v3, cc12m: v12, ratio }, accept: `CC12M ≥ ${minRatio} × CC3M`, met: Number.isFinite(ratio) && ratio >= minRatio };
      }
      case 'token-type-ratio': {
        const v3 = m.tokens.cc3m.tokenTypeRatio;
        const v12 = m.tokens.cc12m.tokenTypeRatio;
        const equal = m.cc12mTokenTypeAtCc3mTokens ?? NaN;
        return {
          ...base,
          measured: { cc3m: v3, cc12m: v12, 'cc12m at cc3m size': equal },
          accept: 'CC12M < CC3M at equal tokens',
          met: equal < v3,
          note: "token/type grows with corpus size, so CC12M's first captions with as many tokens as all of CC3M are compared",
        };
      }
      case 'rare-words': {
        const minRatio = num(a.minRatio, 'minRatio');
        const measured: Record<string, number> = {};
        let met = true;
        for (const word of Object.keys(t.paper)) {
          const c3 = m.rareWords.cc3m[word] ?? 0;
          const c12 = m.rareWords.cc12m[word] ?? 0;
          measured[`${word}.cc3m`] = c3;
          measured[`${word}.cc12m`] = c12;
          if (c3 > 0) measured[`${word}.ratio`] = c12 / c3;
          if (!(c12 > c3) || (c3 > 0 && c12 / c3 < minRatio)) met = false;
        }
        const mentions = Object.keys(t.paper).reduce((sum, w) => sum + (m.rareWords.cc12m[w] ?? 0), 0);
        const note = mentions < 10 ? `only ${mentions} mentions in the CC12M pool: too few at this size to judge (use a larger preset)` : undefined;
        return { ...base, measured, accept: `CC12M > CC3M, ratio ≥ ${minRatio} where CC3M > 0`, met, ...(note ? { note } : {}) };
      }
      case 'nocaps-out-coverage': {
        const ks = Object.keys(m.coverage.cc12m).map(Number);
        const measured: Record<string, number> = { concepts: m.outConcepts };
        let met = ks.length > 0;
        for (const k of ks) {
          measured[`cc3m.k${k}`] = m.coverage.cc3m[k]!;
          measured[`cc12m.k${k}`] = m.coverage.cc12m[k]!;
          if (!(m.coverage.cc12m[k]! > m.coverage.cc3m[k]!)) met = false;
        }
        return { ...base, measured, accept: `CC12M > CC3M at k = ${ks.join(', ')}`, met };
      }
      case 'human-cider-nocaps':
      case 'human-cider-coco': {
        const scores = t.id === 'human-cider-nocaps' ? m.humanNocaps : m.humanCoco;
        const [min, max] = [num(a.min, 'min'), num(a.max, 'max')];
        const measured: Record<string, number> = {};
        for (const d of ['in', 'near', 'out', 'overall']) if (scores[d] !== undefined) measured[d] = scores[d]!;
        for (const [d, v] of Object.entries(scores)) if (!(d in measured)) measured[d] = v;
        return { ...base, measured, accept: `${min}–${max}`, met: Object.values(measured).every((v) => inRange(v, min, max)) };
      }
      case 'pretrain-to-finetune': {
        const [min3, min12] = pair(a[m.preset], `accept.${m.preset}`);
        const r3 = m.pairs.cc3m / m.cocoTrainCaptions;
        const r12 = m.pairs.cc12m / m.cocoTrainCaptions;
        return {
          ...base,
          measured: { cc3m: r3, cc12m: r12, cocoCaptions: m.cocoTrainCaptions },
          accept: `${m.preset}: CC3M ≥ ${fmt(min3, 1)}×, CC12M ≥ ${fmt(min12, 1)}×`,
          met: r3 >= min3 && r12 >= min12,
        };
      }
      case 'pool-overlap': {
        const max = num(a.max, 'max');
        const share = m.pairs.cc3m === 0 ? NaN : m.sharedPairs / m.pairs.cc3m;
        return { ...base, measured: { share, shared: m.sharedPairs, cc3m: m.pairs.cc3m }, accept: `≤ ${max}`, met: inRange(share, 0, max) };
      }
      case 'coco-vocabulary': {
        const max = num(a.max, 'max');
        const ratio = m.types.cc3m === 0 ? NaN : m.types.coco / m.types.cc3m;
        return { ...base, measured: { coco: m.types.coco, cc3m: m.types.cc3m, ratio }, accept: `≤ ${max}`, met: inRange(ratio, 0, max) };
      }
      case 'person-presence': {
        const min = num(a.min, 'min');
        const { named, present, share } = m.personPresence;
        return { ...base, measured: { share, present, named }, accept: `≥ ${min}`, met: inRange(share, min, 1) };
      }
      case 'coco-objects-per-image': {
        const [min, max, maxSingle] = [num(a.min, 'min'), num(a.max, 'max'), num(a.maxSingleShare, 'maxSingleShare')];
        const { images, mean, singleShare } = m.cocoObjects;
        return {
          ...base,
          measured: { mean, singleShare, images },
          accept: `mean ${min}–${max}, one object ≤ ${maxSingle}`,
          met: inRange(mean, min, max) && inRange(singleShare, 0, maxSingle),
        };
      }
    }
  });
}

/** Word types seen at least `minCount` times in the captions (the fast tokenizer, lower-cased). */
export function typesAtMinCount(captions: Iterable<string>, minCount = 4): number {
  const counts = new Map<string, number>();
  for (const caption of captions) for (const token of fastTokenize(caption.toLowerCase())) counts.set(token, (counts.get(token) ?? 0) + 1);
  let types = 0;
  for (const c of counts.values()) if (c >= minCount) types++;
  return types;
}

// ------------------------------------------------------------------ the check on a world

export interface WorldCheckOptions {
  preset: 'tiny' | 'small';
  seed: number;
  /** World data and filtered pools (default `.cckit-cache`), shared with table3. */
  cacheDir?: string;
  /** Mention thresholds of the coverage statistic (default 1, 5, 10). */
  ks?: readonly number[];
  say?: (line: string) => void;
  progress?: (task: string, done: number, total: number) => void;
}

export interface WorldCheckResult {
  preset: string;
  seed: number;
  /** Each pool's kept.tsv and its pairs. */
  pools: Record<Pool, { file: string; pairs: number }>;
  statistics: StatisticResult[];
}

interface WorldManifest {
  sizes?: Partial<Record<WorldSplit, number>>;
  options?: { zipfExponent?: number };
}

/**
 * A world built in the cache (`<cacheDir>/world-<preset>-seed<seed>`, as prepareWorldInputs leaves it): its folder,
 * its generator (the manifest's Zipf exponent) and its split sizes (the manifest's, else the preset's).
 */
export function openBuiltWorld(cacheDir: string, preset: WorldPresetName, seed: number): { root: string; world: World; sizes: Record<WorldSplit, number> } {
  const root = worldRoot({ preset, seed }, cacheDir);
  const manifestFile = path.join(root, 'world.json');
  const manifest: WorldManifest = fs.existsSync(manifestFile) ? (readJsonFile(manifestFile) as WorldManifest) : {};
  const sizes = { ...WORLD_PRESETS[preset], ...manifest.sizes };
  return { root, world: new World({ seed, zipfExponent: manifest.options?.zipfExponent }), sizes };
}

/** The url and caption of every row of a TSV (either column order). */
export async function readPool(file: string): Promise<{ url: string; caption: string }[]> {
  const rows: { url: string; caption: string }[] = [];
  for await (const row of readTsv(file)) rows.push({ url: row.url, caption: row.caption });
  return rows;
}

/** Measures every calibration statistic on the preset's world (built and filtered if needed). */
export async function worldCheck(options: WorldCheckOptions): Promise<WorldCheckResult> {
  const say = options.say ?? (() => {});
  const progress = options.progress ?? (() => {});
  const ks = options.ks ?? [1, 5, 10];
  const cacheDir = options.cacheDir ?? '.cckit-cache';
  const recipe = { ...RECIPES[options.preset], seed: options.seed };
  const inputs = await prepareWorldInputs(recipe, { cacheDir, say, progress: options.progress });
  const { root, world, sizes } = openBuiltWorld(cacheDir, recipe.preset, recipe.seed);

  say('measuring the kept pools');
  const webTruth = readWebTruth(path.join(root, 'web', 'truth.jsonl'));
  const truth = new Map([...webTruth].map(([url, t]) => [url, t.describesImage]));
  const rows = {} as Record<Pool, { url: string; caption: string }[]>;
  for (const pool of POOLS) rows[pool] = await readPool(inputs.pools[pool]);

  const outConcepts = nocapsOutConcepts(world, sizes['nocaps-val']);
  const rareWords = Object.keys(CALIBRATION.find((t) => t.id === 'rare-words')?.paper ?? {});
  const measures = {
    pairs: {},
    precision: {},
    personShare: {},
    tokens: {},
    rareWords: {},
    coverage: {},
    outConcepts: outConcepts.length,
  } as WorldCheckMeasures;
  POOLS.forEach((pool, i) => {
    const captions = rows[pool].map((r) => r.caption);
    measures.pairs[pool] = rows[pool].length;
    measures.precision[pool] = captionPrecision(
      rows[pool].map((r) => r.url),
      truth,
    );
    measures.personShare[pool] = personShare(captions);
    measures.tokens[pool] = tokenStats(captions);
    measures.rareWords[pool] = countWords(captions, rareWords);
    measures.coverage[pool] = conceptCoverage(captions, outConcepts, ks);
    progress('check pools', i + 1, POOLS.length);
  });
  // CC12M's first captions holding as many tokens as all of CC3M (one pass, the accumulator's own counts)
  const cc3mTokens = measures.tokens.cc3m.tokens;
  const counter = new StatsAccumulator({ tokenizer: 'fast', rareWords: [] });
  for (const r of rows.cc12m) {
    if (counter.result().tokens >= cc3mTokens) break;
    counter.add(r.caption);
  }
  measures.cc12mTokenTypeAtCc3mTokens = counter.result().tokenTypeRatio;

  const cocoCaptions = (readJsonFile(inputs.cocoTrain) as { annotations: { caption: string }[] }).annotations.map((a) => a.caption);
  measures.preset = recipe.preset;
  measures.cocoTrainCaptions = cocoCaptions.length;
  const cc12mUrls = new Set(rows.cc12m.map((r) => r.url));
  measures.sharedPairs = rows.cc3m.filter((r) => cc12mUrls.has(r.url)).length;
  measures.types = { coco: typesAtMinCount(cocoCaptions), cc3m: typesAtMinCount(rows.cc3m.map((r) => r.caption)) };
  measures.personPresence = personPresence(webTruth.values());
  // COCO counts its own categories per image: the non-COCO objects of a COCO-like image are left out
  const cocoNames = new Set(world.concepts.filter((c) => c.coco).map((c) => c.name));
  const cocoImages = (['coco-train', 'coco-val'] as const).flatMap((split) =>
    Array.from({ length: sizes[split] }, (_, id) => ({ concepts: world.captionedImage(split, id).truth.concepts.filter((c) => cocoNames.has(c)) })),
  );
  measures.cocoObjects = objectsPerImage(cocoImages);

  say('leave-one-out CIDEr-D of the references');
  const nocaps = Array.from({ length: sizes['nocaps-val'] }, (_, id) => world.captionedImage('nocaps-val', id));
  measures.humanNocaps = leaveOneOutCider(nocaps);
  const coco = Array.from({ length: sizes['coco-val'] }, (_, id) => world.captionedImage('coco-val', id));
  measures.humanCoco = leaveOneOutCider(coco.map((image) => ({ references: image.references })));

  return {
    preset: recipe.preset,
    seed: recipe.seed,
    pools: { cc3m: { file: inputs.pools.cc3m, pairs: measures.pairs.cc3m }, cc12m: { file: inputs.pools.cc12m, pairs: measures.pairs.cc12m } },
    statistics: judge(measures),
  };
}

// ------------------------------------------------------------------ the table

function describeMeasured(s: StatisticResult): string {
  const m = s.measured;
  switch (s.id) {
    case 'pool-ratio':
      return `${fmt(m.ratio!, 2)} (${m.cc12m} / ${m.cc3m})`;
    case 'pretrain-to-finetune':
      return `cc3m ${fmt(m.cc3m!, 2)}×, cc12m ${fmt(m.cc12m!, 2)}× (of ${m.cocoCaptions} COCO-like captions)`;
    case 'pool-overlap':
      return `${fmt(m.share!)} (${m.shared} of ${m.cc3m})`;
    case 'coco-vocabulary':
      return `${fmt(m.ratio!, 2)} (${m.coco} / ${m.cc3m} types)`;
    case 'person-presence':
      return `${fmt(m.share!, 2)} (${m.present} of ${m.named})`;
    case 'coco-objects-per-image':
      return `${fmt(m.mean!, 2)} per image, ${fmt(m.singleShare!, 2)} with one (${m.images} images)`;
    case 'caption-precision':
      return `cc3m ${fmt(m.cc3m!)}, cc12m ${fmt(m.cc12m!)}, gap ${fmt(m.gap!)}`;
    case 'person-share':
      return `cc12m ${fmt(m.cc12m!)} (cc3m ${fmt(m.cc3m!)})`;
    case 'caption-length-mean':
    case 'caption-length-std':
      return `cc3m ${fmt(m.cc3m!, 1)}, cc12m ${fmt(m.cc12m!, 1)} (×${fmt(m.ratio!, 2)})`;
    case 'token-type-ratio':
      return `cc3m ${fmt(m.cc3m!, 1)}, cc12m ${fmt(m.cc12m!, 1)} (${fmt(m['cc12m at cc3m size']!, 1)} at CC3M's size)`;
    case 'rare-words': {
      const words = [...new Set(Object.keys(m).map((k) => k.split('.')[0]!))];
      return words.map((w) => `${w} ${m[`${w}.cc3m`]}→${m[`${w}.cc12m`]}${m[`${w}.ratio`] !== undefined ? ` (×${fmt(m[`${w}.ratio`]!, 1)})` : ''}`).join(', ');
    }
    case 'nocaps-out-coverage': {
      const ks = Object.keys(m)
        .filter((k) => k.startsWith('cc3m.k'))
        .map((k) => k.slice('cc3m.k'.length));
      return `${m.concepts} concepts; ` + ks.map((k) => `k=${k}: ${fmt(m[`cc3m.k${k}`]!, 2)} vs ${fmt(m[`cc12m.k${k}`]!, 2)}`).join(', ');
    }
    case 'human-cider-nocaps':
    case 'human-cider-coco':
      return Object.entries(m)
        .map(([d, v]) => `${d} ${fmt(v, 1)}`)
        .join(', ');
  }
}

function describeTarget(s: StatisticResult): string {
  const p = s.target;
  switch (s.id) {
    case 'pool-ratio':
      return fmt(p.ratio as number, 2);
    case 'rare-words':
      return Object.entries(p)
        .map(([w, v]) => {
          const [c3, c12] = v as readonly number[];
          return `${w} ${c3}→${c12}${c3! > 0 ? ` (×${fmt(c12! / c3!, 1)})` : ''}`;
        })
        .join(', ');
    case 'nocaps-out-coverage':
      return 'CC12M covers more';
    case 'pretrain-to-finetune':
      return `cc3m ${fmt(p.cc3m as number, 1)}×, cc12m ${fmt(p.cc12m as number, 1)}×`;
    case 'pool-overlap':
      return `~${fmt(p.share as number, 3)} (${p.sharedUrls} of ${p.cc3m})`;
    case 'coco-vocabulary':
      return `${fmt(p.ratio as number, 2)} (~${p.coco} / ~${p.conceptual})`;
    case 'person-presence':
      return `${p.present} of ${p.examples} examples`;
    case 'coco-objects-per-image':
      return `${p.perImage} per image, ~${p.singleShare} with one`;
    default:
      return Object.entries(p)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ');
  }
}

/** The check as a plain-text table: measured vs the papers' target, accepted range and verdict. */
export function formatWorldCheck(result: WorldCheckResult): string {
  const table = formatTable(
    ['statistic', 'measured', 'paper', 'accept', 'verdict'],
    result.statistics.map((s) => [s.id, describeMeasured(s), describeTarget(s), s.accept, s.met ? 'met' : 'MISSED']),
  );
  const notes = result.statistics.filter((s) => s.note).map((s) => `${s.id}: ${s.note}`);
  const met = result.statistics.filter((s) => s.met).length;
  return [
    `world ${result.preset} seed ${result.seed}: cc3m ${result.pools.cc3m.pairs} pairs, cc12m ${result.pools.cc12m.pairs} pairs kept`,
    '',
    table,
    '',
    `${met} of ${result.statistics.length} statistics met`,
    ...notes.map((n) => `note: ${n}`),
  ].join('\n');
}
