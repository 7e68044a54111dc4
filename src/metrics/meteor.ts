/**
 * METEOR as coco-caption reports it (`java -jar meteor-1.5.jar - - -stdio -l en -norm`),
 * in TypeScript. See docs/meteor.md for the definition, the parameters and
 * their sources, and how this differs from the jar (no paraphrase module).
 *
 * Pipeline per segment (one candidate, one reference):
 *   1. normalise both lines like the jar's `-norm` (then lower-case) and split
 *      on whitespace;
 *   2. collect candidate word matches in stage order: exact, stem (Snowball
 *      English / Porter2), WordNet synonym (shared synset after morphological
 *      base-form reduction);
 *   3. choose one alignment (each word used at most once) with the jar's beam
 *      search: most matches, then fewest chunks, then smallest distance;
 *   4. score it: weighted precision/recall with function words down-weighted
 *      (δ), a recall-weighted harmonic mean (α) and a fragmentation penalty
 *      γ·(chunks/matches)^β.
 * With several references the segment takes the best-scoring reference; the
 * corpus score is computed from the segments' statistics summed together.
 */

import { imageIdsOf, type Candidates, type MetricScores, type References } from './types';
import { METEOR_ENGLISH_FUNCTION_WORDS } from './meteor-function-words';
import { DETACHMENT_RULES, wordnet } from '../wordnet';

const porter2: (word: string) => string = require('wink-porter2-stemmer');

// ------------------------------------------------------------ parameters

/** Matching stages, in the order they run (index = stage number in the statistics). */
export const METEOR_MODULES = ['exact', 'stem', 'synonym'] as const;
export type MeteorModule = (typeof METEOR_MODULES)[number];

export interface MeteorParameters {
  /** Weight of recall against precision in the harmonic mean. */
  alpha: number;
  /** Exponent of the fragmentation ratio. */
  beta: number;
  /** Maximum fragmentation penalty. */
  gamma: number;
  /** Weight of content words against function words (function words get 1 - δ). */
  delta: number;
  /** Scoring weight of a match made by each stage: exact, stem, synonym. */
  weights: readonly [number, number, number];
}

/**
 * METEOR 1.5's defaults for `-l en` with no `-t`: the default task is "rank"
 * (Constants.TASK_DEFAULT), whose English parameters are α=0.85, β=0.20,
 * γ=0.60, δ=0.75 and module weights exact 1.0, stem 0.6, synonym 0.8
 * (paraphrase 0.6, not implemented here).
 */
export const METEOR_EN_RANK: MeteorParameters = Object.freeze({
  alpha: 0.85,
  beta: 0.2,
  gamma: 0.6,
  delta: 0.75,
  weights: [1.0, 0.6, 0.8] as const,
});

/**
 * Weights the jar's aligner uses to rank partial alignments (MeteorScorer sets
 * exact 1.0 and every other stage 0.5, independent of the scoring weights).
 */
const ALIGNER_WEIGHTS: readonly [number, number, number] = [1.0, 0.5, 0.5];

/** The jar's default beam width. */
export const METEOR_BEAM_SIZE = 40;

export interface MeteorOptions {
  params?: MeteorParameters;
  /** Apply the jar's `-norm` tokenisation before matching (default true, as coco-caption). */
  normalize?: boolean;
  /** Partial alignments kept per reference position (default 40, as the jar). */
  beamSize?: number;
  /**
   * Rank partial alignments exactly as the jar does (default true). The jar
   * keeps its weighted match totals in integer fields, so a stem or synonym
   * match (aligner weight 0.5) adds nothing to them: among alignments with the
   * same number of exact matches it prefers fewer chunks, even when that means
   * leaving a stem/synonym match out (e.g. candidate "dogs" vs reference
   * "dog" scores 0). With false, the totals are real numbers and stem/synonym
   * matches count 0.5 each, i.e. the published "most matches first" rule.
   */
  jarCompatibleSearch?: boolean;
}

