import { HYPERNYM_RULES, type HypernymRule } from '../filters/hypernyms';
import * as fs from 'fs';
import { quoteInput } from '../util/untrusted-text';
import type { Command } from 'commander';
import type { ImageSourceOptions } from '../data/images';
import type { TsvLayout } from '../data/tsv';
import { overlap } from '../filters/overlap';
import { formatAudit } from '../filters/audit';
import { PRESETS, STAGE_NAMES, StageName } from '../filters/presets';
import { PresetName, VocabularyChoice, filterPool } from '../filters/run';
import { terminalProgress } from '../util/progress';
import { isWorldData, worldCatalog } from '../world/catalog';
import { formatTable } from '../report/table';
import { parseChoice, parseMaxMemberBytes, parseWholeNumber } from './options';
import { ShardFlags, runOnEngine, shardOptions } from './scale';

export interface FilterFlags {
  maxMemberBytes?: string;
  preset: string;
  in: string;
  out: string;
  stages?: string;
  tags?: string;
  nsfw: boolean;
  concurrency: string;
  layout: string;
  workers: string;
  catalog: string;
  hypernyms: string;
  vocabulary: string;
  allowPrivate?: boolean;
  ignoreRobotsTag?: boolean;
  contact?: string;
}

/** The image-fetching flags every command that downloads shares (see addFetchOptions). */
export function fetchFlags(flags: {
  allowPrivate?: boolean;
  ignoreRobotsTag?: boolean;
  contact?: string;
  allowLocalFiles?: boolean;
}): Partial<ImageSourceOptions> {
  return {
    allowPrivate: flags.allowPrivate ?? false,
    ignoreRobotsTag: flags.ignoreRobotsTag ?? false,
    ...(flags.contact ? { contact: flags.contact } : {}),
    // a list's rows are untrusted: only files inside its folder, unless the user says the list is theirs
    localFiles: flags.allowLocalFiles ? 'any' : 'inside-list',
  };
}

/** Adds --allow-private, --ignore-robots-tag, --contact and --allow-local-files to a command that fetches images. */
export function addFetchOptions(command: Command): Command {
  return command
    .option(
      '--allow-local-files',
      "read rows that name any local path or file:// URL (a list you wrote yourself); by default only relative paths inside the list's folder are read (download: none)",
      false,
    )
    .option('--allow-private', 'also fetch from loopback, private and link-local addresses (a local test server); refused by default', false)
    .option('--ignore-robots-tag', 'download images whose X-Robots-Tag says noai / noimageai / noindex / noimageindex (skipped by default)', false)
    .option('--contact <email-or-url>', 'added to the User-Agent so site owners can reach you');
}

