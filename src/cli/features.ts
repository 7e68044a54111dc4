/**
 * `cckit features`: computes the frozen visual features of a source's images once and caches
 * them on disk (src/vision). Add to the program with `program.addCommand(featuresCommand())`.
 */
import { Command, Option } from 'commander';
import { initBackend } from '../tf/backend';
import { terminalProgress } from '../util/progress';
import { formatTable } from '../report/table';
import { BACKBONE_NAMES, isBackboneName } from '../vision/backbone';
import { extractFeatures } from '../vision/cache';
import { loadBackbone } from '../vision/index';
import { readImageSource } from '../vision/sources';
import { PRETRAIN_RECIPES, type PretrainRecipe } from '../vision/world-cnn';
import { parseChoice, parseWholeNumber } from './options';
import { addFetchOptions, fetchFlags } from './filter';
import { ImageSource } from '../data/images';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { FeatureStore } from '../vision/cache';
import { writeFileAtomic } from '../util/atomic';
import { readJsonFile } from '../util/json';
import { missingShards, shardFolder, sliceRange } from '../util/shard';
import { ShardFlags, addShardOptions, runOnEngine, shardOptions } from './scale';

export interface FeaturesFlags {
  in: string;
  backbone: string;
  out: string;
  seed: string;
  limit?: string;
  batchSize: string;
  regions: string;
  tags?: string;
  images?: string;
  recipe: string;
  pretrainSteps?: string;
  pretrainImages?: string;
  allowPrivate?: boolean;
  ignoreRobotsTag?: boolean;
  contact?: string;
}

/** Where a sharded features run keeps its plan and done-markers: one folder per source and settings. */
export function featuresJobDir(flags: FeaturesFlags): string {
  const id = createHash('sha256')
    .update(JSON.stringify([path.resolve(flags.in), flags.backbone, flags.regions, flags.seed, flags.limit ?? null, flags.recipe]))
    .digest('hex')
    .slice(0, 12);
  return path.join(flags.out, 'jobs', `features-${id}`);
}