// ------------------------------------------------------ normalisation

// Letters the jar's normaliser treats as alphabetic: ASCII, Latin-1 and
// Latin Extended-A letters (Š Ž š ž Ÿ À-Ö Ø-ö ø-ž) and Cyrillic ranges.
const ALPHA =
  'A-Za-z\u0160\u017D\u0161\u017E\u0178\u00C0-\u00D6\u00D8-\u00F6\u00F8-\u017E' + '\u0400-\u04FF\u0500-\u0527\uA640-\uA66E\uA67E-\uA697\u1D00-\u1D7F';
const ALNUM = '0-9' + ALPHA;

const RE = {
  separateOther: new RegExp(`([^${ALNUM}\\s.'\`,\\-\u2018\u2019])`, 'g'),
  multiDot: /\.{2,}/g,
  comma: /,/g,
  singleQuote: /[`\u2018\u2019]/g,
  doubleQuote: /[\u201C\u201D]|''/g,
  innerDash: new RegExp(`([${ALNUM}.])-([${ALNUM}])`, 'g'),
  apostropheNonAlphaBoth: new RegExp(`([^${ALPHA}])'([^${ALPHA}])`, 'g'),
  apostropheBeforeAlpha: new RegExp(`([^${ALPHA}0-9])'([${ALPHA}])`, 'g'),
  apostropheAfterAlpha: new RegExp(`([${ALPHA}])'([^${ALPHA}])`, 'g'),
  apostropheInside: new RegExp(`([${ALPHA}])'([${ALPHA}])`, 'g'),
  decadeS: /([0-9])'(s)/g,
  dottedLetters: new RegExp(`[${ALPHA}]`),
  whitespace: /[\s\u00A0\u2000-\u200B\u3000\uFEFF]+/g,
};

/**
 * Tokenises a line the way METEOR's `-norm` does for English (punctuation
 * kept), then lower-cases it. Already tokenised, lower-cased captions mostly
 * pass through unchanged; the visible effects are that hyphens between
 * letters/digits become spaces ("t-shirt" → "t shirt"), symbols are split off,
 * and apostrophes are split English-style ("'s" → "' s", "n't" → "n 't").
 * Simplification: the jar's list of non-breaking prefixes ("mr.", "no." …) is
 * not used; a word-final dot is kept when the next token starts with a
 * lower-case letter and split off otherwise.
 */
export function normalizeMeteor(line: string): string[] {
  let s = ` ${line} `;
  s = s.replace(RE.separateOther, ' $1 ');
  s = s.replace(RE.multiDot, (dots) => ` ${'\u0000'.repeat(dots.length)} `);
  s = s.replace(RE.comma, (_c, offset: number, whole: string) => {
    const before = whole.charAt(offset - 1);
    const after = whole.charAt(offset + 1);
    return /[0-9]/.test(before) && /[0-9]/.test(after) ? ',' : ' , ';
  });
  s = s.replace(RE.singleQuote, "'");
  s = s.replace(RE.doubleQuote, ' " ');
  s = s.split('\u2013').join('-').split('--').join('-');
  s = s.replace(RE.innerDash, '$1 $2');
  s = s.replace(RE.apostropheNonAlphaBoth, "$1 ' $2");
  s = s.replace(RE.apostropheBeforeAlpha, "$1 ' $2");
  s = s.replace(RE.apostropheAfterAlpha, "$1 ' $2");
  s = s.replace(RE.apostropheInside, "$1 '$2");
  s = s.replace(RE.decadeS, "$1 '$2");
  const words = s.split(RE.whitespace).filter((w) => w !== '');
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!;
    if (w.length > 1 && w.endsWith('.')) {
      const pre = w.slice(0, -1);
      const next = words[i + 1];
      if (pre.includes('.') && RE.dottedLetters.test(pre)) {
        out.push(w.split('.').join('')); // "u.s." → "us"
      } else if (next !== undefined && /^[a-z]/.test(next)) {
        out.push(w);
      } else {
        out.push(pre, '.');
      }
    } else {
      out.push(w);
    }
  }
  return (
    out
      // eslint-disable-next-line no-control-regex -- NUL stood in for '.' while matching
      .map((w) => w.replace(/\u0000/g, '.').toLowerCase())
      .join(' ')
      .split(' ')
      .filter((w) => w !== '')
  );
}

