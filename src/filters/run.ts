/**
 * One call that runs a paper's pipeline over a TSV or shard folder: vocabulary pass (for the
 * rare-word rule), stages from the preset, pooled workers, the funnel and output files.
 * The CLI (`cckit filter`) and the experiments both use it.
 */
import * as fs from 'fs';
import * as path from 'path';

import { readTsv, TsvLayout } from '../data/tsv';
import { readSamples } from '../data/webdataset';
import type { Progress } from '../util/progress';
import { loadTagsFile, tagsFileBeside } from '../data/tags';
import { PipelineResult, countInputItems, runPipeline } from './pipeline';
import { mergeFilterShards } from './shards';
import { shardFolder, sliceRange, type ShardSpec } from '../util/shard';
import { detectTsvLayout } from '../data/tsv';
import type { ImageSourceOptions } from '../data/images';
import { PRESETS, STAGE_NAMES, StageName, buildStages, textOptionsFor } from './presets';
import { WordCounts, WordFrequencies } from './text';
import { ReferenceVocabulary } from './reference-vocabulary';
import type { ConceptCatalog } from '../wordnet/catalog';
import type { HypernymRule } from './hypernyms';
import { writeFileAtomic } from '../util/atomic';
import { startFilterOutput } from './outputs';

export type PresetName = keyof typeof PRESETS;

export interface FilterPoolOptions {
  preset: PresetName;
  input: string;
  out: string;
  layout?: TsvLayout | 'auto';
  /** Only these stages (default: all of the preset's). */
  stages?: StageName[];
  /** Tags file (JSONL with url + tags); default: truth.jsonl beside the input when present. */
  tags?: string;
  /** Pornography detector (slow on CPU: ~60 ms per image). */
  nsfw: boolean;
  workers?: number;
  /** The CC3M hypernymiser's concept catalog (default: WordNet; the world's callers pass src/world/catalog.ts worldCatalog()). */
  catalog?: ConceptCatalog;
  /** The CC3M hypernymiser's rule (default: the preset's, 'entities'; src/filters/hypernyms.ts). */
  hypernymRule?: HypernymRule;
  /**
   * The rare-word check's vocabulary (docs/filters.md): 'reference' (default: English Wikipedia's word list +
   * SUBTLEX-US + WordNet, the papers' thresholds), 'input' (the input's own counts, threshold scaled to its size: the embedded
   * world's choice) or a `token<TAB>count` file (thresholds as stated).
   */
  vocabulary?: VocabularyChoice;
  /** Run only shard i of N: a contiguous slice of the input, into OUT/.shards/i-of-N (src/filters/shards.ts). */
  shard?: ShardSpec;
  /** Merge N done shards into OUT instead of filtering (runs the dataset-wide stages). */
  mergeShards?: number;
  concurrency?: number;
  progress?: Progress;
  /** Image fetching options (`allowPrivate`, `ignoreRobotsTag`, `contact`, …); relative paths resolve against the input's folder. */
  fetch?: Partial<ImageSourceOptions>;
  /** Shard members larger than this are skipped unread and their sample rejected (default 20 MiB). */
  maxMemberBytes?: number;
}

export type VocabularyChoice = 'reference' | 'input' | { file: string };

/** Which vocabulary a run's rare-word check used (also in OUT/vocabulary.json). */
export interface VocabularyUsed {
  kind: 'reference' | 'input' | 'file';
  /** The reference's source, the input path, or the frequency file. */
  source: string;
  /** The threshold applied (the paper's, or scaled to the input's size for 'input'). */
  threshold: number;
  /** The paper's threshold for this preset. */
  paperThreshold: number;
}

export interface FilterPoolResult extends PipelineResult {
  tagsFile?: string;
  /** Rare-word threshold used (scaled from the paper's for 'input'), null when the preset has none. */
  rareWords: number | null;
  /** Captions counted for the 'input' vocabulary (0 for the other kinds). */
  vocabularyPairs: number;
  /** The vocabulary of the rare-word check, null when the check did not run. */
  vocabulary: VocabularyUsed | null;
}

async function* captionsOf(source: string, layout: TsvLayout | 'auto'): AsyncGenerator<string> {
  if (fs.statSync(source).isDirectory()) {
    for await (const sample of readSamples(source)) yield sample.caption;
    return;
  }
  for await (const row of readTsv(source, { malformed: 'reject', layout })) if ('caption' in row) yield row.caption;
}

