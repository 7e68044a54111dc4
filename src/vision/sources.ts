/**
 * The images of a data source as `ImageRef`s (cache keys, where the pixels are, boxes, tags):
 *
 * - `world:PRESET:SPLIT` (e.g. `world:tiny:coco-train`): ids 0 … size−1 of a split of the world
 *   with the given seed, as `world://SEED/SPLIT/ID.ext` URLs (boxes and tags from the world).
 * - a TSV (CC3M `caption<TAB>url` or CC12M `url<TAB>caption`): its URLs; tags from a JSON-lines
 *   file `{url, tags}` (default: `truth.jsonl` beside the TSV, as the world writes it).
 * - a folder of webdataset shards / img2dataset output: each sample's image bytes, keyed by its
 *   json `url` (else `SHARD#KEY`); tags from the json's `tags`; boxes from `truth.boxes` with the
 *   json's `width`/`height` (the world's rendered shards carry both).
 * - a COCO / nocaps caption annotation JSON: its images; written by `cckit world build` (its "info"
 *   names the world's seed and split), they become world URLs, otherwise `file_name` is resolved
 *   against `imagesDir` (default: the JSON's folder).
 */
import * as fs from 'fs';
import * as path from 'path';
import type { ImageRef } from './features';
import { normalizedBox } from './regions';
import { readCocoAnnotations, worldOfCocoFile } from '../data/coco';
import { InputError } from '../util/json';
import { readTsv } from '../data/tsv';
import { countSamples, decodeSample, readSampleRange, type RawSample, type ShardSample, type UnreadableShard } from '../data/webdataset';
import { sliceRange, type ShardSpec } from '../util/shard';
import { loadTagsFile, tagsFileBeside } from '../data/tags';
import { WORLD_PRESETS, isWorldSplit, type WorldPresetName, type WorldSplit } from '../world/splits';
import { worldUrl } from '../world/url';
import type { Box } from '../world/types';
import { worldFor } from '../data/images';

export interface SourceOptions {
  /** World seed for `world:` sources (default 0). */
  seed?: number;
  /** At most this many images. */
  limit?: number;
  /** JSON lines {url, tags} for TSV sources. */
  tagsFile?: string;
  /** Folder that COCO `file_name`s are relative to. */
  imagesDir?: string;
  /** Shard folders: largest member read (default: webdataset.ts's DEFAULT_MAX_MEMBER_BYTES); a sample with a larger one fails with the reason. */
  maxMemberBytes?: number;
  /** Shard folders: a damaged tar is reported here and skipped (see `ReadShardOptions.onUnreadableShard`); without it, it stops the read. */
  onUnreadableShard?: (shard: UnreadableShard) => void;
}

/** Parses `world:PRESET:SPLIT`; undefined when the text is not of that form. */
export function parseWorldSource(text: string): { preset: WorldPresetName; split: WorldSplit } | undefined {
  const m = /^world:([a-z]+):([a-z-]+)$/.exec(text);
  if (!m) return undefined;
  const [, preset, split] = m;
  if (!(preset! in WORLD_PRESETS)) throw new Error(`${text}: unknown world preset "${preset}" (${Object.keys(WORLD_PRESETS).join(', ')})`);
  if (!isWorldSplit(split!)) throw new Error(`${text}: unknown world split "${split}"`);
  return { preset: preset as WorldPresetName, split };
}

/** The world URLs of ids 0 … count−1 of a split. */
export function worldSplitRefs(seed: number, split: WorldSplit, count: number): ImageRef[] {
  const world = worldFor(seed);
  return Array.from({ length: count }, (_, id) => ({ key: worldUrl({ seed, split, id }, world.scene(split, id).format) }));
}

function isBox(value: unknown): value is Box {
  const b = value as Box;
  return typeof b === 'object' && b !== null && [b.x, b.y, b.width, b.height].every((v) => typeof v === 'number' && Number.isFinite(v));
}

/**
 * A folder sample as an image reference: keyed by its json `url` (else `SHARD#KEY`), with its tags and boxes.
 * A sample with a member over the size cap becomes a reference that fails with the reason (`ImageRef.error`).
 */