// ------------------------------------------------------------ matchers

const FUNCTION_WORDS: ReadonlySet<string> = new Set(METEOR_ENGLISH_FUNCTION_WORDS);

/** Whether METEOR counts `word` as a function word (weight 1 - δ). */
export function isFunctionWord(word: string): boolean {
  return FUNCTION_WORDS.has(word.toLowerCase());
}

const stemCache = new Map<string, string>();

/** Snowball English (Porter2) stem, as the jar's stem module uses. */
export function meteorStem(word: string): string {
  let s = stemCache.get(word);
  if (s === undefined) {
    s = porter2(word);
    stemCache.set(word, s);
  }
  return s;
}

const synCache = new Map<string, ReadonlySet<string>>();

/**
 * Synsets METEOR's synonym module gives a word: the synsets of the word
 * itself (any part of speech) plus those of its base form(s). Base forms
 * follow the jar: if the word is in a WordNet exception list (any part of
 * speech) its listed bases; otherwise the first detachment-rule result (noun,
 * then verb, then adjective rules) that is a WordNet lemma; words of two
 * letters or less, or ending in "ss", are not reduced.
 */
export function meteorSynsets(word: string): ReadonlySet<string> {
  const cached = synCache.get(word);
  if (cached) return cached;
  const wn = wordnet();
  const ids = new Set<string>(wn.synsetsOfLemma(word));
  const bases = wn.exceptionBases(word);
  if (bases.length > 0) {
    for (const b of bases) for (const id of wn.synsetsOfLemma(b)) ids.add(id);
  } else if (word.length > 2 && !word.endsWith('ss')) {
    const rules = [...DETACHMENT_RULES.n, ...DETACHMENT_RULES.v, ...DETACHMENT_RULES.a];
    for (const [suffix, replacement] of rules) {
      if (!word.endsWith(suffix)) continue;
      const candidate = word.slice(0, word.length - suffix.length) + replacement;
      if (wn.isLemma(candidate)) {
        for (const id of wn.synsetsOfLemma(candidate)) ids.add(id);
        break;
      }
    }
  }
  synCache.set(word, ids);
  return ids;
}

function shareSynset(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size > b.size) [a, b] = [b, a];
  for (const id of a) if (b.has(id)) return true;
  return false;
}

/** One aligned word pair: candidate (test) position, reference position, stage. */
export interface MeteorMatch {
  test: number;
  ref: number;
  module: number;
}

interface Candidate {
  test: number;
  module: number;
}

/**
 * All word matches per reference position, in the jar's order: exact (by
 * candidate position), then stem, then synonym. Stem and synonym matches need
 * different surface forms; one word pair can get both a stem and a synonym
 * match. Identical lines only get exact matches.
 */
function collectMatches(test: readonly string[], ref: readonly string[]): Candidate[][] {
  const perRef: Candidate[][] = ref.map(() => []);
  const identical = test.length === ref.length && test.every((w, i) => w === ref[i]);
  for (let j = 0; j < ref.length; j++) {
    for (let i = 0; i < test.length; i++) if (test[i] === ref[j]) perRef[j]!.push({ test: i, module: 0 });
  }
  if (identical) return perRef;
  const testStems = test.map(meteorStem);
  const refStems = ref.map(meteorStem);
  for (let j = 0; j < ref.length; j++) {
    for (let i = 0; i < test.length; i++) {
      if (testStems[i] === refStems[j] && test[i] !== ref[j]) perRef[j]!.push({ test: i, module: 1 });
    }
  }
  const testSyn = test.map(meteorSynsets);
  const refSyn = ref.map(meteorSynsets);
  for (let j = 0; j < ref.length; j++) {
    for (let i = 0; i < test.length; i++) {
      if (test[i] !== ref[j] && shareSynset(testSyn[i]!, refSyn[j]!)) perRef[j]!.push({ test: i, module: 2 });
    }
  }
  return perRef;
}

