/**
 * The two papers' pipelines as data: every threshold lives in the stage option objects named
 * here (each field carries its paper section in a comment where it is defined).
 *
 *   cc3m  (Sharma et al. 2018, §3): strict image filter, CC3M text filter (POS, capitalisation,
 *         repetition, vocabulary ≥ 5, polarity, profanity, boilerplate), image–text tag overlap,
 *         hypernymisation transform (named entities only, `hypernymRule: 'entities'`; src/filters/hypernyms.ts),
 *         low-count concept pruning (100 per 3.3M pairs, scaled).
 *   cc12m (Changpinyo et al. 2021, §2.2): relaxed image filter (aspect 2.5), relaxed text filter
 *         (3–256 words, noun + determiner, repetition ≤ 0.2, rare words ≥ 20), the same image–text
 *         rule, raw text kept except person names → <PERSON>; no pruning.
 *
 * Stage order puts cheap checks first: text and image–text need no image bytes.
 */
import { CC12M_IMAGE_FILTER, CC3M_IMAGE_FILTER, ImageFilter, ImageFilterOptions } from './image';
import { checkImageText } from './image-text';
import { replacePersons } from './persons';
import * as path from 'path';
import { WorkerPool } from '../util/worker-pool';
import { DatasetStage, PairStage, PooledStages } from './pipeline';
import type { PairTaskOptions, PooledResult } from './text-task';
import { CC12M_TEXT_FILTER, CC3M_TEXT_FILTER, TextFilter, TextFilterOptions, WordCounts, WordFrequencies } from './text';
import { ReferenceVocabulary } from './reference-vocabulary';
import type { ConceptCatalog } from '../wordnet/catalog';
import { scaledThreshold } from './scale';
import { Cc3mTransform, ConceptPruner, ScaledCount } from './transform';
import type { HypernymRule } from './hypernyms';
import { keep } from './types';

/** CC3M's training pairs (CC12M Table 1: 3,318,333), the corpus CC3M's thresholds were stated for. */
export const CC3M_PAIRS = 3_318_333;

/** CC12M's pairs (CC12M Table 1: 12,423,374), the corpus CC12M's thresholds were stated for. */
export const CC12M_PAIRS = 12_423_374;

/**
 * CC3M §3 (end): "remove all the <image, caption> pairs that contain entities whose class count is
 * below 100" — 100 at CC3M's 3,318,333 pairs, scaled to the pairs that reach the stage, never
 * below 1 (at the world's sizes the scaled count rounds to 0, so 1: nothing seen is pruned).
 */
export const CC3M_CONCEPT_PRUNING: Readonly<ScaledCount> = { threshold: 100, atPairs: CC3M_PAIRS, floor: 1 };

/** The rare-word threshold's floor once scaled: a word seen once stays rare (see PipelinePreset.rareWordsAtPairs). */
export const RARE_WORDS_FLOOR = 2;

export const STAGE_NAMES = ['text', 'image-text', 'image', 'transform', 'prune'] as const;
export type StageName = (typeof STAGE_NAMES)[number];

export interface PipelinePreset {
  name: 'cc3m' | 'cc12m';
  text: Readonly<TextFilterOptions>;
  image: Readonly<ImageFilterOptions>;
  transform: 'hypernymise' | 'person-placeholder';
  /**
   * CC3M §3: which words the hypernymiser replaces (src/filters/hypernyms.ts): 'entities', the paper's
   * Knowledge-Graph entities (names, places, organisations, named products), common nouns kept; or
   * 'every-noun', cckit's earlier rule that also generalises fine-grained common nouns (kept for comparison;
   * the embedded world uses 'entities' since its generation 3). Ignored by 'person-placeholder'.
   */
  hypernymRule: HypernymRule;
  /** CC3M §3: keep a pair only if each of its concepts occurs ≥ threshold times (CC3M_CONCEPT_PRUNING). */
  conceptPruning: Readonly<ScaledCount> | null;
  /**
   * The corpus size at which the text filter's rare-word threshold holds. The papers count words
   * over billions of candidates; applied unchanged to a 5k-pair world, "seen ≥ 20 times" would
   * reject nearly every long-tail noun. So the threshold scales with the corpus the vocabulary is
   * built from: max(2, round(threshold × pairs / atPairs)) (src/filters/scale.ts, floor
   * RARE_WORDS_FLOOR) — never below 2, so words seen once stay rare. cckit's reading; set
   * `scaleRareWords: false` in buildStages to use it unchanged.
   */
  rareWordsAtPairs: number;
}

export const PRESETS: Record<'cc3m' | 'cc12m', PipelinePreset> = {
  cc3m: {
    name: 'cc3m',
    text: CC3M_TEXT_FILTER,
    image: CC3M_IMAGE_FILTER,
    transform: 'hypernymise',
    hypernymRule: 'entities',
    conceptPruning: CC3M_CONCEPT_PRUNING,
    rareWordsAtPairs: CC3M_PAIRS,
  },
  cc12m: {
    name: 'cc12m',
    text: CC12M_TEXT_FILTER,
    image: CC12M_IMAGE_FILTER,
    transform: 'person-placeholder',
    hypernymRule: 'entities',
    conceptPruning: null,
    rareWordsAtPairs: CC12M_PAIRS,
  },
};

