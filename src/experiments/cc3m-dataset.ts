/**
 * The CC3M paper's dataset tables (Sharma et al., ACL 2018) and CC12M's Table 9, computed on a world's pools for
 * notebooks/02-cc3m-dataset.ipynb:
 *
 *  - Table 1, alt-text → caption: `traceCc3mTransform` runs the CC3M transform (src/filters/transform.ts) on one
 *    alt-text and says which of its rewrites acted. The pipeline records only the result (kept.tsv), so each
 *    rewrite is found by switching it off alone (`Cc3mTransformOptions`): a rewrite *acted* when the caption
 *    without it differs from the caption with all of them. Boilerplate is cropped by the text stage before the
 *    transform and is marked too; person names are those `findPersons` detects.
 *  - Table 2, dataset quality: `poolQuality` judges every pair against the world's ground truth with the judge of
 *    src/metrics/grounding.ts. A pair is GOOD when its caption names at least one object its image shows (by
 *    name, synonym or hypernym) and names none that it does not show. The web alt-text's frame (events such as
 *    "at a press conference") is not judged as objects (`WEB_FRAME_WORDS`).
 *  - Table 3, splits: `splitOf` assigns a pair to train / validation / test by a hash of its URL (the world's pool
 *    has no split of its own), and `splitStatistics` gives examples, unique tokens and tokens per caption (mean,
 *    population std, median) with the Table 1 tokenizer of `cckit stats`.
 *  - CC12M Table 9: the out-of-domain coverage `cckit world check` measures (`conceptCoverage` over the nocaps-val
 *    out-of-domain concepts, src/experiments/world-stats.ts), for any number of pools.
 *
 * `measureDatasets` wires these to a world prepared by `prepareWorldInputs` (built and filtered on first use).
 */
import * as fs from 'fs';
import * as path from 'path';

import { DEFAULT_URL_SPLIT_FRACTIONS, SPLITS, splitOf, urlUnit, type SplitFractions, type SplitName } from '../data/url-split';
import { cropBoilerplate } from '../filters/boilerplate';
import { findPersons, replacePersons } from '../filters/persons';
import { Cc3mTransform, type Cc3mTransformOptions } from '../filters/transform';
import type { HypernymRule } from '../filters/hypernyms';
import { groundingVocabulary, judgeCaption, PERSON_CONCEPT, WORLD_FRAME_WORDS, type CaptionGrounding, type GroundingVocabulary } from '../metrics/grounding';
import { fastTokenize } from '../text/fast-tokenizer';
import type { ConceptCatalog } from '../wordnet/catalog';
import { worldCatalog } from '../world/catalog';
import { EVENTS, OCCASIONS } from '../world/words';
import type { Recipe } from './recipe';
import { prepareWorldInputs } from './inputs';
import type { ExperimentOptions } from './options';
import { openBuiltWorld, readPool } from './world-check';
import { conceptCoverage, mentionCounts, nocapsOutConcepts, readWebTruth, type WebTruth } from './world-stats';

// ------------------------------------------------------------------ Table 1: what the transform did

/** The CC3M rewrites a notebook marks, in the order they apply. */
export type TransformKind = 'boilerplate' | 'dates' | 'locations' | 'modifiers' | 'entities' | 'hypernyms' | 'coordination' | 'lowercase';

/** Each rewrite: the option that switches it off (none for the text stage's boilerplate crop) and its description. */
export const TRANSFORMS: readonly { kind: TransformKind; option?: keyof Cc3mTransformOptions; label: string }[] = [
  { kind: 'boilerplate', label: 'boilerplate cropped (text stage)' },
  { kind: 'dates', option: 'removeDates', label: 'dates and durations removed' },
  { kind: 'locations', option: 'removeLocations', label: 'locative phrase removed ("in Paris")' },
  { kind: 'modifiers', option: 'removeModifiers', label: 'number, unit or proper-noun modifier removed' },
  { kind: 'entities', option: 'replaceEntities', label: 'named entity → role word, "person" or place class (names removed)' },
  { kind: 'hypernyms', option: 'hypernymize', label: 'fine-grained noun → hypernym' },
  { kind: 'coordination', option: 'mergeCoordination', label: 'same-head coordination merged ("actor and actor" → "actors")' },
  { kind: 'lowercase', option: 'lowercase', label: 'lower-cased' },
];