// ------------------------------------------------------------ alignment

interface Link {
  ref: number;
  test: number;
  module: number;
  prev: Link | null;
}

interface Path extends Ranked {
  lastMatchEnd: number; // candidate position after the last match, -1 when no chunk is open
  used: Uint32Array; // candidate positions taken
  links: Link | null;
}

interface Ranked {
  score1: number;
  score2: number;
  chunks: number;
  distance: number;
}

/** The jar's ranking of partial alignments: larger match total, then fewer chunks, then smaller distance. */
function comparePaths(x: Ranked, y: Ranked): number {
  const diff = y.score1 + y.score2 - (x.score1 + x.score2);
  if (diff > 0) return 1;
  if (diff < 0) return -1;
  if (x.chunks !== y.chunks) return x.chunks - y.chunks;
  return x.distance - y.distance;
}

/**
 * Chooses the alignment with the jar's procedure: matches that are the only
 * candidate for both of their words are fixed first; the rest is a left-to-right
 * beam search over reference positions, each step either taking one free
 * candidate match or skipping the position, ranking partial alignments by
 * weighted match total (more), then chunks (fewer), then distance (smaller).
 * The ranking reproduces two details of the jar: integer match totals (see
 * MeteorOptions.jarCompatibleSearch) and the distance of a considered match
 * being added to the path that skips it (only a tie-breaker).
 */
