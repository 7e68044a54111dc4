import * as fs from 'fs';
import * as path from 'path';
import { readTsv, TsvLayout } from '../data/tsv';
import { readSamples } from '../data/webdataset';
import { overlap } from '../filters/overlap';
import { loadTagsFile, runPipeline } from '../filters/pipeline';
import { PRESETS, STAGE_NAMES, StageName, buildStages, textOptionsFor } from '../filters/presets';
import { Vocabulary } from '../filters/text';
import { terminalProgress } from '../report/progress';
import { formatTable } from '../report/table';
import { parseWholeNumber } from './world';

export interface FilterFlags {
  preset: string;
  in: string;
  out: string;
  stages?: string;
  tags?: string;
  nsfw: boolean;
  concurrency: string;
  layout: string;
  workers: string;
}

async function* captionsOf(source: string, layout: TsvLayout | 'auto'): AsyncGenerator<string> {
  if (fs.statSync(source).isDirectory()) {
    for await (const sample of readSamples(source)) yield sample.caption;
    return;
  }
  for await (const row of readTsv(source, { malformed: 'reject', layout })) if ('caption' in row) yield row.caption;
}

export async function runFilter(flags: FilterFlags): Promise<void> {
  const preset = PRESETS[flags.preset as 'cc3m' | 'cc12m'];
  if (!preset) throw new Error(`--preset: "${flags.preset}" is not cc3m or cc12m`);
  if (!fs.existsSync(flags.in)) throw new Error(`--in: ${flags.in}: no such file`);
  if (!['auto', 'caption-url', 'url-caption'].includes(flags.layout)) throw new Error(`--layout: "${flags.layout}" is not auto, caption-url or url-caption`);
  const layout = flags.layout as TsvLayout | 'auto';
  const only = flags.stages?.split(',').map((s) => s.trim()) as StageName[] | undefined;
  for (const stage of only ?? []) if (!(STAGE_NAMES as readonly string[]).includes(stage)) throw new Error(`--stages: unknown stage "${stage}" (${STAGE_NAMES.join(', ')})`);
  // the world writes vision tags beside its TSVs; real data passes --tags
  const besideInput = path.join(path.dirname(flags.in), 'truth.jsonl');
  const tagsFile = flags.tags ?? (fs.existsSync(besideInput) ? besideInput : undefined);
  const needsVocabulary = (!only || only.includes('text')) && preset.text.minWordFrequency !== null;
  const started = Date.now();
  let vocabularyPairs = 0;
  const counted = async function* () {
    for await (const caption of captionsOf(flags.in, layout)) {
      vocabularyPairs++;
      yield caption;
    }
  };
  const vocabulary = needsVocabulary ? await Vocabulary.fromCaptionsAsync(counted()) : undefined;
  const workers = parseWholeNumber('--workers', flags.workers);
  const buildOptions = { vocabulary, vocabularyPairs, only, nsfw: flags.nsfw, workers };
  const { stages, datasetStages, pooled, close } = buildStages(preset, buildOptions);
  const rareWords = textOptionsFor(preset, buildOptions).minWordFrequency;
  const progress = terminalProgress();
  try {
    const result = await runPipeline({
      input: flags.in,
      out: flags.out,
      layout,
      stages,
      datasetStages,
      pooled,
      tags: tagsFile ? loadTagsFile(tagsFile) : undefined,
      concurrency: parseWholeNumber('--concurrency', flags.concurrency),
      progress,
      label: preset.name,
    });
    progress.stop();
    const rows = result.funnel.rows().filter((s) => s.in > 0 || s.stage !== 'read');
    console.log(`${preset.name} pipeline over ${flags.in}${tagsFile ? ` (tags: ${tagsFile})` : ''}${flags.nsfw ? '' : ' (pornography detector off)'}`);
    if (rareWords !== null && needsVocabulary) console.log(`rare-word threshold ${rareWords} (paper: ${preset.text.minWordFrequency} at ${preset.rareWordsAtPairs.toLocaleString('en')} pairs, scaled to ${vocabularyPairs.toLocaleString('en')})`);
    console.log(
      formatTable(
        ['stage', 'in', 'out', 'kept %', 'top rejection reasons'],
        rows.map((s) => [
          s.stage,
          String(s.in),
          String(s.out),
          s.in === 0 ? '—' : ((100 * s.out) / s.in).toFixed(1),
          Object.entries(s.rejected).sort((a, b) => b[1] - a[1]).slice(0, 3).map(([r, n]) => `${r} ${n}`).join(', '),
        ]),
      ),
    );
    console.log(`\n${result.input} rows: ${result.kept} kept, ${result.funnel.rejectedTotal} rejected (${((Date.now() - started) / 1000).toFixed(1)} s); files in ${flags.out}`);
  } finally {
    progress.stop();
    await close();
  }
}

export async function runOverlap(a: string, b: string, flags: { out?: string }): Promise<void> {
  const report = await overlap(a, b, flags.out);
  console.log(JSON.stringify(report, null, 2));
}