export interface TransformTrace {
  altText: string;
  /** The CC3M caption, or null when the pair is rejected (`rejected` says why). */
  caption: string | null;
  rejected?: string;
  /** Rewrites that acted, in TRANSFORMS' order. */
  transforms: TransformKind[];
  /** Boilerplate phrases the text stage cropped. */
  cropped: string[];
  /** Person names found in the alt-text (each removed by CC3M, replaced by <PERSON> in CC12M). */
  names: string[];
  /** The CC12M transform of the same alt-text (names → <PERSON>; the text stage's crop applied first). */
  cc12m: string;
}

/** Catalog (undefined: the transform's default, WordNet) → hypernym rule and option switched off ('' for none) → transform. */
const transformers = new Map<ConceptCatalog | undefined, Map<string, Cc3mTransform>>();

/** A memoised Cc3mTransform with one option switched off (or none). */
function transformer(catalog: ConceptCatalog | undefined, rule: HypernymRule | undefined, off: keyof Cc3mTransformOptions | undefined): Cc3mTransform {
  let byOption = transformers.get(catalog);
  if (!byOption) transformers.set(catalog, (byOption = new Map()));
  const name = `${rule ?? ''}:${off ?? ''}`;
  let t = byOption.get(name);
  if (!t) byOption.set(name, (t = new Cc3mTransform({ catalog, ...(rule ? { hypernymRule: rule } : {}), ...(off ? { [off]: false } : {}) })));
  return t;
}

/**
 * The CC3M transform of one alt-text (after the text stage's boilerplate crop) and the rewrites that acted, with
 * the CC12M transform beside it. `catalog`: the hypernymiser's concept catalog, as the pipeline got it (the world's
 * for world data, WordNet by default); `hypernymRule`: the hypernymiser's rule, as the pipeline got it (default 'entities');
 * `labels`: the pair's vision labels, as the pipeline got them.
 */
export function traceCc3mTransform(
  altText: string,
  options: { catalog?: ConceptCatalog; hypernymRule?: HypernymRule; labels?: readonly string[] } = {},
): TransformTrace {
  const crop = cropBoilerplate(altText.trim());
  const names = findPersons(altText).map((s) => s.text);
  if (!crop.keep) return { altText, caption: null, rejected: 'text:boilerplate', transforms: [], cropped: [], names, cc12m: replacePersons(altText) };
  const input = crop.text;
  const full = transformer(options.catalog, options.hypernymRule, undefined);
  const verdict = full.transform(input, options.labels);
  const rewritten = full.rewrite(input, options.labels);
  const transforms: TransformKind[] = [];
  for (const t of TRANSFORMS) {
    if (t.kind === 'boilerplate') {
      if (crop.cropped.length > 0) transforms.push(t.kind);
    } else if (transformer(options.catalog, options.hypernymRule, t.option).rewrite(input, options.labels) !== rewritten) transforms.push(t.kind);
  }
  return {
    altText,
    caption: verdict.keep ? verdict.caption : null,
    ...(verdict.keep ? {} : { rejected: verdict.reason }),
    transforms,
    cropped: crop.cropped,
    names,
    cc12m: replacePersons(input),
  };
}

/** How many traces each rewrite acted in (every kind present, 0 when none). */
export function transformCounts(traces: readonly TransformTrace[]): Record<TransformKind, number> {
  const counts = Object.fromEntries(TRANSFORMS.map((t) => [t.kind, 0])) as Record<TransformKind, number>;
  for (const trace of traces) for (const kind of trace.transforms) counts[kind]++;
  return counts;
}

/**
 * Traces whose CC3M caption still contains one of the alt-text's person names (case-insensitive, as a whole word):
 * by default the names the transform detected; `namesOf` gives others (the world's truth: every name it wrote).
 */
export function namesLeft<T extends TransformTrace>(traces: readonly T[], namesOf: (trace: T) => readonly string[] = (t) => t.names): T[] {
  const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return traces.filter((t) => t.caption !== null && namesOf(t).some((n) => new RegExp(`(^|[^\\p{L}])${escape(n)}($|[^\\p{L}])`, 'iu').test(t.caption!)));
}