export function alignMeteor(test: readonly string[], ref: readonly string[], options: MeteorOptions = {}): MeteorMatch[] {
  const beamSize = Math.max(1, options.beamSize ?? METEOR_BEAM_SIZE);
  const integerTotals = options.jarCompatibleSearch ?? true;
  const addWeight = integerTotals ? (total: number, w: number): number => Math.trunc(total + w) : (total: number, w: number): number => total + w;
  const perRef = collectMatches(test, ref);

  // Coverage: how many candidate matches touch each word.
  const testCoverage = new Array<number>(test.length).fill(0);
  for (const cands of perRef) for (const c of cands) testCoverage[c.test]!++;

  const words = Math.max(1, Math.ceil(test.length / 32));
  const start: Path = {
    score1: 0,
    score2: 0,
    chunks: 0,
    distance: 0,
    lastMatchEnd: -1,
    used: new Uint32Array(words),
    links: null,
  };
  const fixed: Array<Candidate | null> = perRef.map((cands) => {
    if (cands.length !== 1) return null;
    const c = cands[0]!;
    return testCoverage[c.test] === 1 ? c : null;
  });
  for (const c of fixed) if (c) start.used[c.test >>> 5]! |= 1 << (c.test & 31);

  // One step extends every kept path by a match at reference position j or
  // by skipping j. Extensions are first described by their ranking fields
  // only; the best `beamSize` of them, in the order a stable sort would give,
  // are then built into paths. This is the jar's sort-then-truncate, without
  // materialising the extensions that fall outside the beam.
  interface Proposal extends Ranked {
    parent: Path;
    cand: Candidate | null;
    lastMatchEnd: number;
  }
  const extend = (parent: Path, c: Candidate, distance: number): Proposal => {
    const w = ALIGNER_WEIGHTS[c.module]!;
    const open = parent.lastMatchEnd !== -1 && c.test !== parent.lastMatchEnd;
    return {
      parent,
      cand: c,
      score1: addWeight(parent.score1, w),
      score2: addWeight(parent.score2, w),
      chunks: parent.chunks + (open ? 1 : 0),
      distance,
      lastMatchEnd: c.test + 1,
    };
  };

  let paths: Path[] = [start];
  for (let j = 0; j < ref.length; j++) {
    const top: Proposal[] = [];
    const offer = (p: Proposal): void => {
      // Insert after every element that ranks the same or better (stability).
      if (top.length === beamSize && comparePaths(p, top[beamSize - 1]) >= 0) return;
      let lo = 0;
      let hi = top.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (comparePaths(top[mid], p) <= 0) lo = mid + 1;
        else hi = mid;
      }
      top.splice(lo, 0, p);
      if (top.length > beamSize) top.pop();
    };
    const fix = fixed[j];
    for (const path of paths) {
      if (fix) {
        offer(extend(path, fix, path.distance + Math.abs(j - fix.test)));
        continue;
      }
      // The jar adds each considered match's distance to the path that will
      // skip position j, and later extensions copy that running value.
      let distance = path.distance;
      for (const c of perRef[j]!) {
        if ((path.used[c.test >>> 5]! >>> (c.test & 31)) & 1) continue;
        offer(extend(path, c, distance));
        distance += Math.abs(j - c.test);
      }
      offer({
        parent: path,
        cand: null,
        score1: path.score1,
        score2: path.score2,
        chunks: path.chunks + (path.lastMatchEnd !== -1 ? 1 : 0),
        distance,
        lastMatchEnd: -1,
      });
    }
    paths = top.map((p) => {
      const { parent, cand } = p;
      let used = parent.used;
      let links = parent.links;
      if (cand) {
        used = used.slice();
        used[cand.test >>> 5]! |= 1 << (cand.test & 31);
        links = { ref: j, test: cand.test, module: cand.module, prev: links };
      }
      return {
        score1: p.score1,
        score2: p.score2,
        chunks: p.chunks,
        distance: p.distance,
        lastMatchEnd: p.lastMatchEnd,
        used,
        links,
      };
    });
  }
  const finals = paths.map((p) => ({ ...p, chunks: p.chunks + (p.lastMatchEnd !== -1 ? 1 : 0), lastMatchEnd: -1 }));
  finals.sort(comparePaths);
  const out: MeteorMatch[] = [];
  for (let l = finals[0]?.links ?? null; l; l = l.prev) out.push({ test: l.test, ref: l.ref, module: l.module });
  return out.reverse();
}

/** Chunks of an alignment: maximal runs contiguous and in the same order on both sides. */
export function countChunks(matches: readonly MeteorMatch[], refLength: number): number {
  const byRef = new Array<MeteorMatch | undefined>(refLength);
  for (const m of matches) byRef[m.ref] = m;
  let chunks = 0;
  let lastEnd = -1;
  for (let j = 0; j < refLength; j++) {
    const m = byRef[j];
    if (!m) {
      if (lastEnd !== -1) chunks++;
      lastEnd = -1;
    } else {
      if (lastEnd !== -1 && m.test !== lastEnd) chunks++;
      lastEnd = m.test + 1;
    }
  }
  if (lastEnd !== -1) chunks++;
  return chunks;
}

// ------------------------------------------------------------ statistics

/** One stage's match counts, split by side and by content/function word. */
export interface StageCounts {
  testContent: number;
  refContent: number;
  testFunction: number;
  refFunction: number;
}

/** METEOR's sufficient statistics (the numbers the jar prints for SCORE lines). */
export interface MeteorStats {
  testLength: number;
  referenceLength: number;
  testFunctionWords: number;
  referenceFunctionWords: number;
  /** Per stage: exact, stem, synonym. */
  stages: StageCounts[];
  chunks: number;
  testWordMatches: number;
  referenceWordMatches: number;
}

/** Scores derived from statistics. */
export interface MeteorScoreParts {
  precision: number;
  recall: number;
  fMean: number;
  fragPenalty: number;
  score: number;
}

function emptyStages(): StageCounts[] {
  return METEOR_MODULES.map(() => ({ testContent: 0, refContent: 0, testFunction: 0, refFunction: 0 }));
}

