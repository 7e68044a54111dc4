/**
 * Training and evaluation examples: where captions come from and how they become batches.
 *
 * Sources: a pipeline's `kept.tsv` (image URL + caption, either column order), a COCO / nocaps
 * captions file (one example per reference; world-built files map to `world://` URLs, real ones
 * to paths under `imageRoot`), or a split of the embedded world directly. Every example is keyed by
 * its image URL/path, which is also the feature cache's key.
 */
import * as fs from 'fs';
import * as path from 'path';

import { readTsv } from '../data/tsv';
import { readCocoAnnotations, worldOfCocoFile } from '../data/coco';
import { InputError } from '../util/json';
import { mixSeed, seededRandom, shuffled } from '../util/random';
import { worldUrl } from '../world/url';

export interface Example {
  /** Image URL or path (feature cache key). */
  key: string;
  caption: string;
}

/** One evaluation image with all its references. */
export interface EvalImage {
  key: string;
  imageId: string | number;
  references: string[];
  domain?: 'in' | 'near' | 'out';
  /** Concept names the image shows: the world's ground truth, absent for real COCO / nocaps. */
  objects?: string[];
}

export type DataSource =
  { kind: 'tsv'; path: string; layout?: 'caption-url' | 'url-caption' } | { kind: 'coco'; path: string; imageRoot?: string; limit?: number };

/** Reads a source's examples (one per caption). */
export async function readExamples(source: DataSource): Promise<Example[]> {
  if (source.kind === 'tsv') {
    const out: Example[] = [];
    for await (const row of readTsv(source.path, { layout: source.layout ?? 'auto' })) out.push({ key: row.url, caption: row.caption });
    return out;
  }
  return readEvalImages(source).flatMap((img) => img.references.map((caption) => ({ key: img.key, caption })));
}

/** A COCO/nocaps captions file grouped per image. World-built files give `world://` keys. */
export function readEvalImages(source: { path: string; imageRoot?: string; limit?: number }): EvalImage[] {
  const file = source.path;
  const annotations = readCocoAnnotations(file);
  const world = worldOfCocoFile(annotations.info);
  const root = source.imageRoot ?? path.dirname(file);
  const images: EvalImage[] = [];
  annotations.images.forEach((img, i) => {
    if (typeof img.id !== 'number') throw new InputError(file, `images[${i}]: "id" must be a number`);
    if (img.captions.length === 0) return;
    let key: string;
    if (world) key = worldUrl({ ...world, id: img.id }, 'jpeg');
    else if (img.cocoUrl && /^(https?|world):\/\//.test(img.cocoUrl)) key = img.cocoUrl;
    else if (img.fileName) key = path.join(root, img.fileName);
    else throw new InputError(file, `images[${i}]: no "file_name" or "coco_url"`);
    images.push({
      key,
      imageId: img.id,
      references: img.captions,
      ...(img.domain ? { domain: img.domain } : {}),
      ...(img.objects ? { objects: img.objects } : {}),
    });
  });
  return source.limit !== undefined ? images.slice(0, source.limit) : images;
}

/** The first `fraction` of a seeded permutation: 25% ⊂ 50% ⊂ 100% for the same seed. */
export function subsample<T>(items: readonly T[], fraction: number, seed: number): T[] {
  if (!(fraction > 0 && fraction <= 1)) throw new Error(`subsample: fraction must be in (0, 1], got ${fraction}`);
  if (fraction === 1) return [...items];
  const order = shuffled(
    seededRandom(mixSeed(seed, 0x5b5a)),
    items.map((_, i) => i),
  );
  return order
    .slice(0, Math.max(1, Math.round(items.length * fraction)))
    .sort((a, b) => a - b)
    .map((i) => items[i]!);
}

/** Position in the training stream: epoch and index into that epoch's permutation. */
export interface DataPosition {
  epoch: number;
  index: number;
}

/** Deterministic epoch-wise shuffled batches; the position is all a resumed run needs. */
export class BatchStream<T> {
  private order: number[] = [];
  private orderEpoch = -1;

  constructor(
    private readonly items: readonly T[],
    private readonly batchSize: number,
    private readonly seed: number,
    public position: DataPosition = { epoch: 0, index: 0 },
  ) {
    if (items.length === 0) throw new Error('training data is empty');
  }

  get stepsPerEpoch(): number {
    return Math.ceil(this.items.length / this.batchSize);
  }

  next(): T[] {
    if (this.orderEpoch !== this.position.epoch) {
      this.order = shuffled(
        seededRandom(mixSeed(this.seed, 0xe90c, this.position.epoch)),
        this.items.map((_, i) => i),
      );
      this.orderEpoch = this.position.epoch;
    }
    const batch = this.order.slice(this.position.index, this.position.index + this.batchSize).map((i) => this.items[i]!);
    this.position =
      this.position.index + this.batchSize >= this.items.length
        ? { epoch: this.position.epoch + 1, index: 0 }
        : { epoch: this.position.epoch, index: this.position.index + this.batchSize };
    return batch;
  }
}

/**
 * Batches of distinct images for a contrastive loss (the matching model), each image with one of its
 * captions: every epoch a seeded permutation of the images, and per image a caption drawn from its
 * list, so no batch counts an image's own caption as a negative. Deterministic in (seed, position), and
 * the position is all a resumed run needs, as with BatchStream.
 */
export class DistinctImageStream {
  private readonly keys: string[];
  private readonly captions = new Map<string, string[]>();
  private order: string[] = [];
  private orderEpoch = -1;

  constructor(
    examples: readonly Example[],
    private readonly batchSize: number,
    private readonly seed: number,
    public position: DataPosition = { epoch: 0, index: 0 },
  ) {
    for (const e of examples) {
      const list = this.captions.get(e.key);
      if (list) list.push(e.caption);
      else this.captions.set(e.key, [e.caption]);
    }
    this.keys = [...this.captions.keys()];
    if (this.keys.length < 2) throw new Error('a contrastive batch needs at least two images');
  }

  /** Distinct images in the data. */
  get images(): number {
    return this.keys.length;
  }

  get stepsPerEpoch(): number {
    return Math.ceil(this.keys.length / this.batchSize);
  }

  next(): Example[] {
    const batch: Example[] = [];
    const size = Math.min(this.batchSize, this.keys.length);
    let { epoch, index } = this.position;
    while (batch.length < size) {
      if (index >= this.keys.length) {
        epoch++;
        index = 0;
      }
      if (this.orderEpoch !== epoch) {
        this.order = shuffled(seededRandom(mixSeed(this.seed, 0xba7c, epoch)), this.keys);
        this.orderEpoch = epoch;
      }
      const key = this.order[index++]!;
      if (batch.some((e) => e.key === key)) continue; // an epoch boundary inside a batch: keep the batch's images distinct
      const list = this.captions.get(key)!;
      const pick = list.length === 1 ? 0 : Math.floor(seededRandom(mixSeed(this.seed, 0xca97, epoch, index))() * list.length);
      batch.push({ key, caption: list[pick]! });
    }
    this.position = index >= this.keys.length ? { epoch: epoch + 1, index: 0 } : { epoch, index };
    return batch;
  }
}

/** sha256 of a data file's content (for run ids). */
export function fileDigest(file: string): string {
  const crypto = require('crypto') as typeof import('crypto');
  const hash = crypto.createHash('sha256');
  const fd = fs.openSync(file, 'r');
  try {
    const buf = Buffer.alloc(1 << 20);
    let n: number;
    while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) hash.update(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  return hash.digest('hex').slice(0, 16);
}