/** The first trace in which each rewrite acted (a kind that never acted is absent), without repeating a trace. */
export function examplesPerTransform(traces: readonly TransformTrace[], skip: readonly TransformKind[] = ['lowercase']): Map<TransformKind, TransformTrace> {
  const out = new Map<TransformKind, TransformTrace>();
  const used = new Set<TransformTrace>();
  for (const t of TRANSFORMS) {
    if (skip.includes(t.kind)) continue;
    const found = traces.find((trace) => trace.caption !== null && trace.transforms.includes(t.kind) && !used.has(trace));
    if (found) {
      out.set(t.kind, found);
      used.add(found);
    }
  }
  return out;
}

// ------------------------------------------------------------------ Table 2: quality against the ground truth

/**
 * The frame of the world's web alt-text: the judge's caption frame (settings, relations, adjectives) plus the words of
 * the events and occasions its person and product texts use ("at a press conference", "for kids and adults"), so
 * that "press" and "book" in "at a book signing" are not object mentions.
 */
export const WEB_FRAME_WORDS: readonly string[] = [
  ...new Set([
    ...WORLD_FRAME_WORDS,
    ...[...EVENTS, ...OCCASIONS].flatMap((phrase) => phrase.split(' ')).filter((w) => !['a', 'an', 'the', 'and', 'your'].includes(w)),
  ]),
];

/** The judge's vocabulary for web alt-text: the concepts' words with WEB_FRAME_WORDS as the frame. */
export function webGroundingVocabulary(concepts?: Parameters<typeof groundingVocabulary>[0]): GroundingVocabulary {
  return groundingVocabulary(concepts, { frame: WEB_FRAME_WORDS });
}

/** GOOD: names at least one present object (by name, synonym or hypernym) and no absent one. */
export function isGood(verdict: CaptionGrounding): boolean {
  return verdict.named.length + verdict.byKind.length > 0 && verdict.hallucinated.length === 0;
}

/** Whether a mention (as the judge reports it) is a person word: "person", "<person>", a role such as "actor". */
export function isPersonMention(text: string, vocabulary: GroundingVocabulary): boolean {
  return vocabulary.words.get(text)?.concepts.includes(PERSON_CONCEPT) ?? false;
}

export interface PoolQuality {
  /** Rows judged (found in the truth by URL). */
  pairs: number;
  /** Rows whose URL the truth lacks (left out). */
  unmatched: number;
  good: number;
  /** good / pairs. */
  goodRate: number;
  /** Share of pairs that would be GOOD if person mentions were never counted as absent ("photographed by <PERSON>"). */
  goodExceptPersonsRate: number;
  /** Share of pairs naming at least one absent object (CHAIR_s). */
  hallucinationRate: number;
  /** Share of pairs naming a person the image does not show (by a person word, a role word or <PERSON>). */
  personHallucinationRate: number;
  /** Share of pairs naming no object at all. */
  noObjectRate: number;
  /** Share of pairs whose alt-text the world generated to describe the image (`describesImage`). */
  describesImageRate: number;
  /** The absent objects named most often, with their counts (most first, then alphabetical). */
  topHallucinations: [string, number][];
}

/** Judges every row of a pool against the truth (see `isGood`). */
export function poolQuality(
  rows: readonly { url: string; caption: string }[],
  truth: ReadonlyMap<string, WebTruth>,
  vocabulary: GroundingVocabulary = webGroundingVocabulary(),
  top = 5,
): PoolQuality {
  let pairs = 0;
  let unmatched = 0;
  let good = 0;
  let hallucinating = 0;
  let personHallucinating = 0;
  let goodExceptPersons = 0;
  let noObject = 0;
  let describes = 0;
  const absent = new Map<string, number>();
  for (const row of rows) {
    const t = truth.get(row.url);
    if (!t) {
      unmatched++;
      continue;
    }
    pairs++;
    const v = judgeCaption(row.caption, t.concepts, vocabulary);
    if (isGood(v)) good++;
    if (v.hallucinated.length > 0) hallucinating++;
    const persons = v.hallucinated.filter((h) => isPersonMention(h, vocabulary)).length;
    if (persons > 0) personHallucinating++;
    if (v.named.length + v.byKind.length > 0 && v.hallucinated.length === persons) goodExceptPersons++;
    if (v.mentions === 0) noObject++;
    if (t.describesImage) describes++;
    for (const word of v.hallucinated) absent.set(word, (absent.get(word) ?? 0) + 1);
  }
  const share = (n: number) => (pairs === 0 ? NaN : n / pairs);
  return {
    pairs,
    unmatched,
    good,
    goodRate: share(good),
    goodExceptPersonsRate: share(goodExceptPersons),
    hallucinationRate: share(hallucinating),
    personHallucinationRate: share(personHallucinating),
    noObjectRate: share(noObject),
    describesImageRate: share(describes),
    topHallucinations: [...absent.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, top),
  };
}