/** Statistics of one candidate/reference alignment. */
export function alignmentStats(test: readonly string[], ref: readonly string[], matches: readonly MeteorMatch[]): MeteorStats {
  const stages = emptyStages();
  for (const m of matches) {
    const st = stages[m.module]!;
    if (isFunctionWord(test[m.test]!)) st.testFunction++;
    else st.testContent++;
    if (isFunctionWord(ref[m.ref]!)) st.refFunction++;
    else st.refContent++;
  }
  return {
    testLength: test.length,
    referenceLength: ref.length,
    testFunctionWords: test.filter(isFunctionWord).length,
    referenceFunctionWords: ref.filter(isFunctionWord).length,
    stages,
    chunks: countChunks(matches, ref.length),
    testWordMatches: matches.length,
    referenceWordMatches: matches.length,
  };
}

function totals(stats: MeteorStats): { test: number; ref: number } {
  let test = 0;
  let ref = 0;
  for (const s of stats.stages) {
    test += s.testContent + s.testFunction;
    ref += s.refContent + s.refFunction;
  }
  return { test, ref };
}

/** Whether the statistics describe a candidate identical to its reference (one chunk, everything matched). */
function isPerfect(stats: MeteorStats): boolean {
  const t = totals(stats);
  return t.test === stats.testLength && t.ref === stats.referenceLength && stats.chunks === 1;
}

/** METEOR score from statistics (the jar's computeMetrics); 0 instead of NaN. */
export function scoreFromStats(stats: MeteorStats, params: MeteorParameters = METEOR_EN_RANK): MeteorScoreParts {
  const { alpha, beta, gamma, delta, weights } = params;
  const testWeightedLength = delta * (stats.testLength - stats.testFunctionWords) + (1 - delta) * stats.testFunctionWords;
  const refWeightedLength = delta * (stats.referenceLength - stats.referenceFunctionWords) + (1 - delta) * stats.referenceFunctionWords;
  let testWeighted = 0;
  let refWeighted = 0;
  stats.stages.forEach((s, i) => {
    const w = weights[i] ?? 0;
    testWeighted += s.testContent * w * delta;
    refWeighted += s.refContent * w * delta;
  });
  stats.stages.forEach((s, i) => {
    const w = weights[i] ?? 0;
    testWeighted += s.testFunction * w * (1 - delta);
    refWeighted += s.refFunction * w * (1 - delta);
  });
  const precision = testWeighted / testWeightedLength;
  const recall = refWeighted / refWeightedLength;
  const fMean = 1 / ((1 - alpha) / precision + alpha / recall);
  const frag = isPerfect(stats) ? 0 : stats.chunks / ((stats.testWordMatches + stats.referenceWordMatches) / 2);
  const fragPenalty = gamma * Math.pow(frag, beta);
  const raw = fMean * (1 - fragPenalty);
  const score = Number.isNaN(raw) ? 0 : Math.max(raw, 0);
  return { precision, recall, fMean, fragPenalty, score };
}

/**
 * Sums segment statistics into corpus statistics the way the jar aggregates
 * them: every count is added, except that the chunk of a segment identical to
 * its reference is left out (so perfect segments add no fragmentation).
 */
export function aggregateStats(list: readonly MeteorStats[]): MeteorStats {
  const sum: MeteorStats = {
    testLength: 0,
    referenceLength: 0,
    testFunctionWords: 0,
    referenceFunctionWords: 0,
    stages: emptyStages(),
    chunks: 0,
    testWordMatches: 0,
    referenceWordMatches: 0,
  };
  for (const s of list) {
    sum.testLength += s.testLength;
    sum.referenceLength += s.referenceLength;
    sum.testFunctionWords += s.testFunctionWords;
    sum.referenceFunctionWords += s.referenceFunctionWords;
    s.stages.forEach((st, i) => {
      const acc = sum.stages[i]!;
      acc.testContent += st.testContent;
      acc.refContent += st.refContent;
      acc.testFunction += st.testFunction;
      acc.refFunction += st.refFunction;
    });
    if (!isPerfect(s)) sum.chunks += s.chunks;
    sum.testWordMatches += s.testWordMatches;
    sum.referenceWordMatches += s.referenceWordMatches;
  }
  return sum;
}

