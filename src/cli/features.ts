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
import { trainedBackbone } from '../train/world-cnn';
import { sourceSlice } from '../vision/sources';
import type { ImageRef } from '../vision/features';
import { PRETRAIN_RECIPES, type PretrainRecipe } from '../vision/world-cnn';
import { maxMemberBytesOption, parseChoice, parseMaxMemberBytes, parseWholeNumber } from './options';
import { addFetchOptions, fetchFlags } from './filter';
import { ImageSource } from '../data/images';
import type { UnreadableShard } from '../data/webdataset';
import { createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { FeatureStore } from '../vision/cache';
import { writeFileAtomic } from '../util/atomic';
import { readJsonFile } from '../util/json';
import { missingShards, shardFolder, sliceRange } from '../util/shard';
import { quoteInput } from '../util/untrusted-text';
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
  /** Shard folders: largest member read; default 20 MiB. */
  maxMemberBytes?: string;
}

/** Where a sharded features run keeps its plan and done-markers: one folder per source and settings. */
export function featuresJobDir(flags: FeaturesFlags): string {
  const id = createHash('sha256')
    .update(JSON.stringify([path.resolve(flags.in), flags.backbone, flags.regions, flags.seed, flags.limit ?? null, flags.recipe]))
    .digest('hex')
    .slice(0, 12);
  return path.join(flags.out, 'jobs', `features-${id}`);
}

/** A features shard's done-marker. */
interface ShardSummary {
  range?: { start: number; end: number };
  read?: number;
  computed: number;
  cached: number;
  failed: { key: string; reason: string }[];
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
  const maxMemberBytes = parseMaxMemberBytes(flags.maxMemberBytes);
  // a damaged tar of a shard folder: reported as one failure and skipped, the rest of the folder is read
  const unreadable: { key: string; reason: string; skipped: number }[] = [];
  const onUnreadableShard = (shard: UnreadableShard) =>
    unreadable.push({
      key: path.basename(shard.source),
      reason: `shard:unreadable: ${shard.reason} (${shard.read} samples read before)`,
      skipped: shard.skipped ?? 0,
    });
  const images = await sourceSlice(flags.in, {
    seed,
    limit,
    tagsFile: flags.tags,
    imagesDir: flags.images,
    shard: sharding.shard,
    maxMemberBytes,
    onUnreadableShard,
  });
  const backend = await initBackend();
  const progress = terminalProgress();
  const started = Date.now();
  try {
    const backbone = await trainedBackbone(flags.backbone, {
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
    // a list's image paths name files beside it (or in the --images folder the user gave): the only local files read
    const baseDir = flags.images
      ? path.resolve(flags.images)
      : fs.existsSync(flags.in) && fs.statSync(flags.in).isFile()
        ? path.dirname(path.resolve(flags.in))
        : undefined;
    const source = new ImageSource({ ...fetchFlags(flags), baseDir });
    // the shard contract (docs/scale.md): shard i takes a contiguous slice of the source (sourceSlice); the
    // store takes appends from several processes (locked), so the merge only checks that every shard is done
    // and that together they read the whole source
    if (sharding.mergeShards !== undefined) {
      const count = sharding.mergeShards;
      const missing = missingShards(jobDir, count);
      if (missing.length > 0) throw new Error(`merge: ${missing.length} of ${count} features shards are not done (${missing.join(', ')}) in ${jobDir}`);
      const shards = Array.from(
        { length: count },
        (_, index) => readJsonFile(path.join(shardFolder(jobDir, { index, count }), 'summary.json')) as ShardSummary,
      );
      shards.forEach((shard, index) => {
        const expected = sliceRange({ index, count }, images.total);
        if (shard.range?.start !== expected.start || shard.range?.end !== expected.end || shard.read !== expected.end - expected.start)
          throw new Error(
            `merge: features shard ${index} of ${count} read ${shard.read} images of ${JSON.stringify(shard.range)}, not ${expected.start}–${expected.end} of ${images.total} (did the source change?)`,
          );
      });
      const failedKeys = new Set(shards.flatMap((shard) => shard.failed.map((f) => f.key)));
      const store = FeatureStore.open(backbone, { cacheDir: flags.out, variant: regions });
      // a listed source's keys are cheap to hold: check each; a folder's would need another pass over its images
      if (images.unit === 'image') {
        // without a shard the slice is the whole source: its refs are the distinct images, already listed
        const absent: ImageRef[] = [];
        for await (const ref of images.refs) if (!store.has(ref.key) && !failedKeys.has(ref.key)) absent.push(ref);
        if (absent.length > 0) throw new Error(`merge: ${absent.length} images have neither features nor a failure (first: ${absent[0].key})`);
      }
      const summary = {
        [images.unit === 'image' ? 'images' : 'samples']: images.total,
        computed: shards.reduce((n, shard) => n + shard.computed, 0),
        cached: shards.reduce((n, shard) => n + shard.cached, 0),
        failed: failedKeys.size,
        store: store.dir,
        storeSize: store.size,
        shards: count,
      };
      writeFileAtomic(path.join(jobDir, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
      console.log(
        `merged ${count} features shards: ${images.total} ${images.unit}s, ${summary.computed} computed, ${summary.cached} already cached, ${summary.failed} failed; ${store.size} images in ${store.dir}`,
      );
      backbone.dispose();
      return;
    }
    const range = sharding.shard ? images.range : undefined;
    const result = await extractFeatures(images.refs, {
      backbone,
      cacheDir: flags.out,
      batchSize,
      regions,
      progress,
      source,
      total: images.range.end - images.range.start,
    });
    result.failed.push(...unreadable.map(({ key, reason }) => ({ key, reason })));
    // positions a damaged tar's _stats.json counts but that were never read still belong to this range's count
    result.read += unreadable.reduce((n, u) => n + u.skipped, 0);
    if (sharding.shard) {
      const marker = shardFolder(jobDir, sharding.shard);
      fs.mkdirSync(marker, { recursive: true });
      const summary: ShardSummary = {
        range: images.range,
        read: result.read,
        computed: result.computed,
        cached: result.cached,
        failed: result.failed.map((f) => ({ key: f.key, reason: f.reason })),
      };
      writeFileAtomic(path.join(marker, 'summary.json'), JSON.stringify(summary, null, 2) + '\n');
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
            String(result.read) +
              (range ? ` (shard ${sharding.shard!.index}/${sharding.shard!.count}: ${images.unit}s ${range.start}–${range.end - 1} of ${images.total})` : ''),
          ],
          ['computed', `${result.computed} (${seconds > 0 ? (result.computed / seconds).toFixed(1) : '—'} images/s)`],
          ['already cached', String(result.cached)],
          // read twice, or the same bytes under another name: featurised once (the store keys by content)
          ['repeats', String(result.read - result.computed - result.cached - result.failed.length)],
          ['failed', String(result.failed.length)],
          ['store', result.store.dir],
        ],
      ),
    );
    for (const f of result.failed.slice(0, 10)) console.log(`failed: ${quoteInput(f.key, 120)}: ${quoteInput(f.reason)}`);
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
    .addOption(maxMemberBytesOption())
    .action(runFeatures);
}