// ------------------------------------------------------------------ Table 3: splits

export { DEFAULT_URL_SPLIT_FRACTIONS, SPLITS, splitOf, urlUnit, type SplitFractions, type SplitName };

export interface SplitStatistics {
  examples: number;
  /** Distinct tokens. */
  uniqueTokens: number;
  tokens: number;
  /** Tokens per caption: mean, population standard deviation, median (the mean of the middle two for an even count). */
  mean: number;
  std: number;
  median: number;
}

/** Examples, unique tokens and tokens per caption with the Table 1 tokenizer (`cckit stats`, lower-cased). */
export function splitStatistics(captions: Iterable<string>): SplitStatistics {
  const types = new Set<string>();
  const lengths: number[] = [];
  for (const caption of captions) {
    const tokens = fastTokenize(caption);
    lengths.push(tokens.length);
    for (const t of tokens) types.add(t);
  }
  const n = lengths.length;
  const tokens = lengths.reduce((a, b) => a + b, 0);
  const mean = n === 0 ? NaN : tokens / n;
  const std = n === 0 ? NaN : Math.sqrt(lengths.reduce((s, l) => s + (l - mean) ** 2, 0) / n);
  const sorted = [...lengths].sort((a, b) => a - b);
  const median = n === 0 ? NaN : n % 2 === 1 ? sorted[(n - 1) / 2]! : (sorted[n / 2 - 1]! + sorted[n / 2]!) / 2;
  return { examples: n, uniqueTokens: types.size, tokens, mean, std, median };
}

/** The statistics of each split of a pool (splitOf by URL). */
export function datasetSplits(
  rows: readonly { url: string; caption: string }[],
  fractions: Readonly<SplitFractions> = DEFAULT_URL_SPLIT_FRACTIONS,
): Record<SplitName, SplitStatistics> {
  const captions: Record<SplitName, string[]> = { train: [], validation: [], test: [] };
  for (const row of rows) captions[splitOf(row.url, fractions)].push(row.caption);
  return { train: splitStatistics(captions.train), validation: splitStatistics(captions.validation), test: splitStatistics(captions.test) };
}

// ------------------------------------------------------------------ CC12M Table 9: out-of-domain coverage

export interface Coverage {
  /** The out-of-domain concepts of nocaps val. */
  concepts: string[];
  ks: number[];
  /** Pool → k → share of the concepts mentioned in ≥ k of its captions (world check's `nocaps-out-coverage`). */
  share: Record<string, Record<number, number>>;
  /** Pool → concept → captions mentioning it. */
  mentions: Record<string, Record<string, number>>;
}

/** CC12M Table 9's coverage of `concepts` by each pool's captions, at each k. */
export function outOfDomainCoverage(pools: Record<string, readonly string[]>, concepts: readonly string[], ks: readonly number[] = [1, 5, 10]): Coverage {
  const unique = [...new Set(concepts)].sort();
  const share: Coverage['share'] = {};
  const mentions: Coverage['mentions'] = {};
  for (const [pool, captions] of Object.entries(pools)) {
    share[pool] = conceptCoverage(captions, unique, ks);
    mentions[pool] = Object.fromEntries(mentionCounts(captions, unique));
  }
  return { concepts: unique, ks: [...ks], share, mentions };
}

// ------------------------------------------------------------------ on a world

export type PoolName = 'web' | 'cc3m' | 'cc12m';