export async function runFilter(flags: FilterFlags & ShardFlags, command?: Command): Promise<void> {
  if (command && (await runOnEngine(flags, command))) return;
  const sharding = shardOptions(flags);
  parseChoice('--preset', flags.preset, Object.keys(PRESETS));
  parseChoice('--layout', flags.layout, ['auto', 'caption-url', 'url-caption']);
  const workers = parseWholeNumber('--workers', flags.workers);
  const concurrency = parseWholeNumber('--concurrency', flags.concurrency, 1);
  const only = flags.stages?.split(',').map((s) => s.trim()) as StageName[] | undefined;
  for (const stage of only ?? [])
    if (!(STAGE_NAMES as readonly string[]).includes(stage)) throw new Error(`--stages: unknown stage "${stage}" (${STAGE_NAMES.join(', ')})`);
  parseChoice('--catalog', flags.catalog, ['auto', 'world', 'wordnet']);
  if (!fs.existsSync(flags.in)) throw new Error(`--in: ${flags.in}: no such file`);
  const catalog = flags.catalog === 'world' || (flags.catalog === 'auto' && isWorldData(flags.in)) ? worldCatalog() : undefined;
  parseChoice('--hypernyms', flags.hypernyms, ['auto', ...HYPERNYM_RULES]);
  // auto: the world's data keeps the rule its pools were calibrated with (issue #26 moves it); real data the paper's
  const hypernymRule: HypernymRule = flags.hypernyms === 'auto' ? 'entities' : (flags.hypernyms as HypernymRule);
  const vocabulary = vocabularyChoice(flags.vocabulary, flags.in);
  const preset = PRESETS[flags.preset as PresetName];
  const started = Date.now();
  const progress = terminalProgress();
  try {
    const result = await filterPool({
      preset: preset.name,
      input: flags.in,
      out: flags.out,
      layout: flags.layout as TsvLayout | 'auto',
      stages: only,
      tags: flags.tags,
      nsfw: flags.nsfw,
      workers,
      catalog,
      hypernymRule,
      vocabulary,
      ...sharding,
      concurrency,
      fetch: fetchFlags(flags),
      maxMemberBytes: parseMaxMemberBytes(flags.maxMemberBytes),
      progress,
    });
    progress.stop();
    const rows = result.funnel.rows().filter((s) => s.in > 0 || s.stage !== 'read');
    console.log(
      `${preset.name} pipeline over ${flags.in}${result.tagsFile ? ` (tags: ${result.tagsFile})` : ''}${flags.nsfw ? '' : ' (pornography detector off)'}`,
    );
    if (preset.transform === 'hypernymise')
      console.log(
        `hypernymised: ${hypernymRule} (--hypernyms ${flags.hypernyms}); concept catalog: ${catalog?.name ?? 'wordnet'} (--catalog ${flags.catalog})`,
      );
    const used = result.vocabulary;
    if (used?.kind === 'input')
      console.log(
        `vocabulary: the input's own word counts (--vocabulary ${flags.vocabulary}); rare-word threshold ${used.threshold} (paper: ${used.paperThreshold} at ${preset.rareWordsAtPairs.toLocaleString('en')} pairs, scaled to ${result.vocabularyPairs.toLocaleString('en')})`,
      );
    else if (used) console.log(`vocabulary: ${used.source} (--vocabulary ${flags.vocabulary}); rare-word threshold ${used.threshold} as the paper states`);
    console.log(
      formatTable(
        ['stage', 'in', 'out', 'kept %', 'top rejection reasons'],
        rows.map((s) => [
          s.stage,
          String(s.in),
          String(s.out),
          s.in === 0 ? '—' : ((100 * s.out) / s.in).toFixed(1),
          Object.entries(s.rejected)
            .sort((a, b) => b[1] - a[1])
            .slice(0, 3)
            .map(([r, n]) => `${quoteInput(r, 80)} ${n}`)
            .join(', '),
        ]),
      ),
    );
    const sizes = result.imageSizesJudged;
    if (sizes && sizes.original + sizes.decoded > 0)
      console.log(
        `image sizes judged: ${sizes.original.toLocaleString('en')} original (from the shard's JSON), ${sizes.decoded.toLocaleString('en')} decoded (the image bytes' own size)`,
      );
    if (result.audit && result.files.audit) console.log(['', ...formatAudit(result.audit, result.files.audit)].join('\n'));
    console.log(
      `\n${result.input} rows: ${result.kept} kept, ${result.funnel.rejectedTotal} rejected (${((Date.now() - started) / 1000).toFixed(1)} s); files in ${flags.out}`,
    );
  } finally {
    progress.stop();
  }
}

/**
 * --vocabulary: 'auto' takes the input's own counts for the embedded world (its words are its own) and
 * the reference vocabulary for anything else; any other value than the three names is a frequency file.
 */
export function vocabularyChoice(flag: string, input: string): VocabularyChoice {
  if (flag === 'auto') return isWorldData(input) ? 'input' : 'reference';
  if (flag === 'input' || flag === 'reference') return flag;
  if (!fs.existsSync(flag)) throw new Error(`--vocabulary: "${flag}" is not auto, reference or input, and no such frequency file`);
  return { file: flag };
}

export async function runOverlap(a: string, b: string, flags: { out?: string }): Promise<void> {
  const report = await overlap(a, b, flags.out);
  console.log(JSON.stringify(report, null, 2));
}