export async function filterPool(options: FilterPoolOptions): Promise<FilterPoolResult> {
  const preset = PRESETS[options.preset];
  if (!preset) throw new Error(`filter: "${String(options.preset)}" is not cc3m or cc12m`);
  if (!fs.existsSync(options.input)) throw new Error(`filter: ${options.input}: no such file`);
  const layout = options.layout ?? 'auto';
  const only = options.stages;
  for (const stage of only ?? [])
    if (!(STAGE_NAMES as readonly string[]).includes(stage)) throw new Error(`filter: unknown stage "${stage}" (${STAGE_NAMES.join(', ')})`);
  const tagsFile = options.tags ?? tagsFileBeside(options.input);
  const needsVocabulary = (!only || only.includes('text')) && preset.text.minWordFrequency !== null;
  const choice = options.vocabulary ?? 'reference';
  let vocabularyPairs = 0;
  const counted = async function* () {
    for await (const caption of captionsOf(options.input, layout)) {
      vocabularyPairs++;
      yield caption;
    }
  };
  let vocabulary: WordFrequencies | undefined;
  if (needsVocabulary) {
    if (choice === 'input') vocabulary = await WordCounts.fromCaptionsAsync(counted());
    else if (choice === 'reference') vocabulary = new ReferenceVocabulary();
    else if (typeof choice === 'object' && typeof choice.file === 'string') vocabulary = WordCounts.fromFile(choice.file);
    else throw new Error(`filter: vocabulary must be 'reference', 'input' or {file}, got ${JSON.stringify(choice)}`);
  }
  const buildOptions = {
    vocabulary,
    ...(choice === 'input' ? { vocabularyPairs } : { scaleRareWords: false }),
    only,
    nsfw: options.nsfw,
    workers: options.workers,
    catalog: options.catalog,
    hypernymRule: options.hypernymRule,
  };
  const { stages, datasetStages, pooled, close } = buildStages(preset, buildOptions);
  const resolvedLayout: TsvLayout = fs.statSync(options.input).isDirectory()
    ? 'url-caption'
    : layout === 'auto'
      ? await detectTsvLayout(options.input)
      : layout;
  if (options.shard && options.mergeShards !== undefined) throw new Error('filter: give a shard to run or shards to merge, not both');
  const rareWords = textOptionsFor(preset, buildOptions).minWordFrequency;
  const used: VocabularyUsed | null =
    needsVocabulary && rareWords !== null
      ? {
          kind: typeof choice === 'object' ? 'file' : choice,
          source: choice === 'reference' ? (vocabulary as ReferenceVocabulary).spec.source : choice === 'input' ? options.input : choice.file,
          threshold: rareWords,
          paperThreshold: preset.text.minWordFrequency!,
        }
      : null;
  const out = options.shard ? shardFolder(options.out, options.shard) : options.out;
  // no done-marker while this run writes (outputs.ts); the pipeline's summary.json comes last
  startFilterOutput(out);
  if (!used) fs.rmSync(path.join(out, 'vocabulary.json'), { force: true });
  else {
    writeFileAtomic(path.join(out, 'vocabulary.json'), JSON.stringify({ ...used, vocabularyPairs }, null, 2) + '\n');
  }
  try {
    if (options.mergeShards !== undefined) {
      const merged = await mergeFilterShards({
        out,
        count: options.mergeShards,
        layout: resolvedLayout,
        datasetStages,
        label: preset.name,
        input: options.input,
      });
      return { ...merged, tagsFile, rareWords: needsVocabulary ? rareWords : null, vocabularyPairs, vocabulary: used };
    }
    const range = options.shard ? sliceRange(options.shard, await countInputItems(options.input, resolvedLayout)) : undefined;
    const result = await runPipeline({
      input: options.input,
      out,
      range,
      deferDatasetStages: options.shard !== undefined && datasetStages.length > 0,
      layout,
      stages,
      datasetStages,
      pooled,
      tags: tagsFile ? loadTagsFile(tagsFile) : undefined,
      concurrency: options.concurrency,
      fetch: options.fetch,
      progress: options.progress,
      label: preset.name,
      ...(options.maxMemberBytes !== undefined ? { maxMemberBytes: options.maxMemberBytes } : {}),
    });
    return { ...result, tagsFile, rareWords: needsVocabulary ? rareWords : null, vocabularyPairs, vocabulary: used };
  } finally {
    await close();
  }
}
