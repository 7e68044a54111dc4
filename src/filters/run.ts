/**
 * One call that runs a paper's pipeline over a TSV or shard folder: vocabulary pass (for the
 * rare-word rule), stages from the preset, pooled workers, the funnel and output files.
 * The CLI (`cckit filter`) and the experiments both use it.
 */
import * as fs from 'fs';

import { readTsv, TsvLayout } from '../data/tsv';
import { readSamples } from '../data/webdataset';
import type { Progress } from '../util/progress';
import { loadTagsFile, tagsFileBeside } from '../data/tags';
import { PipelineResult, runPipeline } from './pipeline';
import type { ImageSourceOptions } from '../data/images';
import { PRESETS, STAGE_NAMES, StageName, buildStages, textOptionsFor } from './presets';
import { WordCounts } from './text';
import type { ConceptCatalog } from '../wordnet/catalog';

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
  concurrency?: number;
  progress?: Progress;
  /** Image fetching options (`allowPrivate`, `ignoreRobotsTag`, `contact`, …); relative paths resolve against the input's folder. */
  fetch?: Partial<ImageSourceOptions>;
}

export interface FilterPoolResult extends PipelineResult {
  tagsFile?: string;
  /** Rare-word threshold used (scaled from the paper's), null when the preset has none. */
  rareWords: number | null;
  vocabularyPairs: number;
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
  let vocabularyPairs = 0;
  const counted = async function* () {
    for await (const caption of captionsOf(options.input, layout)) {
      vocabularyPairs++;
      yield caption;
    }
  };
  const vocabulary = needsVocabulary ? await WordCounts.fromCaptionsAsync(counted()) : undefined;
  const buildOptions = { vocabulary, vocabularyPairs, only, nsfw: options.nsfw, workers: options.workers, catalog: options.catalog };
  const { stages, datasetStages, pooled, close } = buildStages(preset, buildOptions);
  const rareWords = textOptionsFor(preset, buildOptions).minWordFrequency;
  try {
    const result = await runPipeline({
      input: options.input,
      out: options.out,
      layout,
      stages,
      datasetStages,
      pooled,
      tags: tagsFile ? loadTagsFile(tagsFile) : undefined,
      concurrency: options.concurrency,
      fetch: options.fetch,
      progress: options.progress,
      label: preset.name,
    });
    return { ...result, tagsFile, rareWords: needsVocabulary ? rareWords : null, vocabularyPairs };
  } finally {
    await close();
  }
}
