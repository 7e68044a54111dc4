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
import { InputError, readJsonFile } from '../metrics/inputs';
import { mixSeed, seededRandom, shuffled } from '../util/random';
import { worldUrl } from '../world/url';
import { isWorldSplit } from '../world/splits';

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
}

export type DataSource =
  | { kind: 'tsv'; path: string; layout?: 'caption-url' | 'url-caption' }
  | { kind: 'coco'; path: string; imageRoot?: string; limit?: number };

/** Reads a source's examples (one per caption). */
export async function readExamples(source: DataSource): Promise<Example[]> {
  if (source.kind === 'tsv') {
    const out: Example[] = [];
    for await (const row of readTsv(source.path, { layout: source.layout ?? 'auto' })) out.push({ key: row.url, caption: row.caption });
    return out;
  }
  return readEvalImages(source).flatMap((img) => img.references.map((caption) => ({ key: img.key, caption })));
}

interface CocoFile {
  info?: { description?: string; seed?: number };
  images?: { id: number; file_name?: string; coco_url?: string; domain?: string }[];
  annotations?: { image_id: number; caption: string }[];
}

const DOMAIN_NAMES: Record<string, 'in' | 'near' | 'out'> = { 'in-domain': 'in', 'near-domain': 'near', 'out-domain': 'out', in: 'in', near: 'near', out: 'out' };

/** A COCO/nocaps captions file grouped per image. World-built files give `world://` keys. */
export function readEvalImages(source: { path: string; imageRoot?: string; limit?: number }): EvalImage[] {
  const file = source.path;
  const json = readJsonFile(file) as CocoFile;
  if (!json || !Array.isArray(json.images) || !Array.isArray(json.annotations)) throw new InputError(file, 'expected a COCO captions file with "images" and "annotations" arrays');
  const worldSplit = worldSplitOf(json);
  const root = source.imageRoot ?? path.dirname(file);
  const byId = new Map<number, EvalImage>();
  json.images.forEach((img, i) => {
    if (typeof img.id !== 'number') throw new InputError(file, `images[${i}]: "id" must be a number`);
    let key: string;
    if (worldSplit) key = worldUrl({ seed: json.info!.seed!, split: worldSplit, id: img.id }, 'jpeg');
    else if (img.coco_url && /^(https?|world):\/\//.test(img.coco_url)) key = img.coco_url;
    else if (img.file_name) key = path.join(root, img.file_name);
    else throw new InputError(file, `images[${i}]: no "file_name" or "coco_url"`);
    const domain = img.domain !== undefined ? DOMAIN_NAMES[img.domain] : undefined;
    byId.set(img.id, { key, imageId: img.id, references: [], ...(domain ? { domain } : {}) });
  });
  json.annotations.forEach((a, i) => {
    const img = byId.get(a.image_id);
    if (!img) throw new InputError(file, `annotations[${i}]: image_id ${a.image_id} is not in "images"`);
    if (typeof a.caption !== 'string') throw new InputError(file, `annotations[${i}]: "caption" must be a string`);
    img.references.push(a.caption);
  });
  const images = [...byId.values()].filter((img) => img.references.length > 0);
  return source.limit !== undefined ? images.slice(0, source.limit) : images;
}

/** `cckit world build` writes `info.description = "cckit embedded world, SPLIT"` and `info.seed`. */
function worldSplitOf(json: CocoFile): ReturnType<typeof splitName> {
  const d = json.info?.description;
  if (typeof d !== 'string' || typeof json.info?.seed !== 'number' || !d.startsWith('cckit embedded world, ')) return undefined;
  return splitName(d.slice('cckit embedded world, '.length));
}

function splitName(s: string) {
  return isWorldSplit(s) ? s : undefined;
}

/** The first `fraction` of a seeded permutation: 25% ⊂ 50% ⊂ 100% for the same seed. */
export function subsample<T>(items: readonly T[], fraction: number, seed: number): T[] {
  if (!(fraction > 0 && fraction <= 1)) throw new Error(`subsample: fraction must be in (0, 1], got ${fraction}`);
  if (fraction === 1) return [...items];
  const order = shuffled(seededRandom(mixSeed(seed, 0x5b5a)), items.map((_, i) => i));
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
      this.order = shuffled(seededRandom(mixSeed(this.seed, 0xe90c, this.position.epoch)), this.items.map((_, i) => i));
      this.orderEpoch = this.position.epoch;
    }
    const batch = this.order.slice(this.position.index, this.position.index + this.batchSize).map((i) => this.items[i]!);
    this.position = this.position.index + this.batchSize >= this.items.length ? { epoch: this.position.epoch + 1, index: 0 } : { epoch: this.position.epoch, index: this.position.index + this.batchSize };
    return batch;
  }
}

/** sha256 of a data file's content (for run ids). */
export function fileDigest(file: string): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
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