function sampleRef(raw: RawSample): ImageRef {
  let sample: ShardSample;
  try {
    sample = decodeSample(raw);
  } catch (err) {
    if (!raw.oversized) throw err;
    return { key: `${raw.source}#${raw.key}`, error: (err as Error).message };
  }
  const json = sample.json as { url?: unknown; tags?: unknown; width?: unknown; height?: unknown; truth?: { boxes?: unknown } };
  const ref: ImageRef = { key: typeof json.url === 'string' && json.url ? json.url : `${raw.source}#${sample.key}`, bytes: sample.image };
  if (Array.isArray(json.tags)) ref.tags = json.tags.map(String);
  const boxes = json.truth?.boxes;
  if (Array.isArray(boxes) && typeof json.width === 'number' && typeof json.height === 'number' && boxes.every(isBox)) {
    const w = json.width;
    const h = json.height;
    ref.boxes = boxes.map((b) => normalizedBox(b, w, h));
  }
  return ref;
}

/** One shard's share of a source: the images at positions range.start … range.end−1 of `total`, streamed. */
export interface SourceSlice {
  total: number;
  range: { start: number; end: number };
  /** What a position counts: a sample of a folder (read one at a time), or a distinct image of a listed source. */
  unit: 'sample' | 'image';
  refs: AsyncIterable<ImageRef>;
}

/**
 * The images of a source for one shard of N (all of them without a shard). A folder is streamed: the shard
 * counts its samples from the tars' stats, skips the tars before its slice unread and holds one image at a
 * time, so its memory does not grow with the folder; a sample repeated across shards is computed by each (the
 * store keeps one). Listed sources (world splits, TSVs, COCO files) are small lists of keys: their distinct
 * images are sliced.
 */
export async function sourceSlice(source: string, options: SourceOptions & { shard?: ShardSpec } = {}): Promise<SourceSlice> {
  const limit = options.limit ?? Infinity;
  if (!parseWorldSource(source) && fs.existsSync(source) && fs.statSync(source).isDirectory()) {
    const total = Math.min(limit, await countSamples(source));
    const range = options.shard ? sliceRange(options.shard, total) : { start: 0, end: total };
    async function* refs(): AsyncGenerator<ImageRef> {
      const reading = { maxMemberBytes: options.maxMemberBytes, ...(options.onUnreadableShard ? { onUnreadableShard: options.onUnreadableShard } : {}) };
      for await (const { raw } of readSampleRange(source, range, reading)) yield sampleRef(raw);
    }
    return { total, range, unit: 'sample', refs: refs() };
  }
  const distinct = [...new Map((await readImageSource(source, options)).map((ref) => [ref.key, ref])).values()];
  const range = options.shard ? sliceRange(options.shard, distinct.length) : { start: 0, end: distinct.length };
  const slice = distinct.slice(range.start, range.end);
  async function* refs(): AsyncGenerator<ImageRef> {
    for (const ref of slice) yield ref;
  }
  return { total: distinct.length, range, unit: 'image', refs: refs() };
}

/** Reads the images of any supported source (see the module comment). */
export async function readImageSource(source: string, options: SourceOptions = {}): Promise<ImageRef[]> {
  const limit = options.limit ?? Infinity;
  const world = parseWorldSource(source);
  if (world) {
    const count = Math.min(limit, WORLD_PRESETS[world.preset][world.split]);
    return worldSplitRefs(options.seed ?? 0, world.split, count);
  }
  if (!fs.existsSync(source)) throw new Error(`${source}: no such file or folder (or world:PRESET:SPLIT)`);
  const refs: ImageRef[] = [];
  if (fs.statSync(source).isDirectory()) {
    for await (const { raw } of readSampleRange(source, Number.isFinite(limit) ? { start: 0, end: limit } : undefined, {
      maxMemberBytes: options.maxMemberBytes,
    }))
      refs.push(sampleRef(raw));
    return refs;
  }
  if (source.endsWith('.json')) {
    const annotations = readCocoAnnotations(source);
    const world = worldOfCocoFile(annotations.info);
    for (const image of annotations.images.slice(0, Number.isFinite(limit) ? limit : undefined)) {
      if (world && typeof image.id === 'number') refs.push({ key: worldUrl({ ...world, id: image.id }, 'jpeg') });
      else {
        if (!image.fileName) throw new InputError(source, `image ${image.id} has no "file_name"`);
        refs.push({ key: path.resolve(options.imagesDir ?? path.dirname(source), image.fileName) });
      }
    }
    return refs;
  }
  const tagsFile = options.tagsFile ?? tagsFileBeside(source);
  const tags = tagsFile ? loadTagsFile(tagsFile) : undefined;
  for await (const row of readTsv(source)) {
    if (refs.length >= limit) break;
    const ref: ImageRef = { key: row.url };
    const t = tags?.(row.url);
    if (t) ref.tags = t;
    refs.push(ref);
  }
  return refs;
}