export interface StageBuildOptions {
  /**
   * The rare-word check's vocabulary: the input's own counts (a `WordCounts` the caller built, threshold
   * scaled by vocabularyPairs), a `ReferenceVocabulary` or a frequency file's counts (thresholds as stated).
   */
  vocabulary?: WordFrequencies;
  /** Captions the vocabulary was counted over (for scaling the rare-word threshold). */
  vocabularyPairs?: number;
  /** Scale the rare-word threshold with the corpus size (default true; see PipelinePreset.rareWordsAtPairs). */
  scaleRareWords?: boolean;
  /** Run the text and image–text stages on this many worker threads (0: in this thread). */
  workers?: number;
  /** Run only these stages (default all). */
  only?: readonly StageName[];
  /** Turn the pornography detector off (faster runs; the funnel notes it in the stage name). */
  nsfw?: boolean;
  /** The CC3M hypernymiser's concept catalog (default: WordNet, src/wordnet/catalog.ts; the world's callers pass src/world/catalog.ts worldCatalog()). */
  catalog?: ConceptCatalog;
  /** The CC3M hypernymiser's rule (default: the preset's, 'entities'; the world's callers pin 'every-noun' until issue #26). */
  hypernymRule?: HypernymRule;
}

/** The preset's text options with the rare-word threshold scaled to the vocabulary's corpus. */
export function textOptionsFor(preset: PipelinePreset, options: StageBuildOptions): Readonly<TextFilterOptions> {
  const threshold = preset.text.minWordFrequency;
  if (threshold === null || options.scaleRareWords === false || options.vocabularyPairs === undefined) return preset.text;
  return { ...preset.text, minWordFrequency: scaledThreshold(threshold, options.vocabularyPairs, preset.rareWordsAtPairs, RARE_WORDS_FLOOR) };
}

/** How the vocabulary travels to worker threads: a reference by its spec, counts as text. */
function vocabularyForWorkers(vocabulary: WordFrequencies | undefined): Pick<PairTaskOptions, 'vocabulary' | 'referenceVocabulary'> {
  if (vocabulary === undefined) return {};
  if (vocabulary instanceof ReferenceVocabulary) return { referenceVocabulary: { ...vocabulary.spec } };
  if (vocabulary instanceof WordCounts) return { vocabulary: vocabulary.toFrequencyText() };
  throw new Error('buildStages: worker threads take a WordCounts or a ReferenceVocabulary as the vocabulary');
}

/** The preset's stages, in order. */
export function buildStages(
  preset: PipelinePreset,
  options: StageBuildOptions = {},
): { stages: PairStage[]; datasetStages: DatasetStage[]; pooled?: PooledStages; close(): Promise<void> } {
  const wanted = (name: StageName) => !options.only || options.only.includes(name);
  const stages: PairStage[] = [];
  let pool: WorkerPool<{ caption: string; tags?: string[] }, PooledResult> | undefined;
  let pooled: PooledStages | undefined;
  if ((options.workers ?? 0) > 0 && (wanted('text') || wanted('image-text'))) {
    const taskOptions: PairTaskOptions = {
      text: wanted('text') ? { ...textOptionsFor(preset, options) } : null,
      ...vocabularyForWorkers(options.vocabulary),
      imageText: wanted('image-text'),
    };
    const modulePath = path.join(__dirname, `text-task${path.extname(__filename)}`);
    const workerPool = new WorkerPool<{ caption: string; tags?: string[] }, PooledResult>(modulePath, 'pairTask', taskOptions, options.workers);
    pool = workerPool;
    pooled = {
      names: (['text', 'image-text'] as const).filter(wanted),
      run: (batch) => workerPool.run(batch),
      batchSize: 500,
      depth: 2 * workerPool.size,
    };
  }
  if (wanted('text') && !pooled) {
    const text = new TextFilter(textOptionsFor(preset, options), options.vocabulary);
    stages.push({ name: 'text', check: (pair) => text.check(pair.caption) });
  }
  if (wanted('image-text') && !pooled) stages.push({ name: 'image-text', check: (pair) => checkImageText(pair.caption, pair.tags) });
  if (wanted('image')) {
    const image = new ImageFilter({ nsfw: options.nsfw ?? preset.image.nsfw }, preset.image);
    stages.push({ name: 'image', needsImage: true, check: (pair) => image.verdict(pair), sizesJudged: () => image.stats().sizesJudged });
  }
  if (wanted('transform')) {
    if (preset.transform === 'hypernymise') {
      const transform = new Cc3mTransform({ catalog: options.catalog, hypernymRule: options.hypernymRule ?? preset.hypernymRule });
      stages.push({ name: 'transform', check: (pair) => transform.check(pair) });
    } else stages.push({ name: 'transform', check: (pair) => keep(replacePersons(pair.caption)) });
  }
  const datasetStages: DatasetStage[] = [];
  if (wanted('prune') && preset.conceptPruning) datasetStages.push(new ConceptPruner(preset.conceptPruning));
  return { stages, datasetStages, pooled, close: async () => pool?.close() };
}
