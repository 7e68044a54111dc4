/**
 * The grid of CC3M Tables 4–7 (tables4-7.ts runs it): its 8 variants (model × features × training), the three test
 * sets and the metrics each table reports on them; and its data: the training files and test splits, from the world
 * (the CC3M-filtered pool split by URL hash into train / dev / test, the COCO-like test split into dev and test) or
 * from `recipe.captioners.data`'s real files.
 */
import * as fs from 'fs';
import * as path from 'path';

import { readEvalImages, readExamples, type EvalImage } from '../../train/data';
import { writeFileIfChanged } from '../../util/atomic';
import { CAPTIONER_FEATURES, CAPTIONER_MODELS, type CaptionerFeatures, type CaptionerModel, type Recipe } from '../recipe';
import { splitOf, type SplitFractions } from '../cc3m-dataset';
import { prepareWorldInputs } from '../inputs';
import { readSplitImages, type SplitImages } from '../plan';
import { readWebTruth } from '../world-stats';

export const CAPTIONER_TRAINING = ['coco', 'conceptual'] as const;
export type CaptionerTraining = (typeof CAPTIONER_TRAINING)[number];
export const CAPTIONER_TESTS = ['coco', 'conceptual', 'flickr'] as const;
export type CaptionerTest = (typeof CAPTIONER_TESTS)[number];

/** The paper's tables over the test sets: which test, which metrics (coco-caption names), which paper-numbers key. */
export const CAPTIONER_TABLES = {
  table5: { test: 'coco', metrics: ['CIDEr', 'ROUGE_L', 'METEOR'], paperKey: 'table5_coco_c40', title: 'CC3M Table 5: COCO-like test' },
  table6: { test: 'conceptual', metrics: ['CIDEr', 'ROUGE_L', 'SPICE'], paperKey: 'table6_conceptual_test', title: 'CC3M Table 6: Conceptual-like test' },
  table7: { test: 'flickr', metrics: ['CIDEr', 'ROUGE_L', 'SPICE'], paperKey: 'table7_flickr1k', title: 'CC3M Table 7: Flickr-like test' },
} as const satisfies Record<string, { test: CaptionerTest; metrics: readonly string[]; paperKey: string; title: string }>;
export type CaptionerTable = keyof typeof CAPTIONER_TABLES;

/** Every metric a test split is scored with (the union of the tables' columns). */
export const CAPTIONER_METRICS = ['CIDEr', 'ROUGE_L', 'METEOR', 'SPICE'] as const;

/** One of the 8 runs. `label` is the paper-numbers key ("T2T8x8_conceptual"). */
export interface CaptionerVariant {
  label: string;
  model: CaptionerModel;
  features: CaptionerFeatures;
  training: CaptionerTraining;
}

/** The grid in the paper's row order: COCO-trained first, RNN before T2T, 1×1 before 8×8. */
export function captionerVariants(): CaptionerVariant[] {
  return CAPTIONER_TRAINING.flatMap((training) =>
    CAPTIONER_MODELS.flatMap((model) => CAPTIONER_FEATURES.map((features) => ({ label: `${model}${features}_${training}`, model, features, training }))),
  );
}

/** The data of the grid: training files and the three test splits. */
export interface CaptionerInputs {
  cocoTrain: string;
  /** Conceptual training captions (TSV, caption first). */
  conceptualTrain: string;
  /** COCO-format captions files of the COCO-like and Flickr-like tests (the world's carry each image's objects). */
  cocoTest: string;
  flickrTest: string;
  /** The Conceptual-like test as EvalImage[] (JSON): one reference each, objects from the world's truth. */
  conceptualTest: string;
  /** Dev sets of the checkpoint choice (COCO-format captions files); absent: each run's last checkpoint. */
  cocoDev?: string;
  conceptualDev?: string;
  /** Only the Flickr-like test's first images (the world's split is Table 8's, larger than CC3M's test needs). */
  flickrLimit?: number;
  imageRoot?: string;
}

/** A pool's rows (caption, URL) split by URL hash into train, dev (the validation part) and test, as in CC3M. */
export function splitPool(
  rows: readonly { caption: string; url: string }[],
  fractions: SplitFractions,
): { train: typeof rows; dev: typeof rows; test: typeof rows } {
  const parts = {
    train: [] as { caption: string; url: string }[],
    dev: [] as { caption: string; url: string }[],
    test: [] as { caption: string; url: string }[],
  };
  for (const row of rows) parts[SPLIT_PART[splitOf(row.url, fractions)]].push(row);
  return parts;
}

const SPLIT_PART = { train: 'train', validation: 'dev', test: 'test' } as const;

/** Rows (caption, URL) as a COCO-format captions file, one reference each: what the trainer's dev scoring reads. */
export function cocoCaptionsOf(rows: readonly { caption: string; url: string }[]): object {
  return {
    images: rows.map((r, i) => ({ id: i, coco_url: r.url })),
    annotations: rows.map((r, i) => ({ id: i, image_id: i, caption: r.caption })),
  };
}

/**
 * A COCO-format captions file's images split by URL hash into dev (`devFraction`) and test: two files with the
 * source's `info` (so world images keep their keys), each image with all its references.
 */