export async function runFeatures(flags: FeaturesFlags & ShardFlags, command?: Command): Promise<void> {
  const jobDir = featuresJobDir(flags);
  if (command && (await runOnEngine({ ...flags, out: jobDir }, command))) return;
  const sharding = shardOptions(flags);
  if (!isBackboneName(flags.backbone)) throw new Error(`--backbone: "${flags.backbone}" is not ${BACKBONE_NAMES.join(' or ')}`);
  const regions = parseChoice('--regions', flags.regions, ['boxes', 'tiles'] as const);
  parseChoice('--recipe', flags.recipe, Object.keys(PRETRAIN_RECIPES));
  const seed = parseWholeNumber('--seed', flags.seed);
  const batchSize = parseWholeNumber('--batch-size', flags.batchSize, 1);
  const limit = flags.limit === undefined ? undefined : parseWholeNumber('--limit', flags.limit);
  const images = await readImageSource(flags.in, { seed, limit, tagsFile: flags.tags, imagesDir: flags.images });
  const backend = await initBackend();
  const progress = terminalProgress();
  const started = Date.now();
  try {
    const backbone = await loadBackbone(flags.backbone, {
      worldCnn: {
        cacheDir: flags.out,
        recipe: flags.recipe as PretrainRecipe,
        pretrain: {
          worldSeed: seed,
          ...(flags.pretrainSteps === undefined ? {} : { steps: parseWholeNumber('--pretrain-steps', flags.pretrainSteps) }),
          ...(flags.pretrainImages === undefined ? {} : { images: parseWholeNumber('--pretrain-images', flags.pretrainImages) }),
        },
        progress,
        log: (line) => process.stderr.write(line + '\n'),
      },
    });
    const loaded = Date.now();
    // a TSV's relative image paths name files beside it
    const baseDir = fs.existsSync(flags.in) && fs.statSync(flags.in).isFile() ? path.dirname(path.resolve(flags.in)) : undefined;
    const source = new ImageSource({ ...fetchFlags(flags), baseDir });
    // the shard contract (docs/scale.md): shard i takes a contiguous slice of the distinct images; the
    // store takes appends from several processes (locked), so the merge only checks that all are there
    const distinct = [...new Map(images.map((ref) => [ref.key, ref])).values()];
    if (sharding.mergeShards !== undefined) {
      const missing = missingShards(jobDir, sharding.mergeShards);
      if (missing.length > 0)
        throw new Error(`merge: ${missing.length} of ${sharding.mergeShards} features shards are not done (${missing.join(', ')}) in ${jobDir}`);
      const failedKeys = new Set<string>();
      for (let index = 0; index < sharding.mergeShards; index++)
        for (const f of (readJsonFile(path.join(shardFolder(jobDir, { index, count: sharding.mergeShards }), 'summary.json')) as { failed: { key: string }[] })
          .failed)
          failedKeys.add(f.key);
      const store = FeatureStore.open(backbone, { cacheDir: flags.out, variant: regions });
      const absent = distinct.filter((ref) => !store.has(ref.key) && !failedKeys.has(ref.key));
      if (absent.length > 0) throw new Error(`merge: ${absent.length} images have neither features nor a failure (first: ${absent[0].key})`);
      const summary = {
        images: distinct.length,
        stored: distinct.length - failedKeys.size,
        failed: failedKeys.size,
        store: store.dir,
        shards: sharding.mergeShards,
      };
      writeFileAtomic(path.join(jobDir, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
      console.log(`merged ${sharding.mergeShards} features shards: ${summary.stored} of ${summary.images} images in ${store.dir}, ${summary.failed} failed`);
      backbone.dispose();
      return;
    }
    const range = sharding.shard ? sliceRange(sharding.shard, distinct.length) : undefined;
    const slice = range ? distinct.slice(range.start, range.end) : images;
    const result = await extractFeatures(slice, { backbone, cacheDir: flags.out, batchSize, regions, progress, source });
    if (sharding.shard) {
      const marker = shardFolder(jobDir, sharding.shard);
      fs.mkdirSync(marker, { recursive: true });
      writeFileAtomic(
        path.join(marker, 'summary.json'),
        JSON.stringify(
          { range, computed: result.computed, cached: result.cached, failed: result.failed.map((f) => ({ key: f.key, reason: f.reason })) },
          null,
          2,
        ) + '\n',
      );
    }
    progress.stop();
    const seconds = (Date.now() - loaded) / 1000;
    console.log(
      formatTable(
        ['features', ''],
        [
          ['source', flags.in],
          ['backbone', `${backbone.id} (D=${backbone.featureDim}, ${backbone.inputSize} px, tfjs ${backend.name})`],
          [
            'images',
            String(slice.length) +
              (range ? ` (shard ${sharding.shard!.index}/${sharding.shard!.count}: ${range.start}–${range.end - 1} of ${distinct.length})` : ''),
          ],
          ['computed', `${result.computed} (${seconds > 0 ? (result.computed / seconds).toFixed(1) : '—'} images/s)`],
          ['already cached', String(result.cached)],
          ['failed', String(result.failed.length)],
          ['store', result.store.dir],
        ],
      ),
    );
    for (const f of result.failed.slice(0, 10)) console.log(`failed: ${f.key}: ${f.reason}`);
    console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s)`);
    backbone.dispose();
  } finally {
    progress.stop();
  }
}

export function featuresCommand(): Command {
  return addShardOptions(addFetchOptions(new Command('features')))
    .description("compute and cache frozen visual features (global, 8×8 grid, regions, tags) of a source's images")
    .requiredOption('-i, --in <source>', 'TSV, shard folder, COCO/nocaps annotation JSON, or a world split: world:PRESET:SPLIT (e.g. world:tiny:coco-train)')
    .addOption(
      new Option('-b, --backbone <name>', 'world-cnn (pre-trained on the world, cached) or mobilenet (NSFWJS MobileNetV2, bundled)').default('world-cnn'),
    )
    .option('-o, --out <dir>', 'cache folder: features go to DIR/features/<backbone id>/, world-cnn weights to DIR/backbones/', '.cckit-cache')
    .option('-s, --seed <n>', 'world seed (world: sources, and the world-cnn pre-training images)', '0')
    .option('--limit <n>', 'at most this many images')
    .option('--batch-size <n>', 'images per backbone call', '32')
    .option('--regions <policy>', 'images without boxes: boxes (no regions) or tiles (the nine 3×3 tiles)', 'boxes')
    .option('--tags <file>', 'TSV sources: vision tags as JSON lines {url, tags} (default: truth.jsonl beside the TSV)')
    .option('--images <dir>', 'COCO sources not built by cckit: folder the file_names are relative to')
    .option(
      '--recipe <name>',
      `world-cnn pre-training recipe: quick (${PRETRAIN_RECIPES.quick.steps} steps, ~75 s once) or standard (${PRETRAIN_RECIPES.standard.steps} steps, ~6 min once, better features)`,
      'quick',
    )
    .option('--pretrain-steps <n>', "world-cnn: override the recipe's pre-training steps (batch 32)")
    .option('--pretrain-images <n>', "world-cnn: override the recipe's pre-training images")
    .action(runFeatures);
}