export interface DatasetsResult {
  preset: string;
  seed: number;
  /** The rows of each pool: the raw web pool (world only) and the two pipelines' kept pairs. */
  rows: Partial<Record<PoolName, { url: string; caption: string }[]>>;
  /**
   * The CC3M pool's kept pairs traced from their alt-texts, with the pipeline's kept caption and the names the world
   * wrote into the alt-text (world only: the web pool has the alt-texts).
   */
  traces?: (TransformTrace & { url: string; kept: string; truthNames: string[] })[];
  /** For each web URL, why the CC12M pipeline rejected it (`stage:reason`), when it did (world only). */
  cc12mRejects?: Map<string, string>;
  /**
   * Every pair the CC12M pipeline kept, before the CC12M-like pool drops the CC3M-like images (world only): Table 1
   * shows the CC12M caption of a CC3M-kept alt-text from here.
   */
  cc12mPipeline?: { url: string; caption: string }[];
  /** Table 2 (world only). */
  quality?: Partial<Record<PoolName, PoolQuality>>;
  /** Table 3: the CC3M pool's splits. */
  splits: Record<SplitName, SplitStatistics>;
  fractions: SplitFractions;
  /** CC12M Table 9 (world only). */
  coverage?: Coverage;
}

/** `stage:reason` of every URL a pipeline rejected, from its rejects.jsonl (empty when absent). */
export function readRejects(file: string): Map<string, string> {
  const out = new Map<string, string>();
  if (!fs.existsSync(file)) return out;
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    const r = JSON.parse(line) as { url?: string; reason?: string };
    if (r.url !== undefined && r.reason !== undefined) out.set(r.url, r.reason);
  }
  return out;
}

/**
 * Every table of the notebook on the recipe's world (built and filtered on first use, shared with table3 and
 * `cckit world check`), or on its real pools (`recipe.data`: splits only; the rest needs the world's truth).
 */
export async function measureDatasets(
  recipe: Recipe,
  options: ExperimentOptions & { fractions?: SplitFractions; ks?: readonly number[] } = {},
): Promise<DatasetsResult> {
  const inputs = await prepareWorldInputs(recipe, options);
  const fractions = options.fractions ?? DEFAULT_URL_SPLIT_FRACTIONS;
  const rows: DatasetsResult['rows'] = { cc3m: await readPool(inputs.pools.cc3m), cc12m: await readPool(inputs.pools.cc12m) };
  const result: DatasetsResult = { preset: recipe.preset, seed: recipe.seed, rows, splits: datasetSplits(rows.cc3m!, fractions), fractions: { ...fractions } };
  if (recipe.data) return result;

  const { root, world, sizes } = openBuiltWorld(options.cacheDir ?? '.cckit-cache', recipe.preset, recipe.seed);
  rows.web = await readPool(path.join(root, 'web', 'cc12m.tsv'));
  const altText = new Map(rows.web.map((r) => [r.url, r.caption]));
  const truth = readWebTruth(path.join(root, 'web', 'truth.jsonl'));
  const catalog = worldCatalog(world.concepts);
  result.traces = rows.cc3m!.map((r) => ({
    // as the pipeline ran it: the entity rule, the world's catalog and the pair's vision labels (they pick a name's sense)
    ...traceCc3mTransform(altText.get(r.url) ?? r.caption, { catalog, hypernymRule: 'entities', labels: truth.get(r.url)?.tags ?? [] }),
    url: r.url,
    kept: r.caption,
    truthNames: truth.get(r.url)?.persons ?? [],
  }));
  result.cc12mRejects = readRejects(path.join(path.dirname(inputs.pools.cc12m), 'rejects.jsonl'));
  result.cc12mPipeline = await readPool(path.join(path.dirname(inputs.pools.cc12m), 'kept.tsv'));

  const vocabulary = webGroundingVocabulary(world.concepts);
  result.quality = {};
  for (const pool of ['web', 'cc3m', 'cc12m'] as const) result.quality[pool] = poolQuality(rows[pool]!, truth, vocabulary);

  const outConcepts = nocapsOutConcepts(world, sizes['nocaps-val']);
  result.coverage = outOfDomainCoverage(
    Object.fromEntries((['web', 'cc3m', 'cc12m'] as const).map((p) => [p, rows[p]!.map((r) => r.caption)])),
    outConcepts,
    options.ks ?? [1, 5, 10],
  );
  return result;
}