export function splitCocoFile(file: string, devFraction: number, out: { dev: string; test: string }, imageRoot?: string): void {
  const data = JSON.parse(fs.readFileSync(file, 'utf8')) as { images: { id: number }[]; annotations: { image_id: number }[] } & Record<string, unknown>;
  const keyOf = new Map(readEvalImages({ path: file, imageRoot }).map((img) => [img.imageId, img.key]));
  const isDev = (id: number) => splitOf(keyOf.get(id) ?? String(id), { validation: devFraction, test: 1 - devFraction }) === 'validation';
  for (const [which, target] of [
    [true, out.dev],
    [false, out.test],
  ] as const) {
    const images = data.images.filter((img) => isDev(img.id) === which);
    const ids = new Set(images.map((img) => img.id));
    writeFileIfChanged(target, JSON.stringify({ ...data, images, annotations: data.annotations.filter((a) => ids.has(a.image_id)) }));
  }
}

/** Test rows as evaluation images: one reference each; `truth` (URL → concepts) gives the judge its objects. */
export function conceptualTestImages(rows: readonly { caption: string; url: string }[], truth?: ReadonlyMap<string, readonly string[]>): EvalImage[] {
  return rows.map((row, i) => {
    const objects = truth?.get(row.url);
    return { key: row.url, imageId: i, references: [row.caption], ...(objects ? { objects: [...objects] } : {}) };
  });
}

const tsvRows = async (file: string) => (await readExamples({ kind: 'tsv', path: file })).map((e) => ({ caption: e.caption, url: e.key }));

/** Writes `rows` as a caption-first TSV (the layout the pipelines write), creating the folder. */
function writeTsv(file: string, rows: readonly { caption: string; url: string }[]): void {
  writeFileIfChanged(file, rows.map((r) => `${r.caption.replace(/[\t\n]/g, ' ')}\t${r.url}`).join('\n') + '\n');
}

/**
 * The world (built and filtered by `prepareWorldInputs` on first use, shared with the other notebooks), or the real
 * files of `recipe.captioners.data`.
 */
export async function prepareCaptionerInputs(recipe: Recipe, options: { cacheDir?: string; say?: (line: string) => void } = {}): Promise<CaptionerInputs> {
  if (recipe.captioners.data) {
    const r = recipe.captioners.data;
    const dir = path.join(options.cacheDir ?? '.cckit-cache', 'real-cc3m-captioners');
    const conceptualTest = path.join(dir, 'conceptual-test.json');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(conceptualTest, JSON.stringify(conceptualTestImages(await tsvRows(r.conceptualTest))));
    const conceptualDev = path.join(dir, 'conceptual-dev.json');
    if (r.conceptualDev) writeFileIfChanged(conceptualDev, JSON.stringify(cocoCaptionsOf(await tsvRows(r.conceptualDev))));
    return {
      cocoTrain: r.cocoTrain,
      conceptualTrain: r.conceptualTrain,
      cocoTest: r.cocoTest,
      flickrTest: r.flickrTest,
      conceptualTest,
      ...(r.cocoDev ? { cocoDev: r.cocoDev } : {}),
      ...(r.conceptualDev ? { conceptualDev } : {}),
      imageRoot: r.imageRoot,
    };
  }
  // the world's splits, even when `recipe.data` names real files for the CC12M experiments
  const inputs = await prepareWorldInputs(
    { preset: recipe.preset, seed: recipe.seed, filters: recipe.filters },
    { cacheDir: options.cacheDir, say: options.say },
  );
  const root = inputs.worldRoot!;
  const { train: trainRows, dev, test } = splitPool(await tsvRows(inputs.pools.cc3m), recipe.captioners.splits);
  const truth = readWebTruth(path.join(root, 'web', 'truth.jsonl'));
  const dir = path.join(root, 'cc3m-captioners');
  const conceptualTrain = path.join(dir, 'conceptual-train.tsv');
  const conceptualDev = path.join(dir, 'conceptual-dev.json');
  const conceptualTest = path.join(dir, 'conceptual-test.json');
  writeTsv(conceptualTrain, trainRows);
  writeFileIfChanged(conceptualDev, JSON.stringify(cocoCaptionsOf(dev)));
  fs.writeFileSync(conceptualTest, JSON.stringify(conceptualTestImages(test, new Map([...truth].map(([url, t]) => [url, t.concepts])))));
  // the COCO-like dev: part of the COCO-like test split's images (the world has no other COCO-like split left)
  const coco = { dev: path.join(dir, 'coco-dev.json'), test: path.join(dir, 'coco-test.json') };
  splitCocoFile(inputs.cocoVal, recipe.captioners.dev.cocoDevFraction, coco);
  return {
    cocoTrain: inputs.cocoTrain,
    conceptualTrain,
    cocoTest: coco.test,
    flickrTest: path.join(root, 'flickr', 'captions.json'),
    conceptualTest,
    cocoDev: coco.dev,
    conceptualDev,
    flickrLimit: recipe.captioners.flickrImages,
  };
}

/** Where a test split's evaluation images are (a plan's `SplitImages`). */
export function testSource(inputs: CaptionerInputs, test: CaptionerTest): SplitImages {
  if (test === 'conceptual') return { list: inputs.conceptualTest };
  if (test === 'coco') return { path: inputs.cocoTest, imageRoot: inputs.imageRoot };
  return { path: inputs.flickrTest, imageRoot: inputs.imageRoot, ...(inputs.flickrLimit !== undefined ? { limit: inputs.flickrLimit } : {}) };
}

/** The evaluation images of a test split. */
export function testImages(inputs: CaptionerInputs, test: CaptionerTest): EvalImage[] {
  return readSplitImages(testSource(inputs, test));
}
