/** `cckit train`, `cckit caption`, `cckit table3`: thin wrappers over src/train, src/experiments. */
import * as fs from 'fs';
import * as path from 'path';

import { writeCocoResults, writeNocapsSubmission } from '../data/coco';
import { DECODE_PRESETS, decodePreset } from '../decode';
import { decodeSplit, scoreSplit } from '../experiments/evaluate';
import { RECIPES } from '../experiments/recipe';
import { runTable3 } from '../experiments/cc12m/table3';
import { formatTable3 } from '../experiments/cc12m/table3-report';
import { FeatureSpec, visualFromSpec } from '../experiments/visual';
import { readJsonFile } from '../util/json';
import { terminalProgress } from '../util/progress';
import { readEvalImages } from '../train/data';
import { train } from '../train/trainer';
import { ImageSource, localFileRefusal } from '../data/images';
import { quoteInput } from '../util/untrusted-text';
import { validateTrainFile } from './config';
import { fetchFlags } from './filter';
import { parseChoice, parseJsonOption, parseWholeNumber } from './options';
import { ShardFlags, runOnEngine, shardOptions } from './scale';
import { missingShards, shardFolder, shardLabel, sliceRange } from '../util/shard';
import { writeFileAtomic } from '../util/atomic';
import type { Command } from 'commander';
import { startProfile } from './table';

export async function runTrain(flags: { config: string; runs: string; force: boolean }): Promise<void> {
  const config = validateTrainFile(readJsonFile(flags.config), flags.config);
  const { features, ...trainConfig } = config;
  const progress = terminalProgress();
  try {
    const run = await train(trainConfig, {
      runsRoot: flags.runs,
      visual: await visualFromSpec(features),
      force: flags.force,
      progress: (done, total) => progress('train', done, total),
      onLog: (line) => {
        if (line.val)
          process.stderr.write(
            `\nstep ${line.step}: ${Object.entries(line.val)
              .map(([k, v]) => `${k} ${v.toFixed(3)}`)
              .join(', ')}\n`,
          );
      },
    });
    progress.stop();
    console.log(`run ${run.id}: ${run.stepsRun} steps trained; ${run.dir}`);
  } finally {
    progress.stop();
  }
}

/** Where a sharded `cckit caption` keeps its plan, done-markers and the shards' captions: beside the predictions file. */
export function captionJobDir(out: string): string {
  return `${path.resolve(out)}.parts`;
}

export async function runCaption(
  flags: {
    ckpt: string;
    in: string;
    out: string;
    decode: string;
    format: string;
    limit?: string;
    features?: string;
    allowPrivate?: boolean;
    ignoreRobotsTag?: boolean;
    contact?: string;
    allowLocalFiles?: boolean;
  } & ShardFlags,
  command?: Command,
): Promise<void> {
  const jobDir = captionJobDir(flags.out);
  if (command && (await runOnEngine({ ...flags, out: jobDir }, command))) return;
  const sharding = shardOptions(flags);
  const format = parseChoice('--format', flags.format, ['coco', 'nocaps']);
  const limit = flags.limit === undefined ? undefined : parseWholeNumber('--limit', flags.limit, 1);
  const decode = decodePreset(parseChoice('--decode', flags.decode, Object.keys(DECODE_PRESETS)));
  const runDir = flags.ckpt.includes(`${path.sep}checkpoints${path.sep}`)
    ? flags.ckpt.slice(0, flags.ckpt.indexOf(`${path.sep}checkpoints${path.sep}`))
    : flags.ckpt;
  const runJson = path.join(runDir, 'run.json');
  if (!fs.existsSync(runJson)) throw new Error(`--ckpt: ${flags.ckpt} is not a run directory (no run.json)`);
  const spec = flags.features ? (parseJsonOption('--features', flags.features) as FeatureSpec) : featuresOfRun(runJson);
  const images = allowedEvalImages(readEvalImages({ path: flags.in, limit }), flags.in, flags.allowLocalFiles === true);
  // a checkpoint's captions and scores are named after it (nocaps_val.step-0000025), beside the latest's, not over them
  const split = path.basename(flags.in, '.json').replace(/[^\w.-]/g, '_') + (runDir !== flags.ckpt ? `.${path.basename(flags.ckpt)}` : '');
  const progress = terminalProgress();
  try {
    let captions: Map<string, string>;
    if (sharding.mergeShards !== undefined) {
      // the shards' captions, in image order: the same scores and files as one process
      const count = sharding.mergeShards;
      const missing = missingShards(jobDir, count);
      if (missing.length > 0) throw new Error(`merge: ${missing.length} of ${count} caption shards are not done (${missing.join(', ')}) in ${jobDir}`);
      captions = new Map();
      for (let index = 0; index < count; index++) {
        const file = path.join(shardFolder(jobDir, { index, count }), 'captions.json');
        for (const [id, caption] of Object.entries(readJsonFile(file) as Record<string, string>)) captions.set(id, caption);
      }
      const absent = images.filter((img) => !captions.has(String(img.imageId)));
      if (absent.length > 0) throw new Error(`merge: ${absent.length} images of ${flags.in} have no caption in the shards (first: ${absent[0].imageId})`);
    } else {
      const range = sharding.shard ? sliceRange(sharding.shard, images.length) : undefined;
      const slice = range ? images.slice(range.start, range.end) : images;
      captions = await decodeSplit(runDir, slice, await visualFromSpec(spec), {
        decode,
        // --ckpt runs/<id>/checkpoints/step-N decodes with that checkpoint, not the run's latest
        ...(runDir !== flags.ckpt ? { checkpoint: flags.ckpt } : {}),
        progress: (done, total) => progress('caption', done, total),
      });
      progress.stop();
      if (sharding.shard) {
        // a shard writes its captions, then its done-marker; scores and files come with the merge
        const marker = shardFolder(jobDir, sharding.shard);
        fs.mkdirSync(marker, { recursive: true });
        writeFileAtomic(path.join(marker, 'captions.json'), JSON.stringify(Object.fromEntries(captions)) + '\n');
        writeFileAtomic(path.join(marker, 'summary.json'), JSON.stringify({ range, images: slice.length, split }, null, 2) + '\n');
        console.log(`caption shard ${shardLabel(sharding.shard)}: ${slice.length} images (${range!.start}–${range!.end - 1} of ${images.length}) → ${marker}`);
        return;
      }
    }
    const result = await scoreSplit(runDir, images, captions, {
      split,
      decode,
      // relative image paths in the annotation file name files beside it
      images: new ImageSource({ ...fetchFlags(flags), baseDir: path.dirname(path.resolve(flags.in)) }),
    });
    const preds = result.predictions.items.map((p) => ({ image_id: p.image_id, caption: p.caption }));
    if (format === 'nocaps') writeNocapsSubmission(flags.out, preds);
    else writeCocoResults(flags.out, preds);
    console.log(`${preds.length} captions → ${flags.out}; CIDEr ${(result.corpus.CIDEr ?? NaN).toFixed(3)} (scores in ${result.scoresPath})`);
  } finally {
    progress.stop();
  }
}