/**
 * The jar's text form of statistics (23 numbers: lengths, function-word
 * counts, 4 stages × test/ref content/function matches, chunks, word matches);
 * the paraphrase stage is always 0 here.
 */
export function formatStats(stats: MeteorStats): string {
  const nums: number[] = [stats.testLength, stats.referenceLength, stats.testFunctionWords, stats.referenceFunctionWords];
  for (let i = 0; i < 4; i++) {
    const s = stats.stages[i];
    nums.push(s?.testContent ?? 0, s?.refContent ?? 0, s?.testFunction ?? 0, s?.refFunction ?? 0);
  }
  nums.push(stats.chunks, stats.testWordMatches, stats.referenceWordMatches);
  return nums.map((n) => n.toFixed(1)).join(' ');
}

// ------------------------------------------------------------ scoring

/** Result for one candidate against its references. */
export interface MeteorSegment extends MeteorScoreParts {
  stats: MeteorStats;
  /** Index of the reference that gave the best score (-1 without references). */
  referenceIndex: number;
  /** Alignment with that reference (positions in the normalised token lists). */
  matches: MeteorMatch[];
}

function tokensOf(tokens: readonly string[], normalize: boolean): string[] {
  const line = tokens.join(' ').trim();
  if (line === '') return [];
  return normalize ? normalizeMeteor(line) : line.split(/\s+/);
}

/**
 * METEOR of one candidate against one or more references: the best
 * reference's score and statistics (first one on ties, as the jar).
 */
export function segmentScore(
  candidateTokens: readonly string[],
  referenceTokensList: ReadonlyArray<readonly string[]>,
  options: MeteorOptions = {},
): MeteorSegment {
  const params = options.params ?? METEOR_EN_RANK;
  const normalize = options.normalize ?? true;
  const test = tokensOf(candidateTokens, normalize);
  let best: MeteorSegment | null = null;
  referenceTokensList.forEach((refTokens, index) => {
    const ref = tokensOf(refTokens, normalize);
    const matches = test.length > 0 && ref.length > 0 ? alignMeteor(test, ref, options) : [];
    const stats = alignmentStats(test, ref, matches);
    const parts = scoreFromStats(stats, params);
    if (best === null || parts.score > best.score) {
      best = { ...parts, stats, referenceIndex: index, matches };
    }
  });
  if (best !== null) return best;
  const stats = alignmentStats(test, [], []);
  return { ...scoreFromStats(stats, params), stats, referenceIndex: -1, matches: [] };
}

/** Splits on whitespace, dropping empty strings. */
function splitLine(text: string): string[] {
  const t = text.trim();
  return t === '' ? [] : t.split(/\s+/);
}

/**
 * METEOR of a set of captions, as coco-caption reports it: per image the
 * segment score against that image's references; corpus = the score of the
 * summed segment statistics (not the mean of the per-image scores).
 */
export function score(references: References, candidates: Candidates, options: MeteorOptions = {}): MetricScores {
  const params = options.params ?? METEOR_EN_RANK;
  const ids = imageIdsOf(references, candidates);
  const perImage: Record<string, number> = {};
  const all: MeteorStats[] = [];
  for (const id of ids) {
    // coco-caption strips "|||" from the candidate before sending it to the jar.
    const candidate = splitLine(candidates[id]!.split('|||').join(''));
    const refs = references[id]!.map(splitLine);
    const seg = segmentScore(candidate, refs, options);
    perImage[id] = seg.score;
    all.push(seg.stats);
  }
  const corpus = ids.length === 0 ? 0 : scoreFromStats(aggregateStats(all), params).score;
  return { METEOR: { corpus, perImage } };
}