function featuresOfRun(runJson: string): FeatureSpec {
  const features = (readJsonFile(runJson) as { features?: FeatureSpec }).features;
  if (!features) throw new Error(`${runJson} names no visual features; pass --features '{"backbone":"world-cnn","mode":"regions","tags":true}'`);
  return features;
}

export async function runTable3Command(flags: {
  preset: string;
  seed: string;
  runs: string;
  cache: string;
  force: boolean;
  json: boolean;
  profile?: string;
}): Promise<void> {
  const preset = RECIPES[parseChoice('--preset', flags.preset, Object.keys(RECIPES) as (keyof typeof RECIPES)[])];
  const config = { ...preset, seed: parseWholeNumber('--seed', flags.seed) };
  const stopProfile = flags.profile ? startProfile(flags.profile) : undefined;
  const progress = terminalProgress();
  const result = await runTable3(config, {
    runsRoot: flags.runs,
    cacheDir: flags.cache,
    force: flags.force,
    say: (line) => {
      progress.stop();
      process.stderr.write(line + '\n');
    },
    progress,
  });
  progress.stop();
  // per-image scores (hundreds of numbers per split) serve the claims' intervals, not the printed result
  if (flags.json) console.log(JSON.stringify({ ...result, perImage: undefined }, null, 1));
  else {
    console.log(
      `\nCC12M Table 3 on the ${config.preset} world, seed ${config.seed}: nocaps-like CIDEr after fine-tuning on COCO-like (${config.decode.method} ${config.decode.beamSize}; checkpoint chosen on val, test at the same checkpoint); pools ${Object.entries(
        result.pools,
      )
        .map(([k, v]) => `${k} ${v} pairs`)
        .join(', ')}`,
    );
    console.log(formatTable3(result));
    console.log(`\n${result.seconds.toFixed(0)} s; runs in ${flags.runs}/ (open them in the VS Code sidebar)`);
  }
  stopProfile?.();
}

/**
 * The annotation file's images that the local-file policy lets `caption` read: a `file_name` outside the file's folder
 * (or a link inside it that leads out) is refused, with the same reason whether the file exists or not, unless
 * `--allow-local-files` (src/data/images.ts). Refused images are named on stderr and left out of the captions and the
 * scores; world and http(s) images are not local files.
 */
export function allowedEvalImages<T extends { key: string; imageId: unknown }>(images: readonly T[], annotations: string, allowAny: boolean): T[] {
  const base = path.dirname(path.resolve(annotations));
  const kept: T[] = [];
  const refused: { image: T; why: string }[] = [];
  for (const image of images) {
    if (/^(https?|world):\/\//.test(image.key)) {
      kept.push(image);
      continue;
    }
    const verdict = localFileRefusal(image.key, base, allowAny ? 'any' : 'inside-list');
    if ('reason' in verdict) refused.push({ image, why: `${verdict.reason}: ${verdict.detail}` });
    else kept.push(image);
  }
  if (refused.length > 0)
    process.stderr.write(
      `cckit caption: ${refused.length} of ${images.length} images of ${quoteInput(annotations)} refused and left out (first: image ${quoteInput(String(refused[0]!.image.imageId))}, ${quoteInput(refused[0]!.why, 400)})\n`,
    );
  return kept;
}
